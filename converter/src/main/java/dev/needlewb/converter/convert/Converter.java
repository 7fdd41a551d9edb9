package dev.needlewb.converter.convert;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.CactGenerations;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.cact.TensorBytes;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.export.CactExporter;
import dev.needlewb.converter.export.CactRebuilder;
import dev.needlewb.converter.flax.ConfigGeometry;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.flax.FlaxCheckpointWriter;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.converter.flax.KvBudget;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.io.FileOutput;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.converter.names.Storage;
import dev.needlewb.converter.names.Transform;
import dev.needlewb.converter.v2.V2Names;
import dev.needlewb.core.tokenizer.SentencePieceModel;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SequencedMap;
import java.util.TreeMap;

/**
 * Converts between Flax checkpoints, {@code .cact} files and state dicts (.safetensors, .pt)
 * through {@link ModelWeights} and the {@link NameMap}. Everything is read and checked before
 * anything is written; the output appears atomically and never replaces an input.
 */
public final class Converter {
    /** Progress: tensors done out of total. */
    @FunctionalInterface
    public interface Listener {
        void progress(long done, long total);
    }

    /** One output tensor of a plan: canonical name, the name it is written under, transform, quantization, bytes. */
    public record PlanRow(String name, String writtenAs, Transform transform, String quantization, long bytes) {}

    /** What a conversion will write; {@code outputBytes} is exact for .cact, the tensor data otherwise. */
    public record Plan(Format from, Format to, List<PlanRow> rows, long outputBytes) {}

    /** What a conversion wrote. */
    public record Result(Format from, Format to, List<TensorConversion> tensors) {}

    private Converter() {}

    /** Reads and checks every input and lists what {@link #run} would write; writes nothing. */
    public static Plan plan(ConvertRequest request) throws WorkbenchException {
        try (Loaded s = load(request)) {
            return s.plan();
        }
    }

    /** Reads, checks and converts, writing the output atomically. */
    public static Result run(ConvertRequest request, Listener listener) throws WorkbenchException {
        try (Loaded s = load(request)) {
            return s.run(listener, FileOutput.ATOMIC);
        }
    }

    /** Reads and checks every input of {@code request} (a bad input fails here, before anything is written). */
    public static Loaded load(ConvertRequest request) throws WorkbenchException {
        return Loaded.open(request);
    }

    /** The loaded inputs of one conversion; owns the .cact files it read. */
    public static final class Loaded implements AutoCloseable {
        private final ConvertRequest request;
        private final Format from;
        private final Format to;
        private final List<CactFile> open = new ArrayList<>();
        private ModelWeights weights;
        private FlaxCheckpoint meta;
        private CactFile base;

        private Loaded(ConvertRequest request, Format from, Format to) {
            this.request = request;
            this.from = from;
            this.to = to;
        }

        static Loaded open(ConvertRequest r) throws WorkbenchException {
            Format from = Format.of(r.input());
            Format to = Format.of(r.output());
            checkOptions(r, from, to);
            refuseOverwrite(r);
            Loaded s = new Loaded(r, from, to);
            try {
                s.load();
            } catch (WorkbenchException | RuntimeException e) {
                s.close();
                throw e;
            }
            return s;
        }

        private static void checkOptions(ConvertRequest r, Format from, Format to) throws WorkbenchException {
            if (from == Format.CACT && to == Format.CACT && r.config() == null) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, ".cact -> .cact converts nothing; edit through a state dict and write back with --base"
                        + " (a legacy 0x05E12A82 file is upgraded with --config C)");
            }
            if (from == Format.CACT && to == Format.CACT && (r.base() != null || r.bitsMap() != null || r.group() != null)) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "upgrading a legacy .cact keeps every blob: --base, --bits-map and --group do not apply");
            }
            if (r.lora() != null && from != Format.FLAX) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--lora merges into a checkpoint input (.pkl), not a " + from.label());
            if (r.base() != null && to != Format.CACT) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--base applies to a .cact output only");
            if (r.base() != null && r.bitsMap() != null) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--bits-map does not apply with --base: the base fixes each tensor's width");
            if (r.bitsMap() != null && to != Format.CACT) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--bits-map applies to a .cact output only");
            if (r.group() != null && (to != Format.CACT || r.base() != null)) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "--group applies to a fresh .cact output only (with --base the base fixes each tensor's group)");
            }
            if (r.group() != null && r.group() != CactFormat.GROUPS[0] && r.group() != CactFormat.GROUPS[1]) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "--group must be " + CactFormat.GROUPS[0] + " or " + CactFormat.GROUPS[1] + ", not " + r.group());
            }
            if (r.dtype() != null && !r.dtype().equals("f32") && !r.dtype().equals("f16")) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "--dtype must be f32 or f16, not " + r.dtype());
            }
            if (r.dtype() != null && to == Format.CACT) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--dtype applies to state-dict and checkpoint outputs, not a .cact");
            if (to == Format.FLAX && from != Format.FLAX && r.config() == null) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "writing a checkpoint from a " + from.label() + " needs --config CKPT.pkl (config, step, run)");
            }
            if (from.isStateDict() && r.base() == null && r.config() == null) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "reading a state dict needs --base FILE.cact or --config CKPT.pkl for the model geometry");
            }
            if (to == Format.CACT && r.base() == null && from != Format.CACT && r.tokenizer() == null) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "a .cact needs a tokenizer: pass --tokenizer tok.model or FILE.cact (or --base FILE.cact)");
            }
        }

        private static void refuseOverwrite(ConvertRequest r) throws WorkbenchException {
            for (Path in : r.inputs()) {
                try {
                    if (Files.exists(r.output()) && Files.exists(in) && Files.isSameFile(r.output(), in)) {
                        throw new WorkbenchException(ErrorKind.OUTPUT_CONFLICT, r.output() + ": refusing to overwrite the input file " + in);
                    }
                } catch (IOException e) {
                    throw new WorkbenchException(ErrorKind.IO, r.output() + ": cannot compare with input " + in + ": " + e.getMessage(), e);
                }
            }
        }

        private void load() throws WorkbenchException {
            NonFinitePolicy nonFinite = request.nonFinite();
            if (from == Format.CACT && to == Format.CACT) {
                loadLegacyUpgrade(nonFinite);
                return;
            }
            if (request.base() != null) base = openCact(request.base(), nonFinite);
            if (request.config() != null) meta = CheckpointGenerations.config(request.config(), request.allowExtraParams(), nonFinite);
            switch (from) {
                case FLAX -> {
                    CheckpointGenerations.Read read = CheckpointGenerations.read(request.input(), request.lora(), request.allowExtraParams(), nonFinite);
                    if (meta == null) meta = read.checkpoint();
                    weights = read.weights();
                }
                case CACT -> weights = WeightSources.fromCact(openCact(request.input(), nonFinite), "f16".equals(request.dtype()));
                case TORCH, SAFETENSORS -> {
                    StateDict dict = StateDictFiles.read(request.input(), from, nonFinite);
                    NameMap names = base != null ? WeightSources.namesOf(base) : CheckpointGenerations.stateDictNames(meta, dict.tensors().keySet());
                    weights = WeightSources.fromStateDict(dict, names);
                }
            }
            Generation generation = weights.names().geometry().generation();
            if (meta != null && CheckpointGenerations.generation(meta) != generation) {
                throw new WorkbenchException(ErrorKind.WRONG_GENERATION, request.config() + ": --config is a " + CheckpointGenerations.generation(meta)
                        + " checkpoint, the input " + request.input() + " a " + generation + " model");
            }
            if (to == Format.FLAX) CheckpointGenerations.checkCheckpointOutput(weights, meta);
            if (to == Format.CACT && base == null && weights.tokenizer() == null) {
                weights = weights.withTokenizer(tokenizer(request.tokenizer(), weights.names().geometry().generation()));
            }
            if (to == Format.CACT && base == null) bits(); // a bad --bits-map is an input error: refused before anything is written
        }

        private CactFile openCact(Path file, NonFinitePolicy nonFinite) throws WorkbenchException {
            return openCact(file, nonFinite, null);
        }

        private CactFile openCact(Path file, NonFinitePolicy nonFinite, ModelGeometry supplied) throws WorkbenchException {
            CactFile f = CactFile.open(file, nonFinite, supplied);
            open.add(f);
            return f;
        }

        /**
         * A legacy-header file (upstream v2.0.1-2.0.2, no geometry stored) with the geometry of
         * --config, as the base of its own rewrite: unchanged values keep their blobs, so only the
         * header and the offsets change.
         */
        private void loadLegacyUpgrade(NonFinitePolicy nonFinite) throws WorkbenchException {
            base = openCact(request.input(), nonFinite, ConfigGeometry.read(request.config()));
            if (!base.hasLegacyHeader()) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, request.input() + ": the header is already the current one (tag "
                        + Generation.hex(base.generation().generation().tag()) + "); .cact -> .cact upgrades legacy headers only");
            }
            weights = WeightSources.fromCact(base, false);
        }

        /** The blob of a {@code .cact}'s tokenizer, copied; or the one {@code generation}'s exporter writes for a SentencePiece model. */
        private byte[] tokenizer(Path file, Generation generation) throws WorkbenchException {
            if (file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".cact")) {
                // only its tokenizer is read: its weights may hold anything
                MemorySegment blob = openCact(file, NonFinitePolicy.ALLOW).tokenizerBlob();
                if (blob == null) throw new WorkbenchException(ErrorKind.MISSING_KEY, file + ": --tokenizer: this .cact has no tokenizer (exported without one)");
                return blob.toArray(ValueLayout.JAVA_BYTE);
            }
            return SentencePieceModel.read(file).toVocab(generation).toBytes();
        }

        /** The bits map of a fresh .cact: --bits-map, else a Needle 2 checkpoint config's weight_bits, else 4 (upstream's export.main). */
        private BitsMap bits() throws WorkbenchException {
            if (request.bitsMap() != null) return BitsMap.parse(request.bitsMap());
            String configured = meta == null ? null : CheckpointGenerations.weightBits(meta);
            return BitsMap.parse(configured != null ? configured : "4");
        }

        /** The CQ group of a fresh .cact: --group, else upstream's 128. */
        private int group() {
            return request.group() == null ? CactExporter.GROUP : request.group();
        }

        /** What {@link #run} would write. */
        public Plan plan() throws WorkbenchException {
            List<PlanRow> rows = new ArrayList<>();
            long total;
            if (to == Format.CACT) {
                BitsMap bits = base == null ? bits() : null;
                List<NameRow> cactRows = weights.names().cactRows();
                int headerBytes = CactGenerations.of(weights.names().geometry().generation()).header().headerBytes();
                long end = CactFormat.recordOffset(headerBytes, cactRows.size());
                for (int i = 0; i < cactRows.size(); i++) {
                    NameRow row = cactRows.get(i);
                    String q;
                    long bytes;
                    if (base != null) {
                        TensorRecord r = base.tensor(i);
                        q = r.dtype() == CactDType.CQ ? TensorConversion.cq(r.bits(), r.group()) : r.dtype().name().toLowerCase(Locale.ROOT);
                        bytes = r.nbytes();
                    } else {
                        q = quantization(row, weights.names().recordBits(row, bits), group());
                        bytes = row.storage() == Storage.RAW ? weights.tokenizer().length
                                : row.storage() == Storage.CQ ? TensorBytes.of(CactDType.CQ, longs(row.shape()), group(), weights.names().recordBits(row, bits))
                                : (row.storage() == Storage.FP32 ? 4 : 2) * NpyArray.elementCount(row.shape());
                    }
                    rows.add(new PlanRow(row.name(), row.name(), row.transform(), q, bytes));
                    end = CactFormat.align(end) + bytes;
                }
                total = end;
            } else {
                total = 0;
                for (var e : outputTensors().entrySet()) {
                    NameRow row = e.getValue().row();
                    NpyArray a = e.getValue().array();
                    rows.add(new PlanRow(row.name(), e.getKey(), row.transform(), dtypeLabel(a), a.data().length));
                    total += a.data().length;
                }
            }
            return new Plan(from, to, rows, total);
        }

        /** Converts, writing the output through {@code output} (at once, or staged with its manifest). */
        public Result run(Listener listener, FileOutput output) throws WorkbenchException {
            Path[] inputs = request.inputs();
            if (to == Format.CACT) {
                long total = weights.names().cactRows().size();
                CactExporter.Result r = base != null
                        ? CactRebuilder.rebuild(weights, base, n -> listener.progress(n, total))
                        : CactExporter.export(weights, bits(), group(), n -> listener.progress(n, total));
                CactWriter.write(r.model(), request.output(), output, inputs);
                return new Result(from, to, r.tensors());
            }
            SequencedMap<String, Written> out = outputTensors();
            List<TensorConversion> report = new ArrayList<>();
            for (Written w : out.values()) {
                NpyArray source = weights.tensor(w.row());
                double[] diff = source.descr().equals(w.array().descr()) ? new double[2]
                        : TensorConversion.difference(w.array().asFloats(), source.asFloats());
                report.add(new TensorConversion(w.row().name(), w.row().transform(), dtypeLabel(w.array()), 0, 0, false, diff[0], diff[1], -1, -1));
            }
            if (to == Format.FLAX) {
                FlaxCheckpoint converted = WeightTargets.checkpoint(dtyped(), meta);
                Map<String, NpyArray> params = new TreeMap<>(FlaxParamShapes.TREE_ORDER);
                // leaves the weights do not cover (a .cact lacks log_temp and MTP; extra params) come from the
                // --config checkpoint, or from the input checkpoint itself
                if (from != Format.FLAX || request.config() == null) params.putAll(meta.params());
                params.putAll(converted.params());
                FlaxCheckpointWriter.write(converted.withParams(new LinkedHashMap<>(params)), request.output(), output, inputs);
            } else {
                SequencedMap<String, NpyArray> dict = new LinkedHashMap<>();
                out.forEach((k, w) -> dict.put(k, w.array()));
                StateDictFiles.write(dict, request.output(), to, output, inputs);
            }
            listener.progress(out.size(), out.size());
            return new Result(from, to, report);
        }

        /** A tensor as written, keyed by its output name (PyTorch key or Flax path). */
        private record Written(NameRow row, NpyArray array) {}

        /** The tensors of a state-dict or checkpoint output, in the output dtype, by output name. */
        private SequencedMap<String, Written> outputTensors() throws WorkbenchException {
            SequencedMap<String, Written> out = new LinkedHashMap<>();
            ModelWeights w = dtyped();
            if (to == Format.FLAX) {
                // the rows the checkpoint writer writes: no zero-filled bias, no derived permutation
                for (NameRow row : WeightTargets.flaxRows(w)) {
                    out.put(row.flaxPath() + (row.layer() >= 0 ? "[" + row.layer() + "]" : ""), new Written(row, w.tensor(row)));
                }
                return out;
            }
            for (NameRow row : w.names().rows()) {
                NpyArray a = w.tensor(row);
                if (a != null) out.put(row.torchKey(), new Written(row, a));
            }
            return out;
        }

        /** The weights in the requested dtype (kept when none was requested). */
        private ModelWeights dtyped() {
            if (request.dtype() == null) return weights;
            SequencedMap<String, NpyArray> out = new LinkedHashMap<>();
            for (var e : weights.tensors().entrySet()) {
                NpyArray a = e.getValue();
                out.put(e.getKey(), request.dtype().equals("f16") ? (a.descr().equals("<f2") ? a : Floats.half(a.shape(), a.asFloats()))
                        : (a.descr().equals("<f4") ? a : NpyArray.ofFloats(a.shape(), a.asFloats())));
            }
            return new ModelWeights(weights.names(), out, weights.tokenizer());
        }

        private static String quantization(NameRow row, int recordBits, int group) {
            return switch (row.storage()) {
                case CQ -> TensorConversion.cq(recordBits, group);
                case FP16 -> "fp16";
                case FP32 -> "fp32";
                case RAW -> "raw";
                case CHECKPOINT_ONLY -> "-";
            };
        }

        private static String dtypeLabel(NpyArray a) {
            return a.descr().equals("<f2") ? "f16" : "f32";
        }

        private static long[] longs(int[] shape) {
            long[] out = new long[shape.length];
            for (int i = 0; i < shape.length; i++) out[i] = shape[i];
            return out;
        }

        @Override
        public void close() {
            for (CactFile f : open) f.close();
        }
    }
}
