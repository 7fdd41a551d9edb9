/**
 * Needle 3 training checkpoints: the config as upstream's {@code TransformerConfig.from_saved}
 * reads it ({@link dev.needlewb.converter.flax.v3.V3Config}) and the checkpoint pickle read through
 * the same allow-listed unpickler as Needle 2's ({@link dev.needlewb.converter.flax.v3.V3CheckpointReader}).
 */
package dev.needlewb.converter.flax.v3;
