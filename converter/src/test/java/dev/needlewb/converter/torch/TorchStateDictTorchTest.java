package dev.needlewb.converter.torch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.io.Npz;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Our .pt files against real PyTorch (Debian's python3-torch), both directions. */
class TorchStateDictTorchTest {
    @TempDir
    Path dir;

    /** One tensor of every dtype we write, with values that make a wrong byte order or stride visible. */
    static Map<String, NpyArray> everyDtype() {
        Map<String, NpyArray> m = new LinkedHashMap<>();
        m.put("layers.0.attn.q_proj.weight", NpyArray.ofFloats(new int[] {3, 4}, new float[] {
                1.5f, -2.25f, 3e-8f, Float.MAX_VALUE, -0.0f, 7f, 8f, 9f, Float.MIN_VALUE, 11f, 12f, (float) Math.PI}));
        m.put("f64", NpyArray.ofDoubles(new int[] {2, 1, 2}, new double[] {Math.E, -1e300, 1e-300, 0.1}));
        m.put("f16", new NpyArray("<f2", new int[] {3}, le(2, 0x3C00, 0xC000, 0x7BFF)));
        m.put("i64", new NpyArray("<i8", new int[] {2}, le(8, Long.MIN_VALUE, 0x0123456789ABCDEFL)));
        m.put("i32", NpyArray.ofInts(new int[] {2, 2}, new int[] {-1, 2, Integer.MAX_VALUE, Integer.MIN_VALUE}));
        m.put("i16", new NpyArray("<i2", new int[] {2}, le(2, -32768, 12345)));
        m.put("i8", new NpyArray("|i1", new int[] {3}, new byte[] {-128, 0, 127}));
        m.put("u8", new NpyArray("|u1", new int[] {2}, new byte[] {(byte) 255, 1}));
        m.put("flags", new NpyArray("|b1", new int[] {3}, new byte[] {1, 0, 1}));
        m.put("attn_gate", NpyArray.ofFloats(new int[0], new float[] {0.75f}));
        m.put("empty", NpyArray.ofFloats(new int[] {0, 5}, new float[0]));
        m.put("4d", NpyArray.ofFloats(new int[] {2, 1, 3, 2}, new float[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
        return m;
    }

    private static byte[] le(int width, long... values) {
        ByteBuffer b = ByteBuffer.allocate(width * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            switch (width) {
                case 2 -> b.putShort((short) v);
                case 8 -> b.putLong(v);
                default -> throw new IllegalArgumentException();
            }
        }
        return b.array();
    }

    @Test
    void javaWrittenStateDictLoadsWithWeightsOnlyAndHoldsExactlyOurValues() throws Exception {
        Map<String, NpyArray> tensors = everyDtype();
        Path pt = dir.resolve("ours.pt");
        Path expected = dir.resolve("expected.npz");
        TorchStateDict.write(tensors, pt);
        try (OutputStream out = Files.newOutputStream(expected)) {
            Npz.write(out, tensors);
        }
        String verdict = PythonTorch.run("""
                import sys, zipfile, struct, torch, numpy as np
                sd = torch.load(sys.argv[1], weights_only=True)
                exp = np.load(sys.argv[2])
                bad = []
                if list(sd.keys()) != list(exp.files): bad.append('keys/order %s' % list(sd.keys()))
                for k in exp.files:
                    t = sd[k].numpy(); e = exp[k]
                    if t.dtype != e.dtype or t.shape != e.shape or t.tobytes() != e.tobytes(): bad.append(k)
                with open(sys.argv[1], 'rb') as f:
                    raw = f.read()
                z = zipfile.ZipFile(sys.argv[1])
                for info in z.infolist():
                    n, x = struct.unpack('<HH', raw[info.header_offset + 26:info.header_offset + 30])
                    if (info.header_offset + 30 + n + x) % 64: bad.append('unaligned ' + info.filename)
                    if info.compress_type != zipfile.ZIP_STORED: bad.append('compressed ' + info.filename)
                if z.read('archive/byteorder') != b'little' or z.read('archive/version') != b'3\\n': bad.append('meta')
                print('OK %d' % len(sd) if not bad else 'MISMATCH ' + ' '.join(bad))
                """, pt.toString(), expected.toString()).strip();
        assertThat(verdict).isEqualTo("OK " + tensors.size());
    }

    @Test
    void torchSavedStateDictsReadBackExactly() throws Exception {
        // Python saves real state dicts and, for each, the expected arrays as .npz (bfloat16 widened
        // to float32, as our reader does).
        PythonTorch.run("""
                import sys, os, torch, numpy as np
                d = sys.argv[1]
                torch.manual_seed(0)
                def dump(name, sd):
                    torch.save(sd, os.path.join(d, name + '.pt'))
                    np.savez(os.path.join(d, name + '.npz'), **{k: np.array((v.float() if v.dtype == torch.bfloat16 else v).numpy(), order='C') for k, v in sd.items()})
                m = torch.nn.Sequential(torch.nn.Embedding(7, 4), torch.nn.Linear(4, 3), torch.nn.LayerNorm(3), torch.nn.BatchNorm1d(3))
                dump('module', m.state_dict())
                base = torch.arange(60, dtype=torch.float32).reshape(5, 12)
                views = {'base': base, 't': base.t(), 'rows': base[1:4], 'cols': base[:, 3:7], 'step': base[::2, 1::3],
                         'scalar_view': base[2, 5], 'offset_flat': base.view(-1)[17:29]}
                dump('views', views)
                kinds = {'f16': torch.randn(3, 2).half(), 'bf16': torch.randn(2, 3).bfloat16(), 'f64': torch.randn(4, dtype=torch.float64),
                         'i64': torch.tensor([-2**63, 2**62, 5]), 'i32': torch.tensor([[1, -2]], dtype=torch.int32),
                         'i16': torch.tensor([-3], dtype=torch.int16), 'i8': torch.tensor([-128, 127], dtype=torch.int8),
                         'u8': torch.tensor([0, 255], dtype=torch.uint8), 'bool': torch.tensor([True, False, True]),
                         'zero_d': torch.tensor(3.5), 'empty': torch.zeros(0, 3), 'bf16_t': torch.randn(3, 4).bfloat16().t()}
                dump('kinds', kinds)
                torch.save({'p': torch.nn.Parameter(torch.randn(2, 2))}, os.path.join(d, 'param.pt'))
                np.savez(os.path.join(d, 'param.npz'), p=torch.load(os.path.join(d, 'param.pt'))['p'].detach().numpy())
                # the same module archive with DEFLATE entries (torch never compresses, other zip tools may)
                import zipfile
                with zipfile.ZipFile(os.path.join(d, 'module.pt')) as src, zipfile.ZipFile(os.path.join(d, 'deflated.pt'), 'w', zipfile.ZIP_DEFLATED) as dst:
                    for info in src.infolist(): dst.writestr(info.filename, src.read(info.filename))
                os.link(os.path.join(d, 'module.npz'), os.path.join(d, 'deflated.npz'))
                """, dir.toString());
        for (String name : new String[] {"module", "views", "kinds", "param", "deflated"}) {
            Map<String, NpyArray> ours = TorchStateDict.read(dir.resolve(name + ".pt"));
            Map<String, NpyArray> expected = Npz.read(dir.resolve(name + ".npz"));
            assertThat(ours.keySet()).as(name).containsExactlyElementsOf(expected.keySet());
            for (var e : expected.entrySet()) {
                NpyArray got = ours.get(e.getKey());
                // exact: a state dict read is a byte copy (bfloat16 -> float32 widening is exact too)
                assertThat(got.descr()).as(name + "/" + e.getKey()).isEqualTo(e.getValue().descr());
                assertThat(got.shape()).as(name + "/" + e.getKey()).isEqualTo(e.getValue().shape());
                assertThat(got.data()).as(name + "/" + e.getKey()).isEqualTo(e.getValue().data());
            }
        }
    }
}
