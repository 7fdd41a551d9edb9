package dev.needlewb.reports.report;

import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.text.AttributedCharacterIterator;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.LogTick;
import org.jfree.chart.axis.TickType;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.axis.ValueTick;
import org.jfree.chart.ui.RectangleEdge;

/** The labels a chart's value axis draws, as text, for tests. */
public final class AxisLabels {
    private AxisLabels() {}

    /** The labels of the major ticks the axis draws on the left of an 800 x 400 pixel plot, bottom to top. */
    public static List<String> major(ValueAxis axis) {
        Graphics2D g = new BufferedImage(10, 10, BufferedImage.TYPE_INT_RGB).createGraphics();
        List<String> labels = new ArrayList<>();
        for (Object o : axis.refreshTicks(g, new AxisState(), new Rectangle2D.Double(0, 0, 800, 400), RectangleEdge.LEFT)) {
            ValueTick t = (ValueTick) o;
            if (t.getTickType() != TickType.MAJOR) continue;
            if (t instanceof LogTick lt) {
                StringBuilder s = new StringBuilder();
                AttributedCharacterIterator it = lt.getAttributedLabel().getIterator();
                for (char ch = it.first(); ch != AttributedCharacterIterator.DONE; ch = it.next()) s.append(ch);
                labels.add(s.toString());
            } else {
                labels.add(t.getText());
            }
        }
        return labels;
    }
}
