package dev.needlewb.reports.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Paint;
import java.text.DecimalFormat;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.PaintScale;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.xy.XYBlockRenderer;
import org.jfree.chart.title.PaintScaleLegend;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.DefaultXYZDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Report charts built with JFreeChart (headless). Axes say what the data holds: rounds and layers
 * sit on a category axis, one label per point; log axes span whole decades (at least one) with one
 * label per decade written 1e-7; counts get integer ticks; values a chart cannot draw are counted
 * in a subtitle rather than silently dropped.
 */
public final class Charts {
    public static final int WIDTH = 900;
    public static final int HEIGHT = 420;
    /** More categories than this and their labels turn upright. */
    private static final int UPRIGHT_LABELS = 30;
    /** Bars carry their value as a label up to this many bars. */
    private static final int LABELLED_BARS = 60;
    private static final Color GRID = new Color(0xDD, 0xDD, 0xDD);
    private static final Color MINOR_GRID = new Color(0xF0, 0xF0, 0xF0);

    static {
        System.setProperty("java.awt.headless", "true");
    }

    public enum Scale { LINEAR, LOG }

    private Charts() {}

    /**
     * One line per series over named points (rounds, layers), {@code series} values indexed like
     * {@code points}. NaN or an infinity (or a series shorter than the points) is no point and breaks the line. On a log scale a value at or below zero
     * cannot be drawn: it is left out and counted in a subtitle.
     */
    public static Chart lines(String title, String xLabel, String yLabel, List<String> points, Map<String, double[]> series,
            Scale scale) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        Extent drawn = new Extent();
        int undrawable = 0;
        for (Map.Entry<String, double[]> s : series.entrySet()) {
            double[] v = s.getValue();
            for (int i = 0; i < points.size(); i++) {
                double x = i < v.length ? v[i] : Double.NaN;
                // an infinite value (weights that are not finite give them) is no point: an infinite
                // bound would make the axis lay out ticks without end
                boolean drawable = Double.isFinite(x) && (scale == Scale.LINEAR || x > 0);
                if (Double.isFinite(x) && !drawable) undrawable++;
                if (drawable) drawn.add(x);
                data.addValue(drawable ? x : null, s.getKey(), points.get(i));
            }
        }
        JFreeChart chart = ChartFactory.createLineChart(title, xLabel, yLabel, data, PlotOrientation.VERTICAL, true, false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        LineAndShapeRenderer renderer = new LineAndShapeRenderer(true, true);
        for (int i = 0; i < series.size(); i++) renderer.setSeriesStroke(i, new BasicStroke(2f));
        plot.setRenderer(renderer);
        if (scale == Scale.LOG) {
            plot.setRangeAxis(logAxis(yLabel, drawn));
            plot.setRangeMinorGridlinesVisible(true);
            plot.setRangeMinorGridlinePaint(MINOR_GRID);
            if (undrawable > 0) {
                chart.addSubtitle(new TextTitle(undrawable + (undrawable == 1 ? " value" : " values")
                        + " of 0 or below not drawn (log axis)"));
            }
        } else if (drawn.integral) {
            ((NumberAxis) plot.getRangeAxis()).setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        }
        style(plot, points.size());
        return new Chart(chart, WIDTH, HEIGHT);
    }

    /**
     * Vertical bars on a linear axis from zero: for each category (x, e.g. a tensor) one bar per
     * series, labelled with its value while there are few bars; NaN and infinite values have no bar (a series of
     * only such values is left out, not drawn as zero) and every category keeps its label. Category
     * labels are turned upright when there are many, and the chart widens with them.
     */
    public static Chart bars(String title, String xLabel, String yLabel, List<String> categories, Map<String, double[]> series) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        Extent values = new Extent();
        for (Map.Entry<String, double[]> s : series.entrySet()) {
            double[] v = s.getValue();
            if (Arrays.stream(v).noneMatch(Double::isFinite)) continue;
            for (int i = 0; i < categories.size(); i++) {
                // a NaN enters as null, so its category keeps its place on the axis without a bar
                data.addValue(Double.isFinite(v[i]) ? v[i] : null, s.getKey(), categories.get(i));
                if (Double.isFinite(v[i])) values.add(v[i]);
            }
        }
        JFreeChart chart = ChartFactory.createBarChart(title, xLabel, yLabel, data, PlotOrientation.VERTICAL,
                series.size() > 1, false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        NumberAxis axis = (NumberAxis) plot.getRangeAxis();
        if (values.integral) axis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        if (values.count <= LABELLED_BARS) {
            BarRenderer renderer = (BarRenderer) plot.getRenderer();
            renderer.setDefaultItemLabelGenerator(new StandardCategoryItemLabelGenerator("{2}",
                    new DecimalFormat("#,##0.##", java.text.DecimalFormatSymbols.getInstance(Locale.ROOT))));
            renderer.setDefaultItemLabelsVisible(true);
            axis.setUpperMargin(0.12);
        }
        style(plot, categories.size());
        boolean upright = categories.size() > 12;
        if (upright) plot.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_90);
        return new Chart(chart, Math.max(WIDTH, 60 + 14 * categories.size()), HEIGHT + (upright ? 160 : 0));
    }

    /** Points (x[i], y[i]), e.g. engine logits against reference logits; a point with a coordinate that is not finite is left out. */
    public static Chart scatter(String title, String xLabel, String yLabel, double[] x, double[] y) {
        XYSeries xy = new XYSeries("points", false, true);
        for (int i = 0; i < x.length; i++) {
            if (Double.isFinite(x[i]) && Double.isFinite(y[i])) xy.add(x[i], y[i]);
        }
        JFreeChart chart = ChartFactory.createScatterPlot(title, xLabel, yLabel, new XYSeriesCollection(xy),
                PlotOrientation.VERTICAL, false, false, false);
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(GRID);
        plot.setRangeGridlinePaint(GRID);
        return new Chart(chart, WIDTH, HEIGHT);
    }

    /**
     * A heat map of values[row][col] with named rows (y) and columns (x); colour is log10 of the
     * value over whole decades, so values spanning many decades stay readable, and the colour key
     * names {@code valueLabel} with 1e-7 style labels. A zero cell is white, a missing (NaN) or infinite one
     * grey; a subtitle says so when either occurs.
     */
    public static Chart heatmap(String title, String valueLabel, List<String> rows, List<String> cols, double[][] values) {
        DefaultXYZDataset data = new DefaultXYZDataset();
        int n = rows.size() * cols.size();
        double[][] xyz = new double[3][n];
        Extent positive = new Extent();
        boolean zeros = false, missing = false;
        int k = 0;
        for (int r = 0; r < rows.size(); r++) {
            for (int c = 0; c < cols.size(); c++, k++) {
                double v = values[r][c];
                xyz[0][k] = c;
                xyz[1][k] = r;
                boolean finitePositive = v > 0 && v < Double.POSITIVE_INFINITY;
                xyz[2][k] = finitePositive ? Math.log10(v) : v == 0 ? Double.NEGATIVE_INFINITY : Double.NaN;
                if (finitePositive) positive.add(v);
                zeros |= v == 0;
                missing |= !(v >= 0) || v == Double.POSITIVE_INFINITY;
            }
        }
        data.addSeries("values", xyz);
        Decades decades = Decades.of(positive);
        Log10Scale scale = new Log10Scale(decades.lo, decades.hi);
        XYBlockRenderer renderer = new XYBlockRenderer();
        renderer.setPaintScale(scale);
        XYPlot plot = new XYPlot(data, new SymbolAxis("", cols.toArray(String[]::new)),
                new SymbolAxis("", rows.toArray(String[]::new)), renderer);
        JFreeChart chart = new JFreeChart(title, plot);
        ChartUtils.applyCurrentTheme(chart);
        chart.removeLegend();
        if (zeros || missing) {
            chart.addSubtitle(new TextTitle((zeros ? "white: 0" : "") + (zeros && missing ? "; " : "") + (missing ? "grey: no value" : "")));
        }
        NumberAxis legendAxis = new NumberAxis(valueLabel);
        legendAxis.setRange(decades.lo, decades.hi);
        legendAxis.setTickUnit(new NumberTickUnit(decades.step()));
        legendAxis.setNumberFormatOverride(new DecadeFormat(decades.plain(), true));
        PaintScaleLegend legend = new PaintScaleLegend(scale, legendAxis);
        legend.setPosition(RectangleEdge.RIGHT);
        legend.setSubdivisionCount(200);
        // room above and below the strip for the labels of its end decades
        legend.setMargin(new RectangleInsets(12, 4, 12, 4));
        chart.addSubtitle(legend);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinesVisible(false);
        plot.setRangeGridlinesVisible(false);
        return new Chart(chart, WIDTH, Math.max(HEIGHT, 40 + 14 * rows.size()));
    }

    /** A log axis over the whole decades around {@code drawn}, one labelled tick per decade (or per few, over many). */
    private static LogAxis logAxis(String label, Extent drawn) {
        Decades decades = Decades.of(drawn);
        LogAxis axis = new LogAxis(label);
        // a hair beyond the end decades, so rounding in log10 cannot drop their ticks
        axis.setRange(Math.pow(10, decades.lo - 1e-9), Math.pow(10, decades.hi + 1e-9));
        axis.setTickUnit(new NumberTickUnit(decades.step(), new DecimalFormat("0"), decades.step() == 1 ? 9 : 0));
        axis.setNumberFormatOverride(new DecadeFormat(decades.plain(), false));
        axis.setMinorTickMarksVisible(true);
        return axis;
    }

    private static void style(CategoryPlot plot, int categories) {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(GRID);
        if (categories > UPRIGHT_LABELS) plot.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_90);
    }

    /** Smallest and largest of the values added, how many, and whether all are whole numbers. */
    private static final class Extent {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        int count;
        boolean integral = true;

        void add(double v) {
            min = Math.min(min, v);
            max = Math.max(max, v);
            count++;
            integral &= v == Math.rint(v);
        }
    }

    /**
     * The exponents of the whole decades around positive values, {@code floor(log10 min)} to
     * {@code ceil(log10 max)}, at least one decade apart and widened to whole steps of
     * {@link #step}; [-1, 0] when there are none.
     */
    record Decades(int lo, int hi) {
        static Decades of(Extent positive) {
            if (positive.count == 0) return new Decades(-1, 0);
            int lo = (int) Math.floor(Math.log10(positive.min));
            int hi = Math.max((int) Math.ceil(Math.log10(positive.max)), lo + 1);
            int step = new Decades(lo, hi).step();
            return new Decades(Math.floorDiv(lo, step) * step, -Math.floorDiv(-hi, step) * step);
        }

        /** Decades per labelled tick: one, or more so that about 10 labels show. */
        int step() {
            return Math.max(1, (hi - lo + 9) / 10);
        }

        /** Plain decimals (0.001 to 10000) read better than exponents where every label is one. */
        boolean plain() {
            return lo >= -3 && hi <= 4;
        }
    }

    /**
     * Labels for powers of ten: plain ("0.01", "1000") or as exponents ("1e-7", "1e5"); any other
     * value with three significant digits. With {@code exponents} the formatted number is the
     * exponent itself (a log10 colour key).
     */
    static final class DecadeFormat extends NumberFormat {
        private final boolean plain;
        private final boolean exponents;

        DecadeFormat(boolean plain, boolean exponents) {
            this.plain = plain;
            this.exponents = exponents;
        }

        @Override
        public StringBuffer format(double number, StringBuffer to, FieldPosition pos) {
            double value = exponents ? Math.pow(10, number) : number;
            long e = Math.round(Math.log10(value));
            boolean decade = value > 0 && Math.abs(value / Math.pow(10, e) - 1) < 1e-9;
            if (!decade) return to.append(String.format(Locale.ROOT, "%.3g", value));
            if (!plain) return to.append("1e").append(e);
            return to.append(e >= 0 ? String.valueOf((long) Math.pow(10, e)) : "0." + "0".repeat((int) -e - 1) + "1");
        }

        @Override
        public StringBuffer format(long number, StringBuffer to, FieldPosition pos) {
            return format((double) number, to, pos);
        }

        @Override
        public Number parse(String source, ParsePosition pos) {
            throw new UnsupportedOperationException("axis labels are only written");
        }
    }

    /** Blue (low) to red (high) over [lo, hi]; NaN cells are light grey, -infinity (a zero value) white. */
    private record Log10Scale(double lo, double hi) implements PaintScale {
        @Override
        public double getLowerBound() {
            return lo;
        }

        @Override
        public double getUpperBound() {
            return hi;
        }

        @Override
        public Paint getPaint(double value) {
            if (Double.isNaN(value)) return new Color(0xDD, 0xDD, 0xDD);
            if (value == Double.NEGATIVE_INFINITY) return Color.WHITE;
            float t = (float) Math.max(0, Math.min(1, (value - lo) / (hi - lo)));
            return Color.getHSBColor(0.66f * (1 - t), 0.75f, 0.95f);
        }
    }
}
