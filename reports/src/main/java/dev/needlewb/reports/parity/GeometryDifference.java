package dev.needlewb.reports.parity;

import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.v2.Geometry;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The first architectural field in which two models differ: their generation, then (Needle 2, the
 * generation parity's engines run) each header field. kv_window and kv_bits are left out: they
 * are deployment settings written by the exporter, not part of what the forward computes.
 */
public final class GeometryDifference {
    private GeometryDifference() {}

    /** "d_model 512 vs 128", or null when every architectural field agrees. */
    public static String of(ModelGeometry first, ModelGeometry second) {
        if (first.generation() != second.generation()) return "generation " + first.generation() + " vs " + second.generation();
        if (!(first instanceof Geometry)) return common(first, second);
        Geometry a = Geometry.of(first);
        Geometry b = Geometry.of(second);
        Map<String, String[]> fields = new LinkedHashMap<>();
        put(fields, "vocab", a.vocab(), b.vocab());
        put(fields, "d_model", a.dModel(), b.dModel());
        put(fields, "num_heads", a.numHeads(), b.numHeads());
        put(fields, "num_kv_heads", a.numKvHeads(), b.numKvHeads());
        put(fields, "num_layers", a.numLayers(), b.numLayers());
        put(fields, "head_dim", a.headDim(), b.headDim());
        put(fields, "max_seq_len", a.maxSeqLen(), b.maxSeqLen());
        put(fields, "hada_n", a.hadaN(), b.hadaN());
        put(fields, "mhc_lanes", a.mhcLanes(), b.mhcLanes());
        put(fields, "engram_slots", a.engramSlots(), b.engramSlots());
        put(fields, "engram_sub_dim", a.engramSubDim(), b.engramSubDim());
        put(fields, "num_engram_tables", a.numEngramTables(), b.numEngramTables());
        put(fields, "engram_conv_taps", a.engramConvTaps(), b.engramConvTaps());
        put(fields, "engram_conv_dilation", a.engramConvDilation(), b.engramConvDilation());
        fields.put("engram_orders", new String[] {Arrays.toString(a.engramOrders()), Arrays.toString(b.engramOrders())});
        fields.put("engram_sites", new String[] {Arrays.toString(a.engramSites()), Arrays.toString(b.engramSites())});
        fields.put("rope_theta", new String[] {Float.toString(a.ropeTheta()), Float.toString(b.ropeTheta())});
        return firstDifference(fields);
    }

    /**
     * The fields every generation's geometry has (a Needle 3 header and checkpoint config describe the rest in
     * different terms; the reference built from either checks its tensors' shapes against them).
     */
    private static String common(ModelGeometry a, ModelGeometry b) {
        Map<String, String[]> fields = new LinkedHashMap<>();
        put(fields, "vocab", a.vocab(), b.vocab());
        put(fields, "out_vocab", a.outVocab(), b.outVocab());
        put(fields, "d_model", a.dModel(), b.dModel());
        put(fields, "num_layers", a.numLayers(), b.numLayers());
        put(fields, "max_seq_len", a.maxSeqLen(), b.maxSeqLen());
        return firstDifference(fields);
    }

    private static String firstDifference(Map<String, String[]> fields) {
        for (Map.Entry<String, String[]> f : fields.entrySet()) {
            if (!f.getValue()[0].equals(f.getValue()[1])) return f.getKey() + " " + f.getValue()[0] + " vs " + f.getValue()[1];
        }
        return null;
    }

    private static void put(Map<String, String[]> fields, String name, int a, int b) {
        fields.put(name, new String[] {Integer.toString(a), Integer.toString(b)});
    }
}
