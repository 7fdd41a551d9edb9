package dev.needlewb.converter.cact;

import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.converter.names.NameMap;
import java.nio.file.Path;
import java.util.List;

/**
 * What one generation supplies to the {@code .cact} code, which is otherwise
 * generation-neutral: its header codecs, its canonical tensor layout (from its tensor table), the
 * name map of a file, the notes {@code inspect} prints and its tokenizer rule. Registered in
 * {@link CactGenerations}.
 */
public interface CactGeneration {
    Generation generation();

    /** The codec of the header writers write. */
    HeaderCodec header();

    /**
     * The codec of a file that starts with {@code tag}, one of the generation's tags; a header
     * layout the workbench does not read (yet) is refused at byte 0.
     *
     * @param supplied the geometry the user gave for a header that stores none (Needle 2's legacy
     *     header), or null; headers that store their geometry ignore it
     */
    HeaderCodec header(int tag, Path file, ModelGeometry supplied) throws FormatException;

    /**
     * The layout a directory of {@code numTensors} records must follow for geometry {@code g}. A
     * generation whose layout depends on stored values (Needle 2's probe heads: the manifest's
     * codes) reads them from {@code bytes}, bounds-checked; the directory itself is checked later.
     *
     * @throws FormatException no layout has that many tensors, or the values it reads are invalid
     */
    CactLayout layout(ModelGeometry g, long numTensors, CactBytes bytes) throws FormatException;

    /**
     * The layout {@code model}'s tensors must follow, the optional parts (heads, tokenizer) being
     * those its tensor names show.
     *
     * @throws WorkbenchException no layout of the geometry has those tensors
     */
    CactLayout layout(CactModel model) throws WorkbenchException;

    /**
     * Checks stored values the generation's readers index with (Needle 3's permutations), after
     * every record is validated; most generations have none.
     */
    default void checkValues(CactBytes bytes, List<TensorRecord> records) throws FormatException {}

    /** The name map of a validated file: its geometry and the optional parts it stores. */
    NameMap names(CactFile file);

    /** What is unusual but valid in {@code file}, each with the upstream code behind it; empty for an ordinary export. */
    List<String> notes(CactFile file);

    /** The CQ widths a fresh {@code .cact} of this generation gets when none are asked for: its exporter's default. */
    dev.needlewb.converter.names.BitsMap defaultBits();

    /** Why a tokenizer of {@code pieces} pieces does not fit {@code g} (upstream's {@code _pack_cact} rule), or null. */
    String tokenizerProblem(long pieces, ModelGeometry g);

    /** The exporter's rule for the tokenizer blob against the geometry (upstream's {@code _pack_cact}). */
    void checkTokenizer(byte[] blob, ModelGeometry g) throws WorkbenchException;
}
