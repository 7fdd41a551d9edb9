package dev.needlewb.reports.study;

import java.io.Serializable;

/**
 * What one round of dequantize then re-quantize changed, against the previous round. Serializable, as
 * {@link IdempotenceResult}.
 *
 * @param round             1 for the first re-quantization
 * @param groupsRecomputed  groups quantized this round (those that changed in the previous one)
 * @param groupsChanged     groups whose codes or norm differ from the previous round
 * @param codesChanged      codes that differ (padding columns included: they are stored codes)
 * @param normsChanged      float16 norms that differ
 * @param maxNormUlps       largest norm change in float16 units in the last place
 * @param normSum           sum of all group norms after this round (the drift of the scale)
 * @param maxAbsWeightChange largest absolute change of a dequantized weight
 * @param rmsWeightChange   root mean square change of the dequantized weights (over rows x cols)
 * @param groupsSettled     groups known after this round to be at a fixed point or on a cycle
 */
public record IdempotenceRound(int round, long groupsRecomputed, long groupsChanged, long codesChanged,
        long normsChanged, int maxNormUlps, double normSum, double maxAbsWeightChange, double rmsWeightChange,
        long groupsSettled) implements Serializable {}
