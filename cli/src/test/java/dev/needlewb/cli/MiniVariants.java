package dev.needlewb.cli;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactTensor;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.golden.Golden;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.UnaryOperator;

/** Copies of the golden mini .cact with one deliberate change, for the parity command's fault and bad-input tests. */
final class MiniVariants {
    private MiniVariants() {}

    static Path mini() {
        return Golden.mini("mini.cact");
    }

    static String s040() {
        StringJoiner ids = new StringJoiner(",");
        Golden.json(Golden.mini("sequences.json")).at("/s040/tokens").forEach(t -> ids.add(t.asText()));
        return ids.toString();
    }

    /** BOS then ids 3, 4, ... : {@code n} tokens inside the mini vocabulary. */
    static String tokens(int n) {
        StringJoiner ids = new StringJoiner(",");
        ids.add("2");
        for (int i = 1; i < n; i++) ids.add(Integer.toString(3 + i % 500));
        return ids.toString();
    }

    /** Mini with the bytes of one tensor's blob changed by {@code edit}. */
    static Path withTensor(Path target, String tensor, UnaryOperator<byte[]> edit) throws WorkbenchException {
        return rewrite(target, (geometry, tensors) -> {
            List<CactTensor> out = new ArrayList<>();
            for (CactTensor t : tensors) {
                if (!t.name().equals(tensor)) {
                    out.add(t);
                    continue;
                }
                byte[] bytes = edit.apply(t.data().toArray(ValueLayout.JAVA_BYTE));
                out.add(CactTensor.of(t.name(), t.dtype(), t.shape(), t.group(), t.bits(), bytes));
            }
            return new Edit(geometry, out);
        });
    }

    /** Mini with another header geometry (the tensors stay; only usable where the run stops before reading them). */
    static Path withGeometry(Path target, UnaryOperator<Geometry> change) throws WorkbenchException {
        return rewrite(target, (geometry, tensors) -> new Edit(change.apply(geometry), tensors));
    }

    /** The mini geometry with a different kv_window. */
    static Geometry kvWindow(Geometry g, int window) {
        return new Geometry(g.vocab(), g.dModel(), g.numHeads(), g.numKvHeads(), g.numLayers(), g.headDim(), g.maxSeqLen(),
                g.hadaN(), g.mhcLanes(), g.engramSlots(), g.engramSubDim(), g.numEngramTables(), g.engramConvTaps(),
                g.engramConvDilation(), g.engramOrders(), g.engramSites(), g.ropeTheta(), window, g.kvBits());
    }

    /** The mini geometry with another max_seq_len: the same shapes, another context. */
    static Geometry maxSeqLen(Geometry g, int positions) {
        return new Geometry(g.vocab(), g.dModel(), g.numHeads(), g.numKvHeads(), g.numLayers(), g.headDim(), positions,
                g.hadaN(), g.mhcLanes(), g.engramSlots(), g.engramSubDim(), g.numEngramTables(), g.engramConvTaps(),
                g.engramConvDilation(), g.engramOrders(), g.engramSites(), g.ropeTheta(), g.kvWindow(), g.kvBits());
    }

    /** The mini geometry with a different rope theta: the same shapes, another architecture. */
    static Geometry ropeTheta(Geometry g, float theta) {
        return new Geometry(g.vocab(), g.dModel(), g.numHeads(), g.numKvHeads(), g.numLayers(), g.headDim(), g.maxSeqLen(),
                g.hadaN(), g.mhcLanes(), g.engramSlots(), g.engramSubDim(), g.numEngramTables(), g.engramConvTaps(),
                g.engramConvDilation(), g.engramOrders(), g.engramSites(), theta, g.kvWindow(), g.kvBits());
    }

    private record Edit(Geometry geometry, List<CactTensor> tensors) {}

    private interface Change {
        Edit apply(Geometry geometry, List<CactTensor> tensors);
    }

    private static Path rewrite(Path target, Change change) throws WorkbenchException {
        try (CactFile cact = CactFile.open(mini())) {
            CactModel model = CactModel.from(cact);
            Edit edit = change.apply(Geometry.of(model.geometry()), model.tensors());
            CactWriter.write(new CactModel(edit.geometry(), model.codebook(), edit.tensors()), target);
        }
        return target;
    }
}
