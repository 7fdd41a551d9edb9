package dev.needlewb.core;

/**
 * What went wrong, for a program or a test to act on without parsing the message (after
 * safetensors' {@code SafeTensorError}). Every {@link WorkbenchException} carries one; the message
 * stays the one line a person reads. docs/errors.md lists what raises each kind and its exit code.
 */
public enum ErrorKind {
    /** A file cannot be read, written, locked or put in place. */
    IO,
    /** A file kept changing while it was being read (another process writes it); reading again may succeed. */
    FILE_CHANGED,
    /** Another run writes the same output, or the output would overwrite an input. */
    OUTPUT_CONFLICT,
    /** A file ends before a structure its own bytes announce (header, directory, blob, record). */
    TRUNCATED,
    /** A size beyond what the workbench reads: the file, a header length, an array that does not fit. */
    TOO_LARGE,
    /** A file name or content the workbench does not know as any model format. */
    UNKNOWN_FORMAT,
    /** A {@code .cact} tag of no known generation. */
    BAD_TAG,
    /** A model of a generation (Needle 2, Needle 3) this reader or command does not take. */
    WRONG_GENERATION,
    /** A header or directory-record field out of its range: codebook length, tensor count, kv bits, CQ bits and group, geometry. */
    BAD_HEADER_FIELD,
    /** A reserved or padding field or byte that must be zero is not. */
    NONZERO_RESERVED,
    /** A blob or data offset outside the file or the data section, or not where the layout puts it. */
    BAD_OFFSET,
    /** A blob offset that is not on the boundary the format requires. */
    MISALIGNED,
    /** Two blobs share bytes. */
    OVERLAP,
    /** Bytes after the end of the structure that should end the file or blob. */
    TRAILING_BYTES,
    /** A tensor's shape, size or byte count disagrees with its dtype, its layout slot or the model. */
    SHAPE_MISMATCH,
    /** A dtype the format or the target does not take. */
    UNSUPPORTED_DTYPE,
    /** A NaN or infinity (or a value overflowing the target type) where only finite values may be. */
    NON_FINITE,
    /** A stored value outside its allowed set (an MLP permutation that is not one). */
    BAD_VALUE,
    /** A packed code outside its codebook, or a head code outside its range. */
    BAD_CODE,
    /** A pickle global, persistent id or extension outside the allow-list. */
    UNSAFE_PICKLE_GLOBAL,
    /** A pickle stream that is malformed or holds objects of the wrong type. */
    BAD_PICKLE,
    /** A zip archive (torch {@code .pt}) whose records are malformed or miss an entry. */
    BAD_ARCHIVE,
    /** A SentencePiece model or tokenizer blob that does not parse or breaks its rules. */
    BAD_TOKENIZER,
    /** Text that is not valid JSON. */
    BAD_JSON,
    /** A text input (token ids, cases, tools) that is not UTF-8 text. */
    BAD_TEXT,
    /** Valid JSON of the wrong structure: tools file, tool schema, cases, tolerance profile. */
    BAD_SCHEMA,
    /** A checkpoint config value that is missing, of the wrong type or out of range. */
    BAD_CONFIG,
    /** A model geometry no engine or format can hold (e.g. an odd head_dim, a repeated engram site). */
    BAD_GEOMETRY,
    /** A tensor, parameter or part the model needs is not there. */
    MISSING_KEY,
    /** A tensor, parameter or key that is not one of the model's or the format's. */
    UNKNOWN_KEY,
    /** Two models (or a model and its tokenizer or base) that must agree differ. */
    MODEL_MISMATCH,
    /** A well-formed input using something this version does not implement. */
    UNSUPPORTED,
    /** A command-line option value or combination that is not valid. */
    BAD_OPTION,
    /** A prompt the model cannot take: empty, too long, or a token id outside the vocabulary. */
    BAD_PROMPT,
    /** A step a command runs (a sub-command, a round trip) failed; the message quotes its own error. */
    STEP_FAILED,
}
