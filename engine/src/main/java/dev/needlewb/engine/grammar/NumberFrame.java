package dev.needlewb.engine.grammar;

/**
 * Inside a number: {@code text} so far. Without bounds only the syntax matters, so the text is
 * kept as a stand-in of its phase ({@code -}, {@code 0}, {@code 1}, {@code 1.}, {@code 1.0}) and
 * equal states compare equal. A number ends at the first byte that cannot extend it, which then
 * goes to the container.
 */
record NumberFrame(NumberRule rule, String text, Container parent) implements Frame {
    static Frame open(NumberRule rule, Container parent, int b) {
        if (b != '-' && !(b >= '0' && b <= '9')) return null;
        return new NumberFrame(rule, "", parent).extend((char) b);
    }

    @Override
    public Frame step(int b) {
        if (b >= '0' && b <= '9') {
            boolean leadingZero = text.equals("0") || text.equals("-0");
            return leadingZero ? null : extend((char) b);
        }
        if (b == '.') {
            boolean canDot = !rule.integer && NumberRule.complete(text) && text.indexOf('.') < 0;
            return canDot ? extend('.') : null;
        }
        if (!NumberRule.complete(text) || (rule.bounded() && !rule.inRange(text))) return null;
        return parent.afterValue().step(b);
    }

    private Frame extend(char c) {
        String longer = text + c;
        if (!rule.bounded()) return new NumberFrame(rule, standIn(longer), parent);
        return rule.need(longer) < Need.DEAD ? new NumberFrame(rule, longer, parent) : null;
    }

    private static String standIn(String text) {
        if (text.equals("-")) return "-";
        if (text.equals("0") || text.equals("-0")) return "0";
        int dot = text.indexOf('.');
        if (dot < 0) return "1";
        return dot == text.length() - 1 ? "1." : "1.0";
    }

    @Override
    public int need() {
        if (rule.bounded()) return rule.need(text);
        return NumberRule.complete(text) ? 0 : 1;
    }
}
