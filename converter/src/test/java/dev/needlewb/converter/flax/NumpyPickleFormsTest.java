package dev.needlewb.converter.flax;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.io.Npy;
import dev.needlewb.core.io.NpyArray;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pickles written by numpy itself in every form we accept (dtypes, byte orders, memory orders,
 * 0-d, protocols 2 to 5 incl. protocol 5's {@code _frombuffer}) read back to the exact C-order
 * little-endian array numpy saves as {@code .npy}.
 */
class NumpyPickleFormsTest {

    @Test
    void everyDtypeOrderAndProtocolMatchesNumpysOwnNpy(@TempDir Path tmp) throws Exception {
        for (String python : PythonNumpy.interpreters()) {
            Path dir = Files.createDirectory(tmp.resolve("v" + PythonNumpy.interpreters().indexOf(python)));
            checkForms(python, dir);
        }
    }

    private static void checkForms(String python, Path tmp) throws Exception {
        String out = PythonNumpy.runWith(python, """
                import os
                d = sys.argv[1]
                base = np.arange(24, dtype=np.float64).reshape(2, 3, 4) * 1.25 - 7
                cases = {}
                for code in ('<f2', '<f4', '<f8', '<i4', '<i8', '|u1', '|b1', '>f4', '>i8', '>f2'):
                    cases[code.replace('<', 'le_').replace('>', 'be_').replace('|', '')] = base.astype(code)
                cases['fortran'] = np.asfortranarray(base.astype('<f4'))
                cases['fortran_be'] = np.asfortranarray(base.astype('>f8'))
                cases['zero_d'] = np.array(3.5, dtype='<f4')
                cases['transposed'] = base.astype('<f4').transpose(2, 0, 1)
                cases['empty'] = np.zeros((384, 0), '<f4')  # the kernel of a Dense(0), e.g. contrastive_dim 0
                cases['empty_first'] = np.zeros((0, 3), '<f2')
                n = 0
                for name, a in cases.items():
                    np.save(os.path.join(d, name + '.npy'), np.array(a, order='C').astype(a.dtype.newbyteorder('<')))
                    # protocol 2 spells empty data builtins.bytes(), which SafePickle refuses; upstream's
                    # run.py pickles at Python's default protocol (4 or 5)
                    for p in ((3, 4, 5) if a.size == 0 else (2, 3, 4, 5)):
                        with open(os.path.join(d, f'{name}.p{p}.pkl'), 'wb') as f:
                            pickle.dump({'a': a}, f, protocol=p)
                        n += 1
                print(n)
                """, tmp.toString());
        assertThat(out.strip()).isEqualTo("62");
        int checked = 0;
        try (var files = Files.list(tmp)) {
            for (Path pkl : files.filter(p -> p.toString().endsWith(".pkl")).sorted().toList()) {
                String name = pkl.getFileName().toString();
                NpyArray expected = Npy.parse(Files.readAllBytes(tmp.resolve(name.substring(0, name.indexOf('.')) + ".npy")), name);
                NpyArray got = (NpyArray) ((Map<?, ?>) SafePickle.load(pkl)).get("a");
                assertThat(got.descr()).as(python + " " + name).isEqualTo(expected.descr());
                assertThat(got.shape()).as(python + " " + name).isEqualTo(expected.shape());
                assertThat(got.data()).as(python + " " + name).isEqualTo(expected.data());
                checked++;
            }
        }
        assertThat(checked).isEqualTo(62);
    }

    @Test
    void numpyScalarsOrderedDictAndTransformerConfigObjects(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("misc.pkl");
        PythonNumpy.run("""
                import collections, dataclasses, types
                for m in ('needle', 'needle.model', 'needle.model.architecture'):
                    sys.modules[m] = types.ModuleType(m)
                @dataclasses.dataclass
                class TransformerConfig:
                    d_model: int = 128
                    engram_layers: tuple = (1, 4)
                TransformerConfig.__module__ = 'needle.model.architecture'
                TransformerConfig.__qualname__ = 'TransformerConfig'
                sys.modules['needle.model.architecture'].TransformerConfig = TransformerConfig
                obj = {'step': np.int64(-7), 'lr': np.float32(1.5), 'flag': np.bool_(True), 'byte': np.uint8(200),
                       'od': collections.OrderedDict([('z', 1), ('a', 2)]), 'config': TransformerConfig()}
                pickle.dump(obj, open(sys.argv[1], 'wb'), protocol=4)
                """, file.toString());
        Map<?, ?> m = (Map<?, ?>) SafePickle.load(file);
        assertThat(m.get("step")).isEqualTo(-7L);
        assertThat(m.get("lr")).isEqualTo(1.5);
        assertThat(m.get("flag")).isEqualTo(true);
        assertThat(m.get("byte")).isEqualTo(200L);
        assertThat(List.copyOf(((Map<?, ?>) m.get("od")).keySet())).isEqualTo(List.of("z", "a"));
        assertThat(m.get("config")).isEqualTo(Map.of("d_model", 128L, "engram_layers", List.of(1L, 4L)));
    }

    @Test
    void objectArraysAndStructuredDtypesAreRefused(@TempDir Path tmp) throws Exception {
        Path objects = tmp.resolve("objects.pkl");
        Path structured = tmp.resolve("structured.pkl");
        PythonNumpy.run("""
                pickle.dump(np.array([1, 'x'], dtype=object), open(sys.argv[1], 'wb'), protocol=4)
                pickle.dump(np.zeros(2, dtype=[('x', '<f4'), ('y', '<i4')]), open(sys.argv[2], 'wb'), protocol=4)
                """, objects.toString(), structured.toString());
        // Object arrays pickle their elements through builtins.int/str constructors or their dtype 'O8'.
        malformed(ErrorKind.BAD_PICKLE, () -> SafePickle.load(objects));
        // the unpickler's refusals are all BAD_PICKLE: the dtype is named in the wording only
        assertThat(malformed(ErrorKind.BAD_PICKLE, () -> SafePickle.load(structured))).hasMessageContaining("unsupported numpy dtype 'V8'");
    }
}
