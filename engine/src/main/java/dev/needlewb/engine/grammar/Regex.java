package dev.needlewb.engine.grammar;

import java.util.ArrayList;
import java.util.List;

/**
 * The subset of ECMA-262 regular expressions a JSON schema {@code pattern} may use here, parsed into
 * a tree of code-point sets: literals, {@code .}, escapes ({@code \d \D \w \W \s \S}, {@code \n \t \r
 * \f \v}, {@code \\uXXXX}, escaped metacharacters), classes {@code [a-z_]} and {@code [^...]}, groups
 * {@code (...)} and {@code (?:...)}, alternation, and the greedy or lazy quantifiers {@code * + ?
 * {n} {n,} {n,m}} (laziness does not change the language). {@code ^} and {@code $} are accepted only as
 * the first and last character; without them the pattern matches anywhere, as JSON Schema says.
 * Back-references, look-around, word boundaries and flags are refused.
 */
final class Regex {
    /** A node of the parsed tree. */
    sealed interface Node permits Chars, Seq, Alt, Repeat {}

    /** One code point from {@code ranges} (sorted, disjoint, inclusive pairs). */
    record Chars(int[] ranges) implements Node {}

    record Seq(List<Node> parts) implements Node {}

    record Alt(List<Node> options) implements Node {}

    /** {@code max} -1 is unbounded. */
    record Repeat(Node body, int min, int max) implements Node {}

    static final int MAX_CODE_POINT = 0x10FFFF;
    static final int[] ANY = {0, MAX_CODE_POINT};
    private static final int[] DIGIT = {'0', '9'};
    private static final int[] WORD = {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'};
    private static final int[] SPACE = {'\t', '\r', ' ', ' ', 0xA0, 0xA0, 0x1680, 0x1680, 0x2000, 0x200A,
        0x2028, 0x2029, 0x202F, 0x202F, 0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF};
    private static final int[] LINE_TERMINATORS = {'\n', '\n', '\r', '\r', 0x2028, 0x2029};
    /** Bounded repeats are expanded; this caps what one pattern may expand to. */
    static final int MAX_REPEAT = 1000;

    private final String source;
    private int at;

    private Regex(String source) {
        this.source = source;
    }

    /** The whole-string language of {@code pattern}: unanchored ends match any text. */
    static Node parse(String pattern) {
        String body = pattern;
        boolean anchoredStart = body.startsWith("^");
        if (anchoredStart) body = body.substring(1);
        boolean anchoredEnd = body.endsWith("$") && !endsEscaped(body);
        if (anchoredEnd) body = body.substring(0, body.length() - 1);
        Regex r = new Regex(body);
        Node node = r.alternation();
        if (r.at < body.length()) throw r.error("unbalanced ')'");
        List<Node> parts = new ArrayList<>();
        Node anyText = new Repeat(new Chars(ANY), 0, -1);
        if (!anchoredStart) parts.add(anyText);
        parts.add(node);
        if (!anchoredEnd) parts.add(anyText);
        return new Seq(parts);
    }

    private static boolean endsEscaped(String s) {
        int slashes = 0;
        for (int i = s.length() - 2; i >= 0 && s.charAt(i) == '\\'; i--) slashes++;
        return slashes % 2 == 1;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("pattern '" + source + "': " + what + " at index " + at);
    }

    private boolean more() {
        return at < source.length();
    }

    private int peek() {
        return source.codePointAt(at);
    }

    private int next() {
        int c = source.codePointAt(at);
        at += Character.charCount(c);
        return c;
    }

    private Node alternation() {
        List<Node> options = new ArrayList<>();
        options.add(sequence());
        while (more() && peek() == '|') {
            at++;
            options.add(sequence());
        }
        return options.size() == 1 ? options.getFirst() : new Alt(options);
    }

    private Node sequence() {
        List<Node> parts = new ArrayList<>();
        while (more() && peek() != '|' && peek() != ')') parts.add(quantified(atom()));
        return new Seq(parts);
    }

    private Node quantified(Node atom) {
        Node node = atom;
        while (more()) {
            int c = peek();
            int min, max;
            if (c == '*') { at++; min = 0; max = -1; }
            else if (c == '+') { at++; min = 1; max = -1; }
            else if (c == '?') { at++; min = 0; max = 1; }
            else if (c == '{' && braceQuantifierAhead()) {
                at++;
                min = number();
                max = min;
                if (peek() == ',') {
                    at++;
                    max = peek() == '}' ? -1 : number();
                }
                if (!more() || next() != '}') throw error("unclosed {n,m}");
                if (max >= 0 && max < min) throw error("{n,m} with m < n");
                if (min > MAX_REPEAT || max > MAX_REPEAT) throw error("repeat count above " + MAX_REPEAT);
            } else break;
            if (more() && peek() == '?') at++; // lazy: same language
            node = new Repeat(node, min, max);
        }
        return node;
    }

    private boolean braceQuantifierAhead() {
        int i = at + 1;
        int digits = 0;
        while (i < source.length() && Character.isDigit(source.charAt(i))) { i++; digits++; }
        if (digits == 0) return false;
        if (i < source.length() && source.charAt(i) == ',') {
            i++;
            while (i < source.length() && Character.isDigit(source.charAt(i))) i++;
        }
        return i < source.length() && source.charAt(i) == '}';
    }

    private int number() {
        int start = at;
        while (more() && Character.isDigit(peek())) at++;
        if (start == at) throw error("expected a number");
        String digits = source.substring(start, at);
        return digits.length() > 6 ? Integer.MAX_VALUE : Integer.parseInt(digits);
    }

    private Node atom() {
        int c = next();
        return switch (c) {
            case '(' -> {
                if (source.startsWith("?:", at)) at += 2;
                else if (more() && peek() == '?') throw error("look-around and named groups are not supported");
                Node inner = alternation();
                if (!more() || next() != ')') throw error("unclosed '('");
                yield inner;
            }
            case '[' -> new Chars(charClass());
            case '.' -> new Chars(CharSets.complement(LINE_TERMINATORS));
            case '\\' -> new Chars(escape(false));
            case '^', '$' -> throw error("anchors are supported only at the very start and end");
            case '*', '+', '?' -> throw error("nothing to repeat");
            case ')' -> throw error("unbalanced ')'");
            default -> new Chars(new int[] {c, c});
        };
    }

    private int[] charClass() {
        boolean negated = more() && peek() == '^';
        if (negated) at++;
        List<int[]> parts = new ArrayList<>();
        boolean first = true;
        while (true) {
            if (!more()) throw error("unclosed '['");
            int c = peek();
            if (c == ']' && !first) {
                at++;
                break;
            }
            first = false;
            int[] lo = classAtom();
            if (lo.length == 2 && lo[0] == lo[1] && more() && peek() == '-' && at + 1 < source.length()
                    && source.charAt(at + 1) != ']') {
                at++;
                int[] hi = classAtom();
                if (hi.length != 2 || hi[0] != hi[1]) throw error("a class range must end in one character");
                if (hi[0] < lo[0]) throw error("class range out of order");
                parts.add(new int[] {lo[0], hi[0]});
            } else {
                parts.add(lo);
            }
        }
        int[] set = CharSets.union(parts);
        return negated ? CharSets.complement(set) : set;
    }

    private int[] classAtom() {
        int c = next();
        if (c == '\\') return escape(true);
        return new int[] {c, c};
    }

    private int[] escape(boolean inClass) {
        if (!more()) throw error("trailing backslash");
        int c = next();
        return switch (c) {
            case 'd' -> DIGIT;
            case 'D' -> CharSets.complement(DIGIT);
            case 'w' -> WORD;
            case 'W' -> CharSets.complement(WORD);
            case 's' -> SPACE;
            case 'S' -> CharSets.complement(SPACE);
            case 'n' -> new int[] {'\n', '\n'};
            case 't' -> new int[] {'\t', '\t'};
            case 'r' -> new int[] {'\r', '\r'};
            case 'f' -> new int[] {'\f', '\f'};
            case 'v' -> new int[] {0x0B, 0x0B};
            case '0' -> new int[] {0, 0};
            case 'b' -> {
                if (inClass) yield new int[] {8, 8};
                throw error("word boundaries are not supported");
            }
            case 'u' -> {
                if (at + 4 > source.length()) throw error("\\u needs four hex digits");
                int v;
                try {
                    v = Integer.parseInt(source.substring(at, at + 4), 16);
                } catch (NumberFormatException e) {
                    throw error("\\u needs four hex digits");
                }
                at += 4;
                yield new int[] {v, v};
            }
            default -> {
                if (Character.isLetterOrDigit(c)) throw error("escape \\" + Character.toString(c) + " is not supported");
                yield new int[] {c, c};
            }
        };
    }
}
