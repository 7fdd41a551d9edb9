package dev.needlewb.converter.flax;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;

/** Test pickles made with our writer. */
final class PickleBytes {
    private PickleBytes() {}

    static byte[] of(Map<String, ?> root) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            new PickleWriter(out).writePickle(root, Set.of());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
