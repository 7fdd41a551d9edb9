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
    void pageIsSelfContained() {
        String html = new HtmlPage("t <x>").chart("c", new byte[] {1, 2}).table(List.of("a", "b"), List.of(List.of("1", "2"))).render();
        assertThat(html).contains("t &lt;x&gt;").contains("data:image/png;base64,AQI=").doesNotContain("http");
    }
}
