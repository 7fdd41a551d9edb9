package dev.needlewb.converter.v2;

import dev.needlewb.converter.names.Transform;

/**
 * One tensor of a model: a {@link ModelTensor} row for the layer or engram site {@code index}
 * (0 for the other rows) or for probe head {@code head} (null unless the row is per head), with
 * the row's templates filled in.
 */
public record TensorName(ModelTensor tensor, int index, ProbeHead head) {

    /** The canonical {@code .cact} name, e.g. {@code layer07.q_proj}. */
    public String name() {
        return fill(tensor.cactTemplate());
    }

    /** The Flax path ({@code /}-joined; for a per-layer row the whole stack), or null where the checkpoint has no leaf. */
    public String flaxPath() {
        return transform() == Transform.ZERO_FILL ? null : fill(tensor.flaxTemplate());
    }

    /** The layer of a per-layer row (its slice of the Flax stack), else -1. */
    public int layer() {
        return tensor.scope() == ModelTensor.Scope.PER_LAYER ? index : -1;
    }

    /** The PyTorch state-dict key, or null for the manifest and the tokenizer. */
    public String torchKey() {
        return fill(tensor.torchTemplate());
    }

    public Transform transform() {
        return tensor.transformFor(head);
    }

    private String fill(String template) {
        if (template == null) return null;
        return head != null ? template.formatted(head.key()) : template.formatted(index);
    }
}
