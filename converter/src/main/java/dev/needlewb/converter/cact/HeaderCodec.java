package dev.needlewb.converter.cact;

import dev.needlewb.core.FormatException;
import dev.needlewb.core.generation.ModelGeometry;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.SequencedMap;

/**
 * One generation's {@code .cact} header: its size, and its fields decoded into and encoded from
 * that generation's geometry by name. The container reads the prefix all headers share
 * ({@link CactFormat#OFF_TAG} to {@link CactFormat#OFF_KV_BITS}); a codec owns the rest.
 */
public interface HeaderCodec {
    /** Bytes from the tag to the codebook. */
    int headerBytes();

    /**
     * The geometry the header holds, checked against the generation's rules; {@code bytes} is at
     * least {@link #headerBytes} long.
     *
     * @throws FormatException naming the field's byte offset
     */
    ModelGeometry read(MemorySegment bytes, Path file) throws FormatException;

    /** The first rule {@code g} breaks as text, or null: what a writer refuses. */
    String problem(ModelGeometry g);

    /** Puts the whole header of a file of {@code numTensors} tensors with geometry {@code g}, tag first. */
    void write(ByteBuffer out, ModelGeometry g, int numTensors);

    /** The geometry's header fields by upstream name, for reports (engram arrays hold the used entries). */
    SequencedMap<String, Object> fields(ModelGeometry g);
}
