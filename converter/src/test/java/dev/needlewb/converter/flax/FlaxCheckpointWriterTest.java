package dev.needlewb.converter.flax;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlaxCheckpointWriterTest {

    @Test
    void numpyReadsOurPickleBackEqualToTheGoldenOne(@TempDir Path tmp) throws Exception {
        Path written = tmp.resolve("copy.ckpt.pkl");
        FlaxCheckpointWriter.write(FlaxCheckpointReaderTest.golden(), written, Golden.mini("mini.ckpt.pkl"));
        // tuples stay tuples (engram_orders, engram_layers), every array equal with its dtype
        assertThat(PythonNumpy.sameCheckpoint(written, Golden.mini("mini.ckpt.pkl"))).isEqualTo("OK 39");
    }

    @Test
    void javaReadWriteReadKeepsEveryBit(@TempDir Path tmp) throws Exception {
        FlaxCheckpoint first = FlaxCheckpointReaderTest.golden();
        Path written = tmp.resolve("again.pkl");
        FlaxCheckpointWriter.write(first, written);
        FlaxCheckpoint second = FlaxCheckpointReader.read(written);
        assertThat(second.params().keySet()).containsExactlyElementsOf(first.params().keySet());
        for (var e : first.params().entrySet()) {
            NpyArray b = second.params().get(e.getKey());
            assertThat(b.descr()).isEqualTo(e.getValue().descr());
            assertThat(b.shape()).isEqualTo(e.getValue().shape());
            assertThat(b.data()).as(e.getKey()).isEqualTo(e.getValue().data());
        }
        assertThat(second.config()).isEqualTo(first.config());
        assertThat(second.step()).isEqualTo(first.step());
        assertThat(second.run()).isEqualTo(first.run());
        try (Stream<Path> files = Files.list(tmp)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("again.pkl");
        }
    }

    @Test
    void everyDtypeWeWriteIsReadByEachNumpy(@TempDir Path tmp) throws Exception {
        Map<String, Object> arrays = new LinkedHashMap<>();
        arrays.put("f2", new NpyArray("<f2", new int[] {2, 1, 1, 2}, new byte[] {0, 0x3c, 0, (byte) 0xc0, 0, 0x7c, 1, 0}));
        arrays.put("f8", NpyArray.ofDoubles(new int[] {}, new double[] {-0.0}));
        arrays.put("i4", NpyArray.ofInts(new int[] {3}, new int[] {Integer.MIN_VALUE, -1, 7}));
        arrays.put("i8", new NpyArray("<i8", new int[] {1}, new byte[] {1, 2, 3, 4, 5, 6, 7, (byte) 0x80}));
        arrays.put("u1", new NpyArray("|u1", new int[] {2}, new byte[] {(byte) 255, 0}));
        arrays.put("b1", new NpyArray("|b1", new int[] {2}, new byte[] {1, 0}));
        arrays.put("empty", NpyArray.ofFloats(new int[] {0, 3}, new float[0]));
        Path file = tmp.resolve("dtypes.pkl");
        Files.write(file, PickleBytes.of(arrays));
        Map<?, ?> back = (Map<?, ?>) SafePickle.load(file);
        for (var e : arrays.entrySet()) {
            NpyArray a = (NpyArray) e.getValue(), b = (NpyArray) back.get(e.getKey());
            assertThat(b.descr() + java.util.Arrays.toString(b.shape())).isEqualTo(a.descr() + java.util.Arrays.toString(a.shape()));
            assertThat(b.data()).as(e.getKey()).isEqualTo(a.data());
        }
        for (String python : PythonNumpy.interpreters()) {
            String out = PythonNumpy.runWith(python, """
                    d = pickle.load(open(sys.argv[1], 'rb'))
                    for k, a in d.items():
                        print(k, a.dtype.str, a.shape, a.flags.c_contiguous, a.tobytes().hex())
                    """, file.toString());
            assertThat(out).as(python).isEqualTo("""
                    f2 <f2 (2, 1, 1, 2) True 003c00c0007c0100
                    f8 <f8 () True 0000000000000080
                    i4 <i4 (3,) True 00000080ffffffff07000000
                    i8 <i8 (1,) True 0102030405060780
                    u1 |u1 (2,) True ff00
                    b1 |b1 (2,) True 0100
                    empty <f4 (0, 3) True\s
                    """);
        }
    }

    @Test
    void refusesToOverwriteAnInput(@TempDir Path tmp) throws Exception {
        Path input = tmp.resolve("in.pkl");
        Files.copy(Golden.mini("mini.ckpt.pkl"), input);
        FlaxCheckpoint ckpt = FlaxCheckpointReader.read(input);
        refused(ErrorKind.OUTPUT_CONFLICT, () -> FlaxCheckpointWriter.write(ckpt, tmp.resolve("./in.pkl"), input));
        assertThat(Files.mismatch(input, Golden.mini("mini.ckpt.pkl"))).isEqualTo(-1L);
    }
}
