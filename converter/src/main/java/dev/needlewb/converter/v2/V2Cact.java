package dev.needlewb.converter.v2;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.cact.CactBytes;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.CactGeneration;
import dev.needlewb.converter.cact.CactLayout;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.HeaderCodec;
import dev.needlewb.converter.names.NameMap;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Needle 2's {@code .cact} support: the {@code <29If} header, the {@link ModelTensor} table, its notes. */
public final class V2Cact implements CactGeneration {
    public static final V2Cact INSTANCE = new V2Cact();

    private V2Cact() {}

    @Override
    public Generation generation() {
        return Generation.NEEDLE2;
    }

    @Override
    public HeaderCodec header() {
        return V2Header.INSTANCE;
    }

    /** The 0x05E12A83 header, or the legacy 0x05E12A82 one over the geometry the user supplied. */
    @Override
    public HeaderCodec header(int tag, Path file, ModelGeometry supplied) throws FormatException {
        if (!Generation.NEEDLE2.isLegacyTag(tag)) return V2Header.INSTANCE;
        if (supplied == null) {
            throw new FormatException(ErrorKind.BAD_TAG, file, CactFormat.OFF_TAG, "tag " + Generation.hex(tag) + " marks Needle 2's legacy header"
                    + " (upstream v2.0.1-2.0.2), which stores no geometry: give the model's config with --config (a checkpoint"
                    + " .pkl or a JSON config); convert FILE --to NEW.cact --config C upgrades it to " + Generation.hex(Generation.NEEDLE2.tag()));
        }
        if (supplied.generation() != Generation.NEEDLE2) {
            throw new FormatException(ErrorKind.WRONG_GENERATION, file, CactFormat.OFF_TAG, "tag " + Generation.hex(tag) + " marks a Needle 2 file, but the config given"
                    + " is " + supplied.generation() + "'s");
        }
        return new V2LegacyHeader(Geometry.of(supplied));
    }

    @Override
    public CactLayout layout(ModelGeometry g, long numTensors, CactBytes bytes) throws FormatException {
        return V2Layout.read(Geometry.of(g), numTensors, bytes);
    }

    /** The heads are those whose probes tensor the model holds; the tokenizer is there when the count says so. */
    @Override
    public CactLayout layout(CactModel model) throws WorkbenchException {
        Geometry g = Geometry.of(model.geometry());
        int count = model.tensors().size();
        V2Layout.Extras extras = V2Layout.extras(g, count);
        if (extras == null) throw new WorkbenchException(ErrorKind.MODEL_MISMATCH, "cannot write .cact: " + count + " tensors fit no layout of " + g);
        List<ProbeHead> heads = new ArrayList<>();
        for (ProbeHead h : ProbeHead.values()) {
            if (model.tensor(ModelTensor.HEAD_PROBES.at(h).name()) != null) heads.add(h);
        }
        CactLayout layout = V2Layout.of(g, heads, extras.tokenizer());
        if (layout.size() != count) {
            throw new WorkbenchException(ErrorKind.MODEL_MISMATCH, "cannot write .cact: head tensors do not match " + extras.heads() + " probe heads");
        }
        return layout;
    }

    @Override
    public NameMap names(CactFile file) {
        return V2Names.of(file);
    }

    @Override
    public List<String> notes(CactFile file) {
        return V2Notes.of(file);
    }

    /** Upstream v2's released scheme, embedding=4,mhc=4,default=2. */
    @Override
    public dev.needlewb.converter.names.BitsMap defaultBits() {
        return dev.needlewb.converter.names.BitsMap.released();
    }

    @Override
    public String tokenizerProblem(long pieces, ModelGeometry g) {
        return pieces == g.vocab() ? null
                : "the tokenizer has " + pieces + " pieces, the header's vocab is " + g.vocab() + " (upstream's _pack_cact refuses a mismatch)";
    }

    /** Upstream's _pack_cact refuses a tokenizer whose vocabulary differs from the config's. */
    @Override
    public void checkTokenizer(byte[] blob, ModelGeometry g) throws WorkbenchException {
        if (blob.length < 4) throw new WorkbenchException(ErrorKind.BAD_TOKENIZER, "tokenizer blob has " + blob.length + " bytes");
        long pieces = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN).getInt(0) & 0xFFFFFFFFL;
        if (pieces != g.vocab()) throw new WorkbenchException(ErrorKind.MODEL_MISMATCH, "tokenizer vocab " + pieces + " != model vocab " + g.vocab());
    }
}
