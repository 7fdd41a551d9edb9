package dev.needlewb.core;

import java.nio.file.Path;

/**
 * A malformed input file. The message names the file, the tensor (directory index and canonical
 * name) when one is concerned, and the byte offset where the problem was found, for example
 * {@code mini.cact: tensor 12 (layer00.d2) at byte 57536: nbytes 300, FP16 shape [128] needs 256}.
 */
public final class FormatException extends WorkbenchException {
    /** No tensor is concerned (header, codebook, file length). */
    public static final int NO_TENSOR = -1;
    /** No single byte offset applies. */
    public static final long NO_OFFSET = -1;

    private final Path file;
    private final int tensorIndex;
    private final String tensorName;
    private final long offset;
    private final String problem;

    public FormatException(ErrorKind kind, Path file, int tensorIndex, String tensorName, long offset, String problem) {
        super(kind, describe(file, tensorIndex, tensorName, offset, problem));
        this.file = file;
        this.tensorIndex = tensorIndex;
        this.tensorName = tensorName;
        this.offset = offset;
        this.problem = problem;
    }

    public FormatException(ErrorKind kind, Path file, long offset, String problem) {
        this(kind, file, NO_TENSOR, null, offset, problem);
    }

    private static String describe(Path file, int index, String name, long offset, String problem) {
        StringBuilder sb = new StringBuilder();
        sb.append(file == null ? "<memory>" : file.toString()).append(": ");
        if (index != NO_TENSOR) {
            sb.append("tensor ").append(index);
            if (name != null) sb.append(" (").append(name).append(')');
        }
        if (offset != NO_OFFSET) sb.append(index != NO_TENSOR ? " " : "").append("at byte ").append(offset);
        if (index != NO_TENSOR || offset != NO_OFFSET) sb.append(": ");
        return sb.append(problem).toString();
    }

    public Path file() { return file; }

    public int tensorIndex() { return tensorIndex; }

    public String tensorName() { return tensorName; }

    public long offset() { return offset; }

    public String problem() { return problem; }
}
