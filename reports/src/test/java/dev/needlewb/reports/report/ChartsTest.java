package dev.needlewb.reports.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import javax.imageio.ImageIO;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.xy.XYBlockRenderer;
import org.jfree.chart.title.PaintScaleLegend;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.title.Title;
import org.jfree.data.category.CategoryDataset;
import org.junit.jupiter.api.Test;

/** What the charts' axes, ticks and notes say, read from JFreeChart's own objects after drawing. */
class ChartsTest {

    /** Draws the chart once (so axes pick ranges and tick units) and returns the image. */
    private static BufferedImage draw(Chart c) throws Exception {
        BufferedImage img = ImageIO.read(new ByteArrayInputStream(c.png()));
        assertThat(img.getWidth()).isEqualTo(c.width());
        assertThat(img.getHeight()).isEqualTo(c.height());
        return img;
    }

    /** Pixels with a clear hue (sampled every second row and column): drawn data, not axes or grid. */
    private static int colouredPixels(BufferedImage img) {
        int n = 0;
        for (int y = 0; y < img.getHeight(); y += 2) {
            for (int x = 0; x < img.getWidth(); x += 2) {
                int rgb = img.getRGB(x, y) & 0xFFFFFF;
                int r = rgb >> 16, g = (rgb >> 8) & 0xFF, b = rgb & 0xFF;
                if (Math.max(r, Math.max(g, b)) - Math.min(r, Math.min(g, b)) > 60) n++;
            }
        }
        return n;
    }

    private static List<String> subtitles(Chart c) {
        List<String> texts = new ArrayList<>();
        for (Object t : c.chart().getSubtitles()) if (t instanceof TextTitle tt) texts.add(tt.getText());
        return texts;
    }

    @Test
    void logAxisSpansWholeDecadesLabelledAsPowersOfTen() throws Exception {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("exact vs reference", new double[] {1.7e-7, 2.4e-7, 6.2e-7});
        series.put("hpre", new double[] {1.6e-8, 1.9e-8, 2.0e-8});
        Chart c = Charts.lines("error", "layer", "relative L2", List.of("0", "1", "2"), series, Charts.Scale.LOG);
        draw(c);
        LogAxis y = (LogAxis) c.chart().getCategoryPlot().getRangeAxis();
        assertThat(y.getLowerBound()).isCloseTo(1e-8, org.assertj.core.data.Percentage.withPercentage(1e-6));
        assertThat(y.getUpperBound()).isCloseTo(1e-6, org.assertj.core.data.Percentage.withPercentage(1e-6));
        assertThat(AxisLabels.major(y)).containsExactly("1e-8", "1e-7", "1e-6");
        assertThat(subtitles(c)).isEmpty();
    }

    @Test
    void aSingleValueGetsADecadeNotADegenerateAxis() throws Exception {
        Chart c = Charts.lines("codes", "round", "codes changed", List.of("1", "2", "3"),
                Map.of("cq4", new double[] {174623, 0, 0}), Charts.Scale.LOG);
        draw(c);
        LogAxis y = (LogAxis) c.chart().getCategoryPlot().getRangeAxis();
        assertThat(AxisLabels.major(y)).containsExactly("1e5", "1e6");
        assertThat(subtitles(c)).containsExactly("2 values of 0 or below not drawn (log axis)");
    }

    @Test
    void valuesBetweenAThousandthAndTenThousandArePlainDecimals() throws Exception {
        Chart c = Charts.lines("t", "x", "y", List.of("a", "b"), Map.of("s", new double[] {0.002, 300}), Charts.Scale.LOG);
        draw(c);
        assertThat(AxisLabels.major(c.chart().getCategoryPlot().getRangeAxis())).containsExactly("0.001", "0.01", "0.1", "1", "10", "100", "1000");
    }

    @Test
    void manyDecadesShowAboutTenLabelsAtWholeSteps() throws Exception {
        Chart c = Charts.lines("t", "x", "y", List.of("a", "b"), Map.of("s", new double[] {3e-30, 2e-2}), Charts.Scale.LOG);
        draw(c);
        List<String> labels = AxisLabels.major(c.chart().getCategoryPlot().getRangeAxis());
        // 3e-30 .. 2e-2 spans 29 decades: a label every 3, from 1e-30 up to the step after 1e-2
        assertThat(labels).containsExactly("1e-30", "1e-27", "1e-24", "1e-21", "1e-18", "1e-15", "1e-12", "1e-9", "1e-6", "1e-3", "1e0");
    }

    @Test
    void pointsAreCategoriesAndGapsBreakTheLine() throws Exception {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("engram_alpha", new double[] {Double.NaN, Double.NaN, 2.3e-7, Double.NaN});
        series.put("u", new double[] {1e-7, 2e-7, 3e-7, 4e-7});
        Chart c = Charts.lines("t", "layer", "rel", List.of("0", "1", "2", "3"), series, Charts.Scale.LOG);
        draw(c);
        CategoryDataset data = c.chart().getCategoryPlot().getDataset();
        assertThat(data.getColumnKeys()).containsExactly("0", "1", "2", "3");
        assertThat(data.getValue("engram_alpha", "1")).isNull();
        assertThat(data.getValue("engram_alpha", "2")).isEqualTo(2.3e-7);
        assertThat(subtitles(c)).as("NaN is a gap, not a hidden value").isEmpty();
    }

    @Test
    void countsOnALinearAxisGetWholeNumberTicks() throws Exception {
        Chart c = Charts.lines("t", "round", "codes", List.of("1", "2", "3"), Map.of("cq2", new double[] {0, 1, 3}), Charts.Scale.LINEAR);
        draw(c);
        NumberAxis y = (NumberAxis) c.chart().getCategoryPlot().getRangeAxis();
        assertThat(AxisLabels.major(y)).isNotEmpty().allMatch(s -> s.matches("\\d+"));
    }

    @Test
    void barsLeaveOutNaNLabelTheirValuesAndWidenWithManyCategories() throws Exception {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("fixed point", new double[] {0, Double.NaN, 3});
        series.put("arguments", new double[] {Double.NaN, Double.NaN, Double.NaN});
        Chart few = Charts.bars("rounds", "tensor", "round", List.of("a", "b (none in 6)", "c"), series);
        draw(few);
        CategoryPlot plot = few.chart().getCategoryPlot();
        assertThat(plot.getDataset().getRowKeys()).as("a series without values draws no (zero) bar").containsExactly("fixed point");
        assertThat(plot.getDataset().getColumnKeys()).as("a category without a bar keeps its label").containsExactly("a", "b (none in 6)", "c");
        assertThat(plot.getDataset().getValue("fixed point", "a")).isEqualTo(0.0);
        assertThat(plot.getDataset().getValue("fixed point", "b (none in 6)")).isNull();
        assertThat(((BarRenderer) plot.getRenderer()).getDefaultItemLabelsVisible()).isTrue();
        assertThat(((BarRenderer) plot.getRenderer()).getDefaultItemLabelGenerator().generateLabel(plot.getDataset(), 0, 2)).isEqualTo("3");
        assertThat(AxisLabels.major(plot.getRangeAxis())).allMatch(s -> s.matches("\\d+"));
        assertThat(few.width()).isEqualTo(Charts.WIDTH);

        List<String> many = IntStream.range(0, 100).mapToObj(i -> "t" + i).toList();
        double[] ones = new double[100];
        java.util.Arrays.fill(ones, 1);
        Chart wide = Charts.bars("rounds", "tensor", "rounds", many, Map.of("repeat", ones));
        assertThat(draw(wide).getWidth()).isGreaterThan(Charts.WIDTH);
    }

    /**
     * What a model with non-finite weights makes of its error curves: infinite and NaN points. Every
     * chart kind draws the finite ones and leaves the rest out, promptly (an infinite bound once
     * made the log axis lay out ticks for minutes and gigabytes).
     */
    @Test
    @org.junit.jupiter.api.Timeout(30)
    void nonFiniteValuesAreLeftOut() throws Exception {
        double inf = Double.POSITIVE_INFINITY;
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("max abs", new double[] {1e-7, 5e-6, inf, Double.NaN, -inf}); // one drawable segment, then what is not
        List<String> layers = List.of("L0", "L1", "L2", "L3", "L4");
        for (Charts.Scale scale : Charts.Scale.values()) {
            assertThat(colouredPixels(draw(Charts.lines("error growth", "layer", "error", layers, series, scale)))).isGreaterThan(50);
        }
        assertThat(colouredPixels(draw(Charts.bars("b", "t", "v", List.of("a", "b", "c", "d", "e"), series)))).isGreaterThan(50);
        assertThat(colouredPixels(draw(Charts.scatter("s", "x", "y", new double[] {1, inf, 2, Double.NaN, 3},
                new double[] {1, 2, -inf, 4, 3})))).isGreaterThan(10);
        double[][] v = {{1e-6, inf, Double.NaN}, {1e-4, -inf, 1e-2}};
        assertThat(colouredPixels(draw(Charts.heatmap("taps", "relative L2", List.of("a", "b"), List.of("L0", "L1", "L2"), v)))).isGreaterThan(500);
    }

    @Test
    void heatmapTellsZeroFromMissingAndKeysDecades() throws Exception {
        double[][] v = {{1.5e-6, 0, Double.NaN}, {1e-4, 2e-3, 3e-2}};
        Chart c = Charts.heatmap("taps", "relative L2", List.of("a", "b"), List.of("L0", "L1", "L2"), v);
        BufferedImage img = draw(c);
        XYPlot plot = (XYPlot) c.chart().getPlot();
        XYBlockRenderer r = (XYBlockRenderer) plot.getRenderer();
        assertThat(r.getPaintScale().getPaint(Double.NEGATIVE_INFINITY)).isEqualTo(java.awt.Color.WHITE);
        assertThat(r.getPaintScale().getPaint(Double.NaN)).isNotEqualTo(java.awt.Color.WHITE);
        assertThat(((org.jfree.data.xy.XYZDataset) plot.getDataset()).getZValue(0, 1)).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(((org.jfree.data.xy.XYZDataset) plot.getDataset()).getZValue(0, 2)).isNaN();
        assertThat(subtitles(c)).containsExactly("white: 0; grey: no value");
        PaintScaleLegend legend = null;
        for (Title t : c.chart().getSubtitles()) if (t instanceof PaintScaleLegend p) legend = p;
        assertThat(legend).isNotNull();
        assertThat(legend.getAxis().getLabel()).isEqualTo("relative L2");
        assertThat(AxisLabels.major(legend.getAxis())).containsExactly("1e-6", "1e-5", "1e-4", "1e-3", "1e-2", "1e-1");
        assertThat(img.getRGB(img.getWidth() / 2, img.getHeight() / 2)).isNotZero();
    }

    @Test
    void decadeFormatWritesPowersOfTenPlainOrAsExponents() {
        var sci = new Charts.DecadeFormat(false, false);
        assertThat(sci.format(1e-7)).isEqualTo("1e-7");
        assertThat(sci.format(1e5)).isEqualTo("1e5");
        assertThat(sci.format(2.5e-7)).isEqualTo("2.50e-07");
        var plain = new Charts.DecadeFormat(true, false);
        assertThat(plain.format(0.001)).isEqualTo("0.001");
        assertThat(plain.format(10000)).isEqualTo("10000");
        assertThat(new Charts.DecadeFormat(false, true).format(-7)).isEqualTo("1e-7");
    }

    @Test
    void pageIsSelfContainedWithOneH1() {
        Chart c = Charts.bars("b", "x", "y", List.of("a"), Map.of("s", new double[] {1}));
        HtmlPage page = new HtmlPage("t <x>").heading(2, "part");
        String html = page.chart("c", c).table(List.of("a", "b"), List.of(List.of("1", "2"))).render();
        assertThat(html).contains("t &lt;x&gt;").contains("data:image/png;base64,iVBOR").doesNotContain("http");
        assertThat(html.split("<h1>", -1)).hasSize(2);
        assertThatThrownBy(() -> page.heading(1, "again")).isInstanceOf(IllegalArgumentException.class);
    }
}
