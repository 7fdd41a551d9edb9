package dev.needlewb.converter.names;

/**
 * One row of the {@link NameMap}: the canonical name (the {@code .cact} name; for a
 * checkpoint-only leaf its PyTorch key), the Flax path and layer ({@code -1} unless the leaf is
 * stacked per layer), the PyTorch key ({@code null} for heads.manifest and the tokenizer), the
 * tensor shape ({@code .cact} = PyTorch), the Flax leaf shape, the transform and the storage.
 */
public record NameRow(String name, String flaxPath, int layer, String torchKey, int[] shape, int[] flaxShape,
        Transform transform, Storage storage) {

    public NameRow {
        shape = shape == null ? null : shape.clone();
        flaxShape = flaxShape == null ? null : flaxShape.clone();
    }

    @Override
    public int[] shape() {
        return shape == null ? null : shape.clone();
    }

    @Override
    public int[] flaxShape() {
        return flaxShape == null ? null : flaxShape.clone();
    }

    /** Whether the row is a tensor of a .cact (everything but checkpoint-only leaves). */
    public boolean inCact() {
        return storage != Storage.CHECKPOINT_ONLY;
    }

    /** Whether the row carries weights a state dict holds (not the manifest or tokenizer). */
    public boolean isWeight() {
        return torchKey != null;
    }
}
