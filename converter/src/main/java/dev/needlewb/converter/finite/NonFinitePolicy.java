package dev.needlewb.converter.finite;

/**
 * Whether a reader hands on weights that hold NaN or infinity. No model upstream trains has them
 * (upstream's exporter would write them silently, and the engine then emits token 0 forever), so
 * every command that computes with weights or writes them refuses them; {@link #ALLOW} is the
 * explicit {@code --allow-nonfinite} of a user who wants to look at a broken file anyway.
 */
public enum NonFinitePolicy {
    REFUSE,
    ALLOW;

    public static NonFinitePolicy allowIf(boolean allow) {
        return allow ? ALLOW : REFUSE;
    }

    /** The sentence a refusal ends with. */
    public static final String OVERRIDE_HINT = "--allow-nonfinite reads it anyway";
}
