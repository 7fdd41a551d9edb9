package dev.needlewb.reports.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

class ChartsTest {
    private static BufferedImage decode(byte[] png) throws Exception {
        return ImageIO.read(new ByteArrayInputStream(png));
    }

    /** Count pixels that are neither white nor grid grey: a chart with data draws many of them. */
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

    @Test
    void lineChartDrawsItsSeries() throws Exception {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("max abs", new double[] {1e-7, 3e-7, 2e-6, 5e-6});
        series.put("rms", new double[] {1e-8, 4e-8, 1e-7, 9e-7});
        BufferedImage img = decode(Charts.lines("error growth", "layer", "error", series, true));
        assertThat(img.getWidth()).isEqualTo(Charts.WIDTH);
        assertThat(colouredPixels(img)).isGreaterThan(50);
    }

    @Test
    void heatmapColoursEveryCell() throws Exception {
        double[][] v = {{1e-6, 1e-5, Double.NaN}, {1e-4, 1e-3, 1e-2}};
        BufferedImage img = decode(Charts.heatmap("taps", List.of("a", "b"), List.of("L0", "L1", "L2"), v));
        assertThat(colouredPixels(img)).isGreaterThan(1000);
    }

    @Test
    void barChartDrawsBarsAndWidensWithManyCategories() throws Exception {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("repeat", new double[] {1, Double.NaN, 3});
        series.put("none", new double[] {Double.NaN, 20, Double.NaN});
        BufferedImage few = decode(Charts.bars("rounds", "tensor", "rounds", List.of("a", "b", "c"), series));
        assertThat(few.getWidth()).isEqualTo(Charts.WIDTH);
        assertThat(colouredPixels(few)).isGreaterThan(200);
        List<String> many = java.util.stream.IntStream.range(0, 100).mapToObj(i -> "t" + i).toList();
        double[] ones = new double[100];
        java.util.Arrays.fill(ones, 1);
        BufferedImage wide = decode(Charts.bars("rounds", "tensor", "rounds", many, Map.of("repeat", ones)));
        assertThat(wide.getWidth()).isGreaterThan(Charts.WIDTH);
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
        series.put("max abs", new double[] {1e-7, inf, Double.NaN, 5e-6, -inf});
        for (boolean log : new boolean[] {true, false}) {
            assertThat(colouredPixels(decode(Charts.lines("error growth", "layer", "error", series, log)))).isGreaterThan(50);
        }
        assertThat(colouredPixels(decode(Charts.bars("b", "t", "v", List.of("a", "b", "c", "d", "e"), series)))).isGreaterThan(50);
        assertThat(colouredPixels(decode(Charts.scatter("s", "x", "y", new double[] {1, inf, 2, Double.NaN, 3},
                new double[] {1, 2, -inf, 4, 3})))).isGreaterThan(10);
        double[][] v = {{1e-6, inf, Double.NaN}, {1e-4, -inf, 1e-2}};
        assertThat(colouredPixels(decode(Charts.heatmap("taps", List.of("a", "b"), List.of("L0", "L1", "L2"), v)))).isGreaterThan(500);
    }

    @Test
    void pageIsSelfContained() {
        String html = new HtmlPage("t <x>").chart("c", new byte[] {1, 2}).table(List.of("a", "b"), List.of(List.of("1", "2"))).render();
        assertThat(html).contains("t &lt;x&gt;").contains("data:image/png;base64,AQI=").doesNotContain("http");
    }
}
