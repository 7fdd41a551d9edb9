package dev.needlewb.reference.v3;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.converter.flax.v3.V3ConfigGeometry;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.reference.CachedDecoder;
import dev.needlewb.reference.ForwardOptions;
import dev.needlewb.reference.NpyExport;
import dev.needlewb.reference.ReferenceForward;
import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * {@link V3Model} behind the commands' {@link ReferenceForward}. The shared options map onto
 * upstream Needle 3's: {@code quant}; {@code kvBits} as its {@code configure_deploy(kv_bits)} (8 or
 * more: A8 per head on K and V, Needle 3's deploy default; 2 to 4: CQ in groups of 64; 0: K and V
 * left alone); the window and sinks of {@code hidden_cells}; the padding mask; taps and the
 * quantizer watch. The int8 KV emulation, packing segments and an explicit KV codebook are Needle 2
 * options and are refused.
 */
public final class V3Reference implements ReferenceForward {
    private final V3Model model;

    public V3Reference(V3Model model) {
        this.model = model;
    }

    @Override
    public V3ConfigGeometry geometry() {
        return new V3ConfigGeometry(model.config());
    }

    /** None: upstream Needle 3's forward applies its own sliding window and global layers, nothing on top. */
    @Override
    public int headerWindow() {
        return 0;
    }

    @Override
    public void check(ForwardOptions o) throws WorkbenchException {
        if (o.int8Kv()) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--int8-kv emulates Needle 2's int8 KV cache; Needle 3's quant mode rounds K and V per head (--kv-bits 8)");
        if (o.segmentIds() != null) throw new WorkbenchException(ErrorKind.BAD_OPTION, "packed segments are a Needle 2 reference option");
    }

    @Override
    public double[][] forward(int[] tokens, ForwardOptions options) {
        return model.forward(tokens, options(options));
    }

    @Override
    public double[][][] hiddenStates(int[] tokens, ForwardOptions options) {
        return model.hiddenStates(tokens, options(options));
    }

    @Override
    public double[][][] hiddenCells(int[] tokens, ForwardOptions options) {
        return model.hiddenCells(tokens, options(options));
    }

    @Override
    public CachedDecoder decoder(int capacity, ForwardOptions options) {
        return model.decoder(capacity, options(options));
    }

    /** False: upstream's Needle 3 loader drops the {@code mtp_*} subtrees, and so does the checkpoint reader. */
    @Override
    public boolean hasMtp() {
        return false;
    }

    /** The probe heads the weights have, in the manifest's order: {@code embedding}, {@code confidence}, {@code router}. */
    @Override
    public SequencedMap<String, NpyArray> extraOutputs(int[] tokens, ForwardOptions options, boolean heads, boolean mtp)
            throws WorkbenchException {
        SequencedMap<String, NpyArray> out = new LinkedHashMap<>();
        if (!heads) return out;
        V3Options o = options(options);
        if (model.hasHead(V3ProbeHead.EMBEDDING)) out.put("embedding", NpyExport.vector(model.embedding(tokens, o)));
        if (model.hasHead(V3ProbeHead.CONFIDENCE)) out.put("confidence", NpyExport.scalar(model.confidence(tokens, o)));
        if (model.hasHead(V3ProbeHead.ROUTER)) out.put("router", NpyExport.vector(model.router(tokens, o)));
        return out;
    }

    private static V3Options options(ForwardOptions o) {
        int kvBits = o.kvBits() >= ForwardOptions.KV_BITS_OFF ? 8 : o.kvBits();
        return V3Options.DEFAULT.withQuant(o.quant()).withKvBits(kvBits).withWindow(o.window(), o.sinks())
                .withPaddingMask(o.maskPadding()).withTaps(o.taps()).withWatch(o.watch());
    }
}
