package dev.needlewb.reports.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Paint;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.PaintScale;
import org.jfree.chart.renderer.xy.XYBlockRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.PaintScaleLegend;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.DefaultXYZDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Report charts rendered with JFreeChart to PNG bytes (headless), for inlining into HTML pages. */
public final class Charts {
    public static final int WIDTH = 900;
    public static final int HEIGHT = 420;

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {}

    /** One line per series, x = 0, 1, 2, ...; non-positive values are dropped on a log axis. */
    public static byte[] lines(String title, String xLabel, String yLabel, Map<String, double[]> series, boolean logY) {
        return lines(title, xLabel, yLabel, series, logY, 0);
    }

    /**
     * One line per series, x = firstX, firstX + 1, ...; NaN and infinite values (a model with
     * non-finite weights gives them), and non-positive ones on a log axis, are dropped: an
     * infinite bound makes the log axis lay out ticks without end.
     */
    public static byte[] lines(String title, String xLabel, String yLabel, Map<String, double[]> series, boolean logY, int firstX) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Map.Entry<String, double[]> s : series.entrySet()) {
            XYSeries xy = new XYSeries(s.getKey());
            double[] v = s.getValue();
            for (int i = 0; i < v.length; i++) {
                if (Double.isFinite(v[i]) && (!logY || v[i] > 0)) xy.add(firstX + i, v[i]);
            }
            data.addSeries(xy);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(title, xLabel, yLabel, data, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < series.size(); i++) renderer.setSeriesStroke(i, new BasicStroke(2f));
        plot.setRenderer(renderer);
        if (logY) {
            LogarithmicAxis axis = new LogarithmicAxis(yLabel);
            axis.setAllowNegativesFlag(false);
            plot.setRangeAxis(axis);
        }
        style(plot);
        return png(chart);
    }

    /**
     * Vertical bars: for each category (x, e.g. a tensor) one bar per series; NaN and infinite
     * values are left out. Category labels are turned upright when there are many, and the chart widens with them.
     */
    public static byte[] bars(String title, String xLabel, String yLabel, List<String> categories, Map<String, double[]> series) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (Map.Entry<String, double[]> s : series.entrySet()) {
            double[] v = s.getValue();
            for (int i = 0; i < categories.size(); i++) {
                if (Double.isFinite(v[i])) data.addValue(v[i], s.getKey(), categories.get(i));
            }
        }
        JFreeChart chart = ChartFactory.createBarChart(title, xLabel, yLabel, data, PlotOrientation.VERTICAL,
                series.size() > 1, false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(new Color(0xDD, 0xDD, 0xDD));
        if (categories.size() > 12) plot.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_90);
        return png(chart, Math.max(WIDTH, 60 + 14 * categories.size()), HEIGHT + (categories.size() > 12 ? 160 : 0));
    }

    /** Points (x[i], y[i]), e.g. engine logits against reference logits; points with a NaN or infinite coordinate are left out. */
    public static byte[] scatter(String title, String xLabel, String yLabel, double[] x, double[] y) {
        XYSeries xy = new XYSeries("points", false, true);
        for (int i = 0; i < x.length; i++) {
            if (Double.isFinite(x[i]) && Double.isFinite(y[i])) xy.add(x[i], y[i]);
        }
        JFreeChart chart = ChartFactory.createScatterPlot(title, xLabel, yLabel, new XYSeriesCollection(xy),
                PlotOrientation.VERTICAL, false, false, false);
        style(chart.getXYPlot());
        return png(chart);
    }

    /**
     * A heat map of values[row][col] with named rows (y) and columns (x); colour is log10 of the
     * value, so errors spanning many decades stay readable. Missing cells are NaN; NaN and
     * infinite cells are drawn as missing.
     */
    public static byte[] heatmap(String title, List<String> rows, List<String> cols, double[][] values) {
        DefaultXYZDataset data = new DefaultXYZDataset();
        int n = rows.size() * cols.size();
        double[][] xyz = new double[3][n];
        double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
        int k = 0;
        for (int r = 0; r < rows.size(); r++) {
            for (int c = 0; c < cols.size(); c++, k++) {
                double v = values[r][c];
                double z = v > 0 && v < Double.POSITIVE_INFINITY ? Math.log10(v) : Double.NaN;
                xyz[0][k] = c;
                xyz[1][k] = r;
                xyz[2][k] = z;
                if (!Double.isNaN(z)) {
                    lo = Math.min(lo, z);
                    hi = Math.max(hi, z);
                }
            }
        }
        data.addSeries("values", xyz);
        if (lo > hi) {
            lo = -1;
            hi = 0;
        } else if (lo == hi) {
            hi = lo + 1;
        }
        Log10Scale scale = new Log10Scale(lo, hi);
        XYBlockRenderer renderer = new XYBlockRenderer();
        renderer.setPaintScale(scale);
        XYPlot plot = new XYPlot(data, new SymbolAxis("", cols.toArray(String[]::new)),
                new SymbolAxis("", rows.toArray(String[]::new)), renderer);
        JFreeChart chart = new JFreeChart(title, plot);
        chart.removeLegend();
        NumberAxis legendAxis = new NumberAxis("log10");
        legendAxis.setRange(lo, hi);
        PaintScaleLegend legend = new PaintScaleLegend(scale, legendAxis);
        legend.setPosition(RectangleEdge.RIGHT);
        chart.addSubtitle(legend);
        style(plot);
        return png(chart, WIDTH, Math.max(HEIGHT, 40 + 14 * rows.size()));
    }

    private static void style(XYPlot plot) {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(new Color(0xDD, 0xDD, 0xDD));
        plot.setRangeGridlinePaint(new Color(0xDD, 0xDD, 0xDD));
    }

    private static byte[] png(JFreeChart chart) {
        return png(chart, WIDTH, HEIGHT);
    }

    private static byte[] png(JFreeChart chart, int width, int height) {
        BufferedImage image = chart.createBufferedImage(width, height);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ImageIO.write(image, "png", out);
        } catch (IOException e) {
            throw new UncheckedIOException("writing a PNG to memory", e);
        }
        return out.toByteArray();
    }

    /** Blue (low) to red (high) over [lo, hi]; NaN cells are light grey. */
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
            if (Double.isNaN(value)) return new Color(0xEE, 0xEE, 0xEE);
            float t = (float) Math.max(0, Math.min(1, (value - lo) / (hi - lo)));
            return Color.getHSBColor(0.66f * (1 - t), 0.75f, 0.95f);
        }
    }
}
