package dev.needlewb.converter.cact;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.FileOutput;
import dev.needlewb.core.generation.ModelGeometry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Writes a {@link CactModel} in the canonical layout upstream produces: its generation's header,
 * codebook, 44-byte records {@code <BBHIIIIQQII}, each blob at the next 64-byte boundary with
 * zero padding, the file ending at the last blob. The model must follow its generation's
 * {@link CactLayout} (names, dtypes, shapes) and each blob must have the size its record implies.
 */
public final class CactWriter {
    private CactWriter() {}

    /** Writes atomically to {@code target}, refusing to overwrite any of {@code inputs}. */
    public static void write(CactModel model, Path target, Path... inputs) throws WorkbenchException {
        write(model, target, FileOutput.ATOMIC, inputs);
    }

    /** Writes {@code target} through {@code output} (at once, or staged in a set), refusing to overwrite any of {@code inputs}. */
    public static void write(CactModel model, Path target, FileOutput output, Path... inputs) throws WorkbenchException {
        long[] offsets = plan(model);
        output.write(target, ch -> writeTo(model, offsets, ch), inputs);
    }

    /** The file bytes. */
    public static byte[] toBytes(CactModel model) throws WorkbenchException {
        long[] offsets = plan(model);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            writeTo(model, offsets, Channels.newChannel(out));
        } catch (IOException e) {
            throw new IllegalStateException("in-memory write failed", e);
        }
        return out.toByteArray();
    }

    /** Streams the file to {@code out}. */
    public static void write(CactModel model, WritableByteChannel out) throws WorkbenchException, IOException {
        writeTo(model, plan(model), out);
    }

    /** Checks the model against its generation's rules and layout and returns each blob's offset. */
    private static long[] plan(CactModel model) throws WorkbenchException {
        ModelGeometry g = model.geometry();
        CactGeneration generation = CactGenerations.of(g.generation());
        String problem = generation.header().problem(g);
        if (problem != null) throw new WorkbenchException(ErrorKind.BAD_GEOMETRY, "cannot write .cact: geometry: " + problem);
        List<CactTensor> ts = model.tensors();
        CactLayout layout = generation.layout(model);
        long[] offsets = new long[ts.size()];
        long end = CactFormat.recordOffset(generation.header().headerBytes(), ts.size());
        int group = 0;
        for (int i = 0; i < ts.size(); i++) {
            CactTensor t = ts.get(i);
            CactLayout.Slot slot = layout.slot(i);
            String where = "cannot write .cact: tensor " + i + " (" + t.name() + "): ";
            if (!slot.name().equals(t.name())) throw new WorkbenchException(ErrorKind.UNKNOWN_KEY, where + "expected " + slot.name() + " at this position");
            if (!slot.dtypes().contains(t.dtype())) throw new WorkbenchException(ErrorKind.UNSUPPORTED_DTYPE, where + "dtype " + t.dtype() + " not allowed");
            if (slot.shape() != null && !Arrays.equals(slot.shape(), t.shape())) {
                throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, where + "shape " + Arrays.toString(t.shape()) + ", expected " + Arrays.toString(slot.shape()));
            }
            if (t.dtype() == CactDType.CQ) {
                if (group != 0 && t.group() != group) throw new WorkbenchException(ErrorKind.BAD_HEADER_FIELD, where + "group " + t.group() + " differs from " + group);
                group = t.group();
            }
            long implied;
            try {
                implied = TensorBytes.of(t.dtype(), t.shape(), t.group(), t.bits());
            } catch (ArithmeticException | IllegalArgumentException e) {
                throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, where + "shape " + Arrays.toString(t.shape()) + " has no valid size");
            }
            if (implied >= 0 && implied != t.data().byteSize()) {
                throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, where + "blob has " + t.data().byteSize() + " bytes, needs " + implied);
            }
            offsets[i] = CactFormat.align(end);
            end = offsets[i] + t.data().byteSize();
        }
        return offsets;
    }

    private static void writeTo(CactModel model, long[] offsets, WritableByteChannel out) throws IOException {
        List<CactTensor> ts = model.tensors();
        HeaderCodec codec = CactGenerations.of(model.geometry().generation()).header();
        ByteBuffer head = ByteBuffer.allocate((int) CactFormat.recordOffset(codec.headerBytes(), ts.size()))
                .order(ByteOrder.LITTLE_ENDIAN);
        codec.write(head, model.geometry(), ts.size());
        for (float f : model.codebook()) head.putFloat(f);
        for (int i = 0; i < ts.size(); i++) {
            CactTensor t = ts.get(i);
            long[] shape = t.shape();
            head.put((byte) t.dtype().code()).put((byte) shape.length).putShort((short) 0);
            for (int d = 0; d < 4; d++) head.putInt(d < shape.length ? (int) shape[d] : 0);
            head.putLong(offsets[i]).putLong(t.data().byteSize());
            boolean cq = t.dtype() == CactDType.CQ;
            head.putInt(cq ? t.group() : 0).putInt(cq ? t.bits() : 0);
        }
        writeFully(out, head.flip());
        long pos = head.limit();
        ByteBuffer zeros = ByteBuffer.allocate(CactFormat.ALIGN);
        for (int i = 0; i < ts.size(); i++) {
            writeFully(out, zeros.clear().limit((int) (offsets[i] - pos)));
            writeFully(out, ts.get(i).data().asByteBuffer());
            pos = offsets[i] + ts.get(i).data().byteSize();
        }
    }

    private static void writeFully(WritableByteChannel out, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) out.write(b);
    }
}
