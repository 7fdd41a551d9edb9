package dev.needlewb.converter.flax;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.util.List;
import java.util.Map;

/**
 * Typed reads of a checkpoint's {@code config} dict, with the values as {@link SafePickle} returns
 * them (Python ints as Long, bools as Boolean, floats as Double, tuples as List). A missing key
 * gives the fallback; a value of the wrong type is refused naming the key.
 */
public final class ConfigFields {
    private ConfigFields() {}

    /** An int field; a Python bool counts as 0 or 1, as Python treats it. */
    public static int integer(Map<String, Object> c, String key, int fallback) throws WorkbenchException {
        Object v = c.get(key);
        if (v == null) return fallback;
        if (v instanceof Long l && l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) return (int) (long) l;
        if (v instanceof Boolean b) return b ? 1 : 0;
        throw bad(key + " is " + v + ", not an int");
    }

    public static double number(Map<String, Object> c, String key, double fallback) throws WorkbenchException {
        Object v = c.get(key);
        if (v == null) return fallback;
        if (v instanceof Double d) return d;
        if (v instanceof Long l) return l;
        throw bad(key + " is " + v + ", not a number");
    }

    public static int[] integers(Map<String, Object> c, String key, int[] fallback) throws WorkbenchException {
        Object v = c.get(key);
        if (v == null) return fallback.clone();
        if (!(v instanceof List<?> list)) throw bad(key + " is " + v + ", not a tuple of ints");
        int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            if (!(list.get(i) instanceof Long l) || l < Integer.MIN_VALUE || l > Integer.MAX_VALUE) throw bad(key + " holds " + list.get(i) + ", not an int");
            out[i] = (int) (long) l;
        }
        return out;
    }

    public static String string(Map<String, Object> c, String key, String fallback) throws WorkbenchException {
        Object v = c.get(key);
        if (v == null) return fallback;
        if (v instanceof String s) return s;
        throw bad(key + " is " + v + ", not a string");
    }

    /** Refuses a size that is not positive, naming the field. */
    public static void positive(String name, long v) throws WorkbenchException {
        if (v <= 0) throw bad(name + " " + v + " is not positive");
    }

    /**
     * Refuses a product of two non-negative sizes past 2^31 - 1 (the workbench's limit, as for a
     * .cact header: the widths the sizes multiply into are ints; a checkpoint, at most 2 GiB,
     * holds no parameter near that large).
     */
    public static void fitsInt(String what, long a, long b) throws WorkbenchException {
        long product = Math.multiplyExact(a, b);
        if (product > Integer.MAX_VALUE) throw bad(what + " = " + product + " exceeds 2^31-1");
    }

    /** The error for a config value the model cannot use: {@code checkpoint config: <problem>}. */
    public static WorkbenchException bad(String problem) {
        return bad(ErrorKind.BAD_CONFIG, problem);
    }

    /** {@link #bad(String)} of another kind than a bad value (a config of the other generation). */
    public static WorkbenchException bad(ErrorKind kind, String problem) {
        return new WorkbenchException(kind, "checkpoint config: " + problem);
    }
}
