package dev.needlewb.bench;

/** JVM arguments every benchmark fork needs: the incubating Vector API and native access for FFM. */
public final class Fork {
    public static final String VECTOR = "--add-modules=jdk.incubator.vector";
    public static final String NATIVE = "--enable-native-access=ALL-UNNAMED";

    private Fork() {}
}
