package dev.needlewb.reports.study;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.cq.CqQuantizer;
import dev.needlewb.reports.study.IdempotenceStudy;
import dev.needlewb.converter.cq.InvalidCodeException;
import dev.needlewb.converter.cq.codebook.Codebooks;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.converter.names.Storage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The CQ tensors an idempotence study runs on: every CQ tensor of a {@code .cact} (round 0 = its
 * stored codes and norms), or every quantizable matrix of a Flax checkpoint (round 0 = quantize
 * of its float32 weights in {@code [out, in]} layout at the bits map's width), or just the one
 * named tensor. Studies are opened one at a time, so only one tensor's state is in memory.
 */
public final class StudyTargets implements AutoCloseable {
    /** Upstream's CQ group, the default for a checkpoint. */
    public static final int DEFAULT_GROUP = 128;

    /** One tensor to study: its canonical name, its CQ width and group and how to start its study. */
    public interface Target {
        String name();

        int recordBits();

        int group();

        IdempotenceStudy open() throws WorkbenchException;
    }

    private final String kind;
    private final List<Target> targets;
    private final CactFile cact;

    private StudyTargets(String kind, List<Target> targets, CactFile cact) {
        this.kind = kind;
        this.targets = List.copyOf(targets);
        this.cact = cact;
    }

    /**
     * For a {@code .cact}: whether its header codebook equals, bit for bit, the one computed for
     * its group (the study dequantizes with the computed one); null for a checkpoint.
     */
    public Boolean headerCodebookMatches() {
        if (cact == null) return null;
        int group = cact.cqGroup() == 0 ? DEFAULT_GROUP : cact.cqGroup();
        return Arrays.equals(cact.codebook(), Codebooks.headerCodebook(group));
    }

    /** {@code "cact"} or {@code "checkpoint"}. */
    public String kind() {
        return kind;
    }

    public List<Target> targets() {
        return targets;
    }

    /**
     * Opens {@code file} (a {@code .cact} by its tag, else a Flax checkpoint pickle).
     *
     * @param tensors  only these canonical names, in this order; empty for all
     * @param bitsSpec checkpoint only: a width or bits map ({@code embedding=4,default=2}); null for the checkpoint's own
     * @param group    checkpoint only: the CQ group (64 or 128); null for {@value #DEFAULT_GROUP}
     */
    public static StudyTargets open(Path file, List<String> tensors, String bitsSpec, Integer group, NonFinitePolicy nonFinite)
            throws WorkbenchException, IOException {
        StudyTargets all = isCact(file) ? cact(file, bitsSpec, group, nonFinite) : checkpoint(file, bitsSpec, group, nonFinite);
        if (tensors.isEmpty()) return all;
        List<Target> chosen = new ArrayList<>();
        for (String name : tensors) {
            Target found = all.targets.stream().filter(t -> t.name().equals(name)).findFirst().orElse(null);
            if (found == null) {
                all.close();
                throw new WorkbenchException(ErrorKind.UNKNOWN_KEY, file + ": no quantizable tensor named " + name + " (" + all.targets.size()
                        + " CQ tensors, e.g. " + (all.targets.isEmpty() ? "none" : all.targets.getFirst().name()) + ")");
            }
            if (!chosen.contains(found)) chosen.add(found);
        }
        return new StudyTargets(all.kind, List.copyOf(chosen), all.cact);
    }

    /** Whether the file starts with a .cact tag of any generation (one the reader does not support is refused there, by name). */
    private static boolean isCact(Path file) throws IOException {
        byte[] head = new byte[4];
        try (InputStream in = Files.newInputStream(file)) {
            if (in.readNBytes(head, 0, 4) < 4) return false;
        }
        return Generation.ofTag(ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN).getInt()).isPresent();
    }

    private static StudyTargets cact(Path file, String bitsSpec, Integer group, NonFinitePolicy nonFinite) throws WorkbenchException {
        if (bitsSpec != null || group != null) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, file + ": --bits and --group apply to checkpoints; a .cact is studied from its stored codes");
        }
        CactFile cact = CactFile.open(file, nonFinite);
        List<Target> targets = new ArrayList<>();
        for (TensorRecord r : cact.tensors()) {
            if (r.dtype() != CactDType.CQ) continue;
            targets.add(new CactTarget(cact, r));
        }
        return new StudyTargets("cact", targets, cact);
    }

    private record CactTarget(CactFile cact, TensorRecord record) implements Target {
        @Override
        public String name() {
            return record.name();
        }

        @Override
        public int recordBits() {
            return record.bits();
        }

        @Override
        public int group() {
            return record.group();
        }

        @Override
        public IdempotenceStudy open() throws WorkbenchException {
            try {
                return IdempotenceStudy.fromBlob(record.name(), cact.cqBlob(record.index()));
            } catch (InvalidCodeException e) {
                throw new FormatException(ErrorKind.BAD_CODE, cact.path(), record.index(), record.name(), record.offset() + e.byteOffset(), e.getMessage());
            }
        }
    }

    private static StudyTargets checkpoint(Path file, String bitsSpec, Integer group, NonFinitePolicy nonFinite) throws WorkbenchException {
        int g = group == null ? DEFAULT_GROUP : group;
        if (g != 64 && g != 128) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--group " + g + ": the study supports groups 64 and 128");
        FlaxCheckpoint ckpt = FlaxCheckpointReader.read(file, false, nonFinite);
        String spec = bitsSpec != null ? bitsSpec : ckpt.flaxConfig().weightBits();
        BitsMap bits = spec == null || spec.isBlank() ? BitsMap.released() : BitsMap.parse(spec);
        ModelWeights weights = WeightSources.fromCheckpoint(ckpt);
        List<Target> targets = new ArrayList<>();
        for (NameRow row : weights.names().cactRows()) {
            if (row.storage() != Storage.CQ) continue;
            targets.add(new WeightTarget(weights, row, bits.recordBitsFor(row.name()), g));
        }
        return new StudyTargets("checkpoint", targets, null);
    }

    private record WeightTarget(ModelWeights weights, NameRow row, int recordBits, int group) implements Target {
        @Override
        public String name() {
            return row.name();
        }

        @Override
        public IdempotenceStudy open() throws WorkbenchException {
            int[] shape = row.shape();
            return IdempotenceStudy.fromWeights(row.name(), CqQuantizer.of(recordBits, group),
                    weights.tensor(row).asFloats(), shape[0], shape[1]);
        }
    }

    @Override
    public void close() {
        if (cact != null) cact.close();
    }
}
