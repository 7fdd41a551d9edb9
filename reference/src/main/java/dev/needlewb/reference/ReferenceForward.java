package dev.needlewb.reference;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.io.NpyArray;
import java.util.SequencedMap;

/**
 * What any generation's float64 reference offers the commands: upstream's full-sequence forward,
 * {@code hidden_states}, {@code hidden_cells}, a cached decoder and the extra outputs of its heads.
 * A generation reads the {@link ForwardOptions} fields its upstream has and refuses the others.
 * {@link ReferenceGenerations} picks the implementation (Needle 2: {@link ReferenceModel}).
 */
public interface ReferenceForward {
    ModelGeometry geometry();

    /**
     * The attention window a deployment applies on top of the model's own masks when none is
     * asked for, from the header (Needle 2: kv_window when it binds; 0 for none).
     */
    int headerWindow();

    /** Refuses, in one line, options this generation's upstream does not have (nothing by default). */
    default void check(ForwardOptions options) throws WorkbenchException {}

    /** LM logits [T][out_vocab] under {@code options}. */
    double[][] forward(int[] tokens, ForwardOptions options);

    /** Upstream {@code hidden_states}: the mean over lanes after each layer, [layers][T][d]. */
    double[][][] hiddenStates(int[] tokens, ForwardOptions options);

    /** Upstream {@code hidden_cells}: per position the embedding and each layer's lane mean, [T][L+1][d]. */
    double[][][] hiddenCells(int[] tokens, ForwardOptions options);

    /** A cached decoder of at most {@code capacity} positions. */
    CachedDecoder decoder(int capacity, ForwardOptions options);

    /** Whether the weights carry an MTP branch (training checkpoints of generations that have one). */
    boolean hasMtp();

    /**
     * The outputs beside the logits, by the name they are saved under, in the generation's order:
     * the probe heads the weights have (with {@code heads}) and the MTP logits (with {@code mtp};
     * check {@link #hasMtp} first).
     */
    SequencedMap<String, NpyArray> extraOutputs(int[] tokens, ForwardOptions options, boolean heads, boolean mtp)
            throws WorkbenchException;
}
