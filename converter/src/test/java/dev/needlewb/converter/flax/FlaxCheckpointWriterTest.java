package dev.needlewb.converter.flax;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlaxCheckpointWriterTest {

    @Test
    void numpyReadsOurPickleBackEqualToTheGoldenOne(@TempDir Path tmp) throws Exception {
        Path written = tmp.resolve("copy.ckpt.pkl");
        FlaxCheckpointWriter.write(FlaxCheckpointReaderTest.golden(), written, Golden.mini("mini.ckpt.pkl"));
        String out = PythonNumpy.run("""
                mine = pickle.load(open(sys.argv[1], 'rb'))
                gold = pickle.load(open(sys.argv[2], 'rb'))
                assert sorted(mine) == sorted(gold), (sorted(mine), sorted(gold))
                for k in ('format_version', 'config', 'step', 'run'):
                    assert mine[k] == gold[k] and type(mine[k]) is type(gold[k]), (k, mine[k], gold[k])
                for k in ('engram_orders', 'engram_layers'):
                    assert type(mine['config'][k]) is tuple, k
                n = 0
                def walk(a, b):
                    global n
                    assert sorted(a) == sorted(b)
                    for k in a:
                        if isinstance(b[k], dict):
                            walk(a[k], b[k])
                        else:
                            assert type(a[k]) is np.ndarray and a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
                            assert np.array_equal(a[k], b[k]), k
                            n += 1
                walk(mine['params'], gold['params'])
                print('OK', n)
                """, written.toString(), Golden.mini("mini.ckpt.pkl").toString());
        assertThat(out.strip()).isEqualTo("OK 39");
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
    void refusesToOverwriteAnInput(@TempDir Path tmp) throws Exception {
        Path input = tmp.resolve("in.pkl");
        Files.copy(Golden.mini("mini.ckpt.pkl"), input);
        FlaxCheckpoint ckpt = FlaxCheckpointReader.read(input);
        assertThatThrownBy(() -> FlaxCheckpointWriter.write(ckpt, tmp.resolve("./in.pkl"), input))
                .isInstanceOf(WorkbenchException.class).hasMessageContaining("refusing to overwrite the input");
        assertThat(Files.mismatch(input, Golden.mini("mini.ckpt.pkl"))).isEqualTo(-1L);
    }
}
