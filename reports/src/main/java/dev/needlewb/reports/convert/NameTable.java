package dev.needlewb.reports.convert;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.converter.convert.TensorConversion;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.reports.report.Markdown;
import dev.needlewb.reports.report.Report;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The name map as a table (Markdown or JSON), optionally with the per-layer rows once (layer N). */
public final class NameTable {
    private final NameMap names;
    private final BitsMap bits;
    private final boolean compact;

    public NameTable(NameMap names, BitsMap bits, boolean compact) {
        this.names = names;
        this.bits = bits;
        this.compact = compact;
    }

    private List<NameRow> shown() {
        return names.rows().stream().filter(r -> !compact || r.layer() <= 0).toList();
    }

    private String name(String s, NameRow r) {
        if (s == null) return "-";
        if (!compact || r.layer() != 0) return s;
        return s.replace("layer00.", "layerNN.").replace("layers.0.", "layers.N.");
    }

    private String flax(NameRow r) {
        if (r.flaxPath() == null) return "-";
        return r.layer() < 0 ? r.flaxPath() : r.flaxPath() + "[" + (compact ? "N" : r.layer()) + "]";
    }

    private String storage(NameRow r) {
        return switch (r.storage()) {
            case CQ -> TensorConversion.cq(names.recordBits(r, bits), 128);
            case FP16 -> "fp16";
            case FP32 -> "fp32";
            case RAW -> "raw";
            case CHECKPOINT_ONLY -> "not in .cact";
        };
    }

    public String markdown() {
        List<List<String>> rows = new ArrayList<>();
        for (NameRow r : shown()) {
            rows.add(List.of(name(r.name(), r), flax(r), name(r.torchKey(), r), shape(r.shape()), shape(r.flaxShape()),
                    r.transform().name(), storage(r)));
        }
        Markdown md = new Markdown().heading(1, "Name map")
                .paragraph("Geometry " + names.geometry() + "; CQ widths under bits map `" + bits.spec() + "`"
                        + (compact ? "; per-layer rows once, N = 0.." + (names.geometry().numLayers() - 1) : "") + ".")
                .table(List.of("canonical (.cact)", "Flax path", "PyTorch key", "shape", "Flax shape", "transform", "storage"), rows);
        return md.toString();
    }

    public String json() {
        ObjectNode root = Report.JSON.createObjectNode();
        root.put("schema_version", Report.SCHEMA_VERSION);
        root.put("kind", "names");
        root.put("bits_map", bits.spec());
        ArrayNode list = root.putArray("rows");
        for (NameRow r : shown()) {
            ObjectNode n = list.addObject();
            n.put("name", name(r.name(), r));
            n.put("flax_path", r.flaxPath());
            if (r.layer() >= 0) n.put("layer", compact ? "N" : Integer.toString(r.layer()));
            n.put("torch_key", r.torchKey() == null ? null : name(r.torchKey(), r));
            putShape(n.putArray("shape"), r.shape());
            if (r.flaxShape() != null) putShape(n.putArray("flax_shape"), r.flaxShape());
            n.put("transform", r.transform().name());
            n.put("transform_description", r.transform().description());
            n.put("storage", storage(r));
        }
        try {
            return Report.JSON.writeValueAsString(root) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void putShape(ArrayNode a, int[] shape) {
        for (int d : shape) a.add(d);
    }

    private static String shape(int[] s) {
        return s == null ? "-" : Arrays.toString(s);
    }
}
