package dev.needlewb.reports.report;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;

/** A built chart and the pixel size it is drawn at; tests read its axes, pages inline its PNG. */
public record Chart(JFreeChart chart, int width, int height) {

    public byte[] png() {
        BufferedImage image = chart.createBufferedImage(width, height);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ImageIO.write(image, "png", out);
        } catch (IOException e) {
            throw new UncheckedIOException("writing a PNG to memory", e);
        }
        return out.toByteArray();
    }
}
