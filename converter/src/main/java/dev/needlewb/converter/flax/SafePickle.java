package dev.needlewb.converter.flax;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.pickle.AllowListUnpickler;
import dev.needlewb.converter.pickle.PickleScanner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * Loads a pickle of numpy arrays without running anything it names: {@link PickleScanner} first
 * walks every opcode and refuses any global outside {@link #ALLOWED_GLOBALS}; only then does the
 * razorvine unpickler build the value, with our own constructors for those globals.
 *
 * <p>The result is a tree of {@code Map} (insertion order), {@code List} (tuples and lists),
 * {@code String}, {@code Long}, {@code BigInteger}, {@code Double}, {@code Boolean},
 * {@code byte[]}, {@code null} and {@link dev.needlewb.core.io.NpyArray} (C order,
 * little-endian). Accepted arrays: float16/32/64, int8-64, uint8-64 and bool, either byte
 * order, C or Fortran order, 0-d; pickle protocols 2 to 5 with in-band data.
 *
 * <p>{@code _codecs.encode} is on the list because protocol 2 has no bytes opcode: numpy's
 * protocol-2 pickles spell every {@code bytes} value (the {@code b'b'} of {@code _reconstruct}
 * and each array's data) as {@code _codecs.encode(text, 'latin1')}; only that exact call is
 * accepted. {@code builtins.bytes} (protocol 2's spelling of an empty bytes value, i.e. the
 * data of a zero-element array) is not on the list, so such arrays are refused at protocol 2.
 */
public final class SafePickle {
    /** Qualified names of the globals a pickle may name. */
    public static final Set<String> ALLOWED_GLOBALS = NumpyUnpickler.allowedGlobals();

    /** The scanner's rules: those globals, no persistent ids. */
    public static final PickleScanner.Rules RULES = new PickleScanner.Rules(ALLOWED_GLOBALS,
            "numpy arrays, dtypes and scalars, collections.OrderedDict and needle's TransformerConfig", false);

    /** Java arrays stop just short of 2^31 bytes. */
    private static final long MAX_FILE_BYTES = Integer.MAX_VALUE - 8;

    private SafePickle() {}

    public static Object load(Path file) throws WorkbenchException {
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            throw WorkbenchException.cannotRead(file, e);
        }
        if (size > MAX_FILE_BYTES) throw new FormatException(ErrorKind.TOO_LARGE, file, FormatException.NO_OFFSET, "pickle of " + size + " bytes is larger than 2 GiB");
        byte[] data;
        try {
            data = Files.readAllBytes(file);
        } catch (IOException e) {
            throw WorkbenchException.cannotRead(file, e);
        }
        return load(file, data);
    }

    /** Loads pickle bytes; {@code file} only names them in errors. */
    public static Object load(Path file, byte[] data) throws FormatException {
        PickleScanner.scan(file, data, RULES);
        try {
            return NumpyUnpickler.load(data);
        } catch (AllowListUnpickler.Failure f) {
            throw new FormatException(ErrorKind.BAD_PICKLE, file, f.offset, f.getMessage());
        }
    }
}
