package dev.needlewb.converter.torch;

import static dev.needlewb.converter.pickle.PickleOp.*;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.FileOutput;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.pickle.AllowListUnpickler;
import dev.needlewb.converter.pickle.PickleEmitter;
import dev.needlewb.converter.pickle.PickleScanner;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PyTorch state dicts as {@code .pt} files: torch's zip format ({@code archive/data.pkl},
 * {@code archive/data/N}, {@code archive/version}, {@code archive/byteorder},
 * {@code archive/.data/version}) that {@code torch.load(path, weights_only=True)} accepts.
 *
 * <p>Writing: one contiguous storage per tensor, a protocol-2 pickle of an {@code OrderedDict} of
 * {@code _rebuild_tensor_v2} calls (the opcodes torch 1.13's weights-only unpickler knows), STORED
 * entries with 64-byte aligned data, written atomically. Dtypes: float16/32/64, int8/16/32/64,
 * uint8 and bool (torch has no uint16/32/64 storages).
 *
 * <p>Reading: what torch.save writes for a dict of tensors (1.x and 2.x), including
 * {@code _metadata}, parameters, shared storages and strided or offset views, each view copied
 * into its own C-order array after its extent is checked against the storage. bfloat16 tensors
 * are widened to float32 (exact). Errors name the file, the zip entry or tensor key, and an
 * offset where one applies.
 */
public final class TorchStateDict {
    /** The archive's top-level folder, as torch 2.x names it. */
    static final String ROOT = "archive";
    /** Torch's serialization format version in {@code version} and {@code .data/version}. */
    private static final String FORMAT_VERSION = "3\n";
    private static final int SETITEMS_BATCH = 1000;

    private static final PickleScanner.Rules RULES = new PickleScanner.Rules(TorchUnpickler.ALLOWED_GLOBALS,
            "collections.OrderedDict, torch._utils._rebuild_tensor_v2/_rebuild_parameter and torch's typed storage classes", true);

    private TorchStateDict() {}

    /**
     * Writes {@code tensors} (in map order) as a state dict.
     *
     * @param inputs files the tensors were read from; writing over one of them is refused
     */
    public static void write(Map<String, NpyArray> tensors, Path target, Path... inputs) throws WorkbenchException {
        write(tensors, target, FileOutput.ATOMIC, inputs);
    }

    /** {@link #write(Map, Path, Path...)} through {@code output} (at once, or staged in a set). */
    public static void write(Map<String, NpyArray> tensors, Path target, FileOutput output, Path... inputs) throws WorkbenchException {
        List<TorchStorageType> types = new ArrayList<>();
        for (var e : tensors.entrySet()) {
            String descr = e.getValue().descr();
            types.add(TorchStorageType.forWriting(descr).orElseThrow(() -> new WorkbenchException(ErrorKind.UNSUPPORTED_DTYPE, 
                    target + ": tensor " + e.getKey() + " has dtype " + descr + ", which torch has no storage for")));
        }
        byte[] pickle = pickle(tensors, types);
        output.write(target, channel -> {
            OutputStream stream = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
            TorchZipWriter zip = new TorchZipWriter(stream);
            zip.add(ROOT + "/data.pkl", pickle);
            zip.add(ROOT + "/byteorder", "little".getBytes(StandardCharsets.US_ASCII));
            int key = 0;
            for (NpyArray a : tensors.values()) zip.add(ROOT + "/data/" + key++, a.data());
            zip.add(ROOT + "/version", FORMAT_VERSION.getBytes(StandardCharsets.US_ASCII));
            zip.add(ROOT + "/.data/version", FORMAT_VERSION.getBytes(StandardCharsets.US_ASCII));
            zip.finish();
            stream.flush();
        }, inputs);
    }

    private static byte[] pickle(Map<String, NpyArray> tensors, List<TorchStorageType> types) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PickleEmitter p = new PickleEmitter(bytes, 2);
        try {
            p.proto();
            orderedDict(p);
            int key = 0;
            for (var e : tensors.entrySet()) {
                if (key % SETITEMS_BATCH == 0) p.op(MARK);
                p.writeString(e.getKey());
                tensor(p, e.getValue(), types.get(key), Integer.toString(key));
                key++;
                if (key % SETITEMS_BATCH == 0 || key == tensors.size()) p.op(SETITEMS);
            }
            p.op(STOP);
        } catch (IOException e) {
            throw new AssertionError("a byte array stream does not fail", e);
        }
        return bytes.toByteArray();
    }

    private static void orderedDict(PickleEmitter p) throws IOException {
        p.global("collections", "OrderedDict");
        p.op(EMPTY_TUPLE);
        p.op(REDUCE);
        p.memoize();
    }

    /** {@code _rebuild_tensor_v2(persistent storage, 0, size, C strides, False, OrderedDict())}. */
    private static void tensor(PickleEmitter p, NpyArray a, TorchStorageType type, String key) throws IOException {
        p.global("torch._utils", "_rebuild_tensor_v2");
        p.op(MARK);
        p.op(MARK);
        p.writeString("storage");
        p.global("torch", type.className);
        p.writeString(key);
        p.writeString("cpu");
        p.writeLong(a.size());
        p.op(TUPLE);
        p.op(BINPERSID);
        p.writeLong(0);
        int[] shape = a.shape();
        long[] stride = new long[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            stride[i] = s;
            s *= shape[i];
        }
        tuple(p, java.util.Arrays.stream(shape).asLongStream().toArray());
        tuple(p, stride);
        p.op(NEWFALSE);
        orderedDict(p);
        p.op(TUPLE);
        p.op(REDUCE);
    }

    private static void tuple(PickleEmitter p, long[] values) throws IOException {
        if (values.length == 0) {
            p.op(EMPTY_TUPLE);
            return;
        }
        if (values.length > 3) p.op(MARK);
        for (long v : values) p.writeLong(v);
        p.op(values.length > 3 ? TUPLE : TUPLE1 + values.length - 1);
    }

    /** Reads a state dict: tensor name to C-order array, in the pickle's order. */
    public static Map<String, NpyArray> read(Path file) throws WorkbenchException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return read(file, channel);
        } catch (IOException e) {
            throw WorkbenchException.cannotRead(file, e);
        }
    }

    /** Reads a state dict from {@code channel}; {@code file} names it in errors. */
    static Map<String, NpyArray> read(Path file, SeekableByteChannel channel) throws IOException, FormatException {
        TorchZipReader zip = TorchZipReader.open(file, channel);
        var byteorder = zip.entry("byteorder");
        if (byteorder.isPresent()) {
            String order = new String(zip.readEntry(byteorder.get()), StandardCharsets.US_ASCII).strip();
            if (!order.equals("little")) throw zip.fail(ErrorKind.UNSUPPORTED, byteorder.get().localOffset(), "byteorder is '" + order + "', only little-endian is supported");
        }
        var pkl = zip.entry("data.pkl").orElseThrow(() -> zip.fail(ErrorKind.BAD_ARCHIVE, FormatException.NO_OFFSET, "no " + zip.root() + "/data.pkl entry (not a torch zip state dict)"));
        Path pklName = Path.of(file + ":" + pkl.name());
        byte[] pickle = zip.readEntry(pkl);
        PickleScanner.scan(pklName, pickle, RULES);
        Object root;
        try {
            root = TorchUnpickler.load(pickle);
        } catch (AllowListUnpickler.Failure f) {
            throw new FormatException(ErrorKind.BAD_PICKLE, pklName, f.offset, f.getMessage());
        }
        if (!(root instanceof Map<?, ?> dict)) throw new FormatException(ErrorKind.BAD_PICKLE, pklName, FormatException.NO_OFFSET, "top-level object is not a dict of tensors");
        List<String> names = new ArrayList<>();
        List<TorchUnpickler.TensorRef> refs = new ArrayList<>();
        Map<String, TorchStorageType> storageTypes = new HashMap<>();
        Map<String, Integer> usesLeft = new HashMap<>();
        for (var e : dict.entrySet()) {
            int index = names.size();
            if (!(e.getKey() instanceof String name)) throw new FormatException(ErrorKind.BAD_PICKLE, pklName, FormatException.NO_OFFSET, "key " + e.getKey() + " is not a string");
            if (!(e.getValue() instanceof TorchUnpickler.TensorRef t)) {
                throw new FormatException(ErrorKind.BAD_PICKLE, file, index, name, FormatException.NO_OFFSET, "value is not a tensor");
            }
            TorchStorageType known = storageTypes.putIfAbsent(t.storageKey(), t.type());
            if (known != null && known != t.type()) {
                throw new FormatException(ErrorKind.BAD_PICKLE, file, index, name, FormatException.NO_OFFSET,
                        "storage " + t.storageKey() + " is used as both " + known.className + " and " + t.type().className);
            }
            usesLeft.merge(t.storageKey(), 1, Integer::sum);
            names.add(name);
            refs.add(t);
        }
        // each storage is read once, kept while later tensors view it, and handed over to its last view
        Map<String, byte[]> storages = new HashMap<>();
        Map<String, NpyArray> out = new LinkedHashMap<>();
        for (int index = 0; index < refs.size(); index++) {
            String name = names.get(index);
            TorchUnpickler.TensorRef t = refs.get(index);
            byte[] storage = storages.get(t.storageKey());
            if (storage == null) {
                var entry = zip.entry("data/" + t.storageKey()).orElseThrow(() -> new FormatException(ErrorKind.BAD_ARCHIVE, file, FormatException.NO_OFFSET,
                        "tensor " + name + " needs storage entry " + zip.root() + "/data/" + t.storageKey() + ", which is missing"));
                checkStorageSize(file, index, name, t, entry.name(), entry.size());
                storage = zip.readEntry(entry);
                storages.put(t.storageKey(), storage);
            }
            checkStorageSize(file, index, name, t, zip.root() + "/data/" + t.storageKey(), storage.length);
            boolean lastUse = usesLeft.merge(t.storageKey(), -1, Integer::sum) == 0;
            if (lastUse) storages.remove(t.storageKey());
            out.put(name, TensorView.materialize(file, index, name, t, storage, lastUse));
        }
        return out;
    }

    /** Every tensor's storage declaration must match the entry: views are checked against the declared numel. */
    private static void checkStorageSize(Path file, int index, String name, TorchUnpickler.TensorRef t, String entry, long bytes)
            throws FormatException {
        if (t.storageNumel() > bytes || bytes != t.storageNumel() * t.type().itemSize) {
            throw new FormatException(ErrorKind.SHAPE_MISMATCH, file, index, name, FormatException.NO_OFFSET, "storage entry " + entry + " holds " + bytes
                    + " bytes, but a " + t.type().className + " of " + t.storageNumel() + " elements needs "
                    + (t.storageNumel() > bytes ? "more" : Long.toString(t.storageNumel() * t.type().itemSize)));
        }
    }
}
