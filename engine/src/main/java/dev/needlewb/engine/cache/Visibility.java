package dev.needlewb.engine.cache;

/**
 * Which keys a query sees (SPEC section 2 masks): a key at {@code kpos <= qpos} is visible when
 * {@code qpos - kpos < window} or {@code kpos < sinks} (pinned positions, e.g. a tool prefix);
 * {@code window == 0} means no window (every earlier key). The visible keys of a query are the sinks
 * {@code [0, sinkEnd(q))} and then the window {@code [windowStart(q), q]}, which never overlap.
 */
public record Visibility(int window, int sinks) {
    public Visibility {
        if (window < 0 || sinks < 0) throw new IllegalArgumentException("window " + window + ", sinks " + sinks);
    }

    /** The first non-sink position a query at {@code qpos} sees. */
    public int windowStart(int qpos) {
        return window == 0 ? 0 : Math.max(0, qpos - window + 1);
    }

    /** The end of the pinned positions a query at {@code qpos} sees before its window. */
    public int sinkEnd(int qpos) {
        return Math.min(sinks, windowStart(qpos));
    }
}
