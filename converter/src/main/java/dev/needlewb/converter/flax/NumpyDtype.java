package dev.needlewb.converter.flax;

import net.razorvine.pickle.PickleException;

/**
 * A numpy dtype as a pickle describes it: {@code dtype('f4', False, True)} followed by a BUILD
 * whose state carries the byte order character. Only plain numeric and bool dtypes are accepted.
 */
final class NumpyDtype {
    private final String code;
    private char byteOrder = '|';
    private boolean built;

    NumpyDtype(String code) {
        if (!isSupported(code)) throw new PickleException("unsupported numpy dtype '" + code + "'");
        this.code = code;
    }

    private static boolean isSupported(String code) {
        return switch (code) {
            case "f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1" -> true;
            default -> false;
        };
    }

    /** numpy's dtype state: {@code (3, '<', None, None, None, -1, -1, 0)} (version 4 appends metadata). */
    void build(Object state) {
        if (!(state instanceof Object[] s) || s.length < 8 || s.length > 9) {
            throw new PickleException("dtype state is not numpy's 8- or 9-tuple");
        }
        if (!(s[1] instanceof String order) || order.length() != 1 || "<>|".indexOf(order.charAt(0)) < 0) {
            throw new PickleException("dtype byte order " + s[1] + " is not one of '<', '>', '|'");
        }
        if (s[2] != null || s[3] != null || s[4] != null) {
            throw new PickleException("structured or sub-array dtypes are not supported");
        }
        byteOrder = order.charAt(0);
        built = true;
    }

    int itemSize() {
        return code.charAt(1) - '0';
    }

    boolean bigEndian() {
        return byteOrder == '>' && itemSize() > 1;
    }

    /** The little-endian npy descriptor of this dtype, e.g. {@code <f4}, {@code |b1}. */
    String littleEndianDescr() {
        if (!built && itemSize() > 1) throw new PickleException("dtype " + code + " used before its byte order was set");
        return (itemSize() == 1 ? "|" : "<") + code;
    }

    char kind() {
        return code.charAt(0);
    }
}
