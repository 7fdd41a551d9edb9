package dev.needlewb.converter.names;

import dev.needlewb.core.generation.ModelGeometry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The three namings of one Needle model side by side: Flax checkpoint paths, canonical
 * {@code .cact} names and PyTorch state-dict keys, with each tensor's shape, layout transform and
 * storage, in {@code .cact} order and followed by the checkpoint-only leaves in Flax tree order.
 * The model's generation expands it from its tensor table (Needle 2: {@code v2.V2Names}); every
 * converter reads and writes through it.
 */
public final class NameMap {
    private final ModelGeometry geometry;
    private final int[] manifestCodes;
    private final List<NameRow> rows;
    private final Map<String, NameRow> byName = new LinkedHashMap<>();
    private final Map<String, NameRow> byTorchKey = new LinkedHashMap<>();
    private final Map<String, Integer> fixedBits;

    /**
     * @param manifestCodes the {@code heads.manifest} codes of the probe heads present, in file order
     * @param rows every row: the .cact order, then checkpoint-only leaves
     */
    public NameMap(ModelGeometry geometry, int[] manifestCodes, List<NameRow> rows) {
        this(geometry, manifestCodes, rows, Map.of());
    }

    /**
     * @param fixedBits the CQ rows whose width the generation fixes whatever the bits map (Needle
     *     3's probe-head matrices: upstream's HEAD_BITS), by canonical name
     */
    public NameMap(ModelGeometry geometry, int[] manifestCodes, List<NameRow> rows, Map<String, Integer> fixedBits) {
        this.fixedBits = Map.copyOf(fixedBits);
        this.geometry = geometry;
        this.manifestCodes = manifestCodes.clone();
        this.rows = List.copyOf(rows);
        for (NameRow r : rows) {
            byName.put(r.name(), r);
            if (r.torchKey() != null) byTorchKey.put(r.torchKey(), r);
        }
    }

    public ModelGeometry geometry() {
        return geometry;
    }

    /** The {@code heads.manifest} codes of the probe heads present, in file order (what the DERIVED row holds). */
    public int[] manifestCodes() {
        return manifestCodes.clone();
    }

    /** Every row: the .cact order, then checkpoint-only leaves. */
    public List<NameRow> rows() {
        return rows;
    }

    /** The rows of a .cact, in its order. */
    public List<NameRow> cactRows() {
        return rows.stream().filter(NameRow::inCact).toList();
    }

    /** The row with this canonical name, or null. */
    public NameRow byName(String name) {
        return byName.get(name);
    }

    /** The record bits a CQ row is written at under {@code bits}: the generation's fixed width, else the map's. */
    public int recordBits(NameRow row, BitsMap bits) {
        Integer fixed = fixedBits.get(row.name());
        return fixed != null ? fixed : bits.recordBitsFor(row.name());
    }

    /** The row with this PyTorch key, or null. */
    public NameRow byTorchKey(String key) {
        return byTorchKey.get(key);
    }
}
