package dev.needlewb.engine.grammar;

/**
 * Inside a JSON string: {@code dfa} and {@code count} (code points so far, capped) for the rule;
 * {@code escape} 0 none, 1 after a backslash, 2..5 inside {@code \\uXXXX} with escape-2 hex digits
 * read; {@code rest} UTF-8 continuation bytes still due of a {@code length}-byte character;
 * {@code partial} the bits of the character or escape read so far. Escapes of surrogates are
 * refused (a supplementary character is written as raw UTF-8), raw control bytes too.
 */
record StringFrame(StringRule rule, int dfa, int count, int escape, int rest, int length, int partial, Container parent)
        implements Frame {
    private static final int[] SIMPLE_ESCAPES = {'"', '\\', '/', 'b', 'f', 'n', 'r', 't'};
    private static final int[] ESCAPED_CHARS = {'"', '\\', '/', 8, 12, 10, 13, 9};

    static StringFrame open(StringRule rule, Container parent) {
        return new StringFrame(rule, 0, 0, 0, 0, 0, 0, parent).alive();
    }

    private StringFrame alive() {
        return need() < Need.DEAD ? this : null;
    }

    @Override
    public Frame step(int b) {
        if (b >= Symbols.MARKER_BASE) return null;
        if (rest > 0) {
            if (b < 0x80 || b > 0xBF) return null;
            int v = partial << 6 | (b & 0x3F);
            if (rest > 1) return new StringFrame(rule, dfa, count, 0, rest - 1, length, v, parent).alive();
            return v >= lowest(length) && !(v >= 0xD800 && v <= 0xDFFF) && v <= Regex.MAX_CODE_POINT ? advance(v, true) : null;
        }
        if (escape == 1) {
            if (b == 'u') return new StringFrame(rule, dfa, count, 2, 0, 0, 0, parent).alive();
            for (int i = 0; i < SIMPLE_ESCAPES.length; i++) if (b == SIMPLE_ESCAPES[i]) return advance(ESCAPED_CHARS[i], false);
            return null;
        }
        if (escape >= 2) {
            int h = Character.digit(b, 16);
            if (h < 0) return null;
            int v = partial << 4 | h;
            if (escape < 5) return new StringFrame(rule, dfa, count, escape + 1, 0, 0, v, parent).alive();
            return v >= 0xD800 && v <= 0xDFFF ? null : advance(v, false);
        }
        if (b == '"') return rule.canClose(dfa, count) ? parent.afterValue() : null;
        if (b == '\\') return new StringFrame(rule, dfa, count, 1, 0, 0, 0, parent).alive();
        if (b < 0x20) return null;
        if (b < 0x80) return advance(b, true);
        if (b >= 0xC2 && b <= 0xDF) return new StringFrame(rule, dfa, count, 0, 1, 2, b & 0x1F, parent).alive();
        if (b >= 0xE0 && b <= 0xEF) return new StringFrame(rule, dfa, count, 0, 2, 3, b & 0x0F, parent).alive();
        if (b >= 0xF0 && b <= 0xF4) return new StringFrame(rule, dfa, count, 0, 3, 4, b & 0x07, parent).alive();
        return null;
    }

    private static int lowest(int utf8Length) {
        return switch (utf8Length) {
            case 2 -> 0x80;
            case 3 -> 0x800;
            default -> 0x10000;
        };
    }

    private static int highest(int utf8Length) {
        return switch (utf8Length) {
            case 2 -> 0x7FF;
            case 3 -> 0xFFFF;
            default -> Regex.MAX_CODE_POINT;
        };
    }

    private Frame advance(int cp, boolean raw) {
        if (raw && cp == 0x2581) return null;
        int to = rule.next(dfa, cp);
        if (to < 0 || (rule.maxLength >= 0 && count >= rule.maxLength)) return null;
        return new StringFrame(rule, to, count < rule.countCap ? count + 1 : rule.countCap, 0, 0, 0, 0, parent).alive();
    }

    @Override
    public int need() {
        if (rest > 0) {
            int lo = Math.max(partial << 6 * rest, lowest(length));
            int hi = Math.min(partial << 6 * rest | (1 << 6 * rest) - 1, highest(length));
            return lo > hi ? Need.DEAD : add(rest, rule.needAfterCharIn(dfa, count, lo, hi, true));
        }
        if (escape == 1) {
            int best = add(5, rule.needAfterCharIn(dfa, count, 0, 0xFFFF, false));
            for (int c : ESCAPED_CHARS) best = Math.min(best, add(1, rule.needAfterCharIn(dfa, count, c, c, false)));
            return best;
        }
        if (escape >= 2) {
            int left = 4 - (escape - 2);
            int lo = partial << 4 * left;
            return add(left, rule.needAfterCharIn(dfa, count, lo, lo | (1 << 4 * left) - 1, false));
        }
        return rule.need(dfa, count);
    }

    private static int add(int a, int b) {
        return Need.add(a, b);
    }
}
