package dev.needlewb.engine.grammar;

/** Inside one of a fixed set of spellings (enum, const, true/false, null): {@code node} in their trie. */
record LiteralFrame(ByteTrie spellings, int node, Container parent) implements Frame {
    static Frame open(ByteTrie spellings, Container parent, int b) {
        return new LiteralFrame(spellings, 0, parent).step(b);
    }

    @Override
    public Frame step(int b) {
        int child = b < 256 ? spellings.child(node, b) : -1;
        if (child >= 0) return new LiteralFrame(spellings, child, parent);
        // a finished spelling (numbers end only here, at the byte after them) hands the byte on
        return node != 0 && spellings.wordAt(node) >= 0 ? parent.afterValue().step(b) : null;
    }

    @Override
    public int need() {
        return spellings.minRest(node);
    }
}
