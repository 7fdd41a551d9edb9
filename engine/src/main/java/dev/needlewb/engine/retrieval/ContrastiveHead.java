package dev.needlewb.engine.retrieval;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.Session;
import dev.needlewb.engine.TapSink;

/**
 * Upstream {@code encode_contrastive} on the engine: the cells of every position (the scaled
 * embedding and the lane mean after each layer, upstream {@code hidden_cells}) are pooled by each
 * probe (softmax over all cells of {@code cell . probe / sqrt(d)}), the pooled probes concatenated
 * and projected, and the projection L2-normalised ({@code sqrt(sum + 1e-12)}). The cells come from
 * the engine's own taps ({@code embed}, {@code layerNN.lanes_out}), so the head sees exactly what
 * the engine computes in its mode; pooling and projection run in float64.
 */
public final class ContrastiveHead {
    private final int probes;
    private final int d;
    private final int out;
    private final float[] probe;
    private final float[] proj;
    private final float[] bias;

    private ContrastiveHead(int probes, int d, int out, float[] probe, float[] proj, float[] bias) {
        this.probes = probes;
        this.d = d;
        this.out = out;
        this.probe = probe;
        this.proj = proj;
        this.bias = bias;
    }

    /** The head of {@code file}. */
    public static ContrastiveHead of(CactFile file) throws WorkbenchException {
        TensorRecord probes = file.tensor("contrastive_head.probes");
        TensorRecord proj = file.tensor("contrastive_head.proj");
        TensorRecord bias = file.tensor("contrastive_head.bias");
        if (probes == null || proj == null || bias == null) {
            throw new WorkbenchException(ErrorKind.MISSING_KEY, file.path() + ": the model has no contrastive head (needed to rank tools)");
        }
        int count = (int) probes.shape()[0];
        int d = (int) probes.shape()[1];
        int out = (int) proj.shape()[0];
        if (out == 0) throw new WorkbenchException(ErrorKind.MISSING_KEY, file.path() + ": the contrastive head is empty (contrastive_dim 0)");
        try {
            return new ContrastiveHead(count, d, out, file.dequantize(probes.index()), file.dequantize(proj.index()),
                    file.dequantize(bias.index()));
        } catch (FormatException e) {
            throw new WorkbenchException(e.kind(), e.getMessage(), e);
        }
    }

    public int dim() {
        return out;
    }

    /** The unit embedding of {@code tokens} (no BOS is added; PAD tokens are run but not pooled). */
    public double[] embed(Engine engine, int[] tokens) {
        int layers = engine.geometry().numLayers();
        int lanes = dev.needlewb.core.v2.Geometry.of(engine.geometry()).mhcLanes();
        int t = tokens.length;
        float[][] cells = new float[t * (layers + 1)][];
        Session session = engine.newSession(new TapSink() {
            @Override
            public boolean wants(String name) {
                return name.equals("embed") || name.endsWith(".lanes_out");
            }

            @Override
            public void record(String name, int position, float[] values, int... shape) {
                int cell = name.equals("embed") ? 0 : Integer.parseInt(name, 5, 7, 10) + 1;
                float[] mean = new float[d];
                if (cell == 0) System.arraycopy(values, 0, mean, 0, d);
                else for (int i = 0; i < d; i++) {
                    float sum = 0;
                    for (int lane = 0; lane < lanes; lane++) sum += values[lane * d + i];
                    mean[i] = sum / lanes;
                }
                cells[position * (layers + 1) + cell] = mean;
            }
        });
        session.prefill(tokens);
        double[] pooled = pool(cells, tokens, layers + 1);
        double[] p = new double[out];
        double norm = 0;
        for (int o = 0; o < out; o++) {
            double s = bias[o];
            for (int i = 0; i < pooled.length; i++) s += proj[o * pooled.length + i] * pooled[i];
            p[o] = s;
            norm += s * s;
        }
        double denom = Math.sqrt(norm + 1e-12);
        for (int o = 0; o < out; o++) p[o] /= denom;
        return p;
    }

    private double[] pool(float[][] cells, int[] tokens, int perPosition) {
        double scale = Math.sqrt(d);
        double[] pooled = new double[probes * d];
        double[] scores = new double[cells.length];
        for (int k = 0; k < probes; k++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < cells.length; c++) {
                double s = Double.NEGATIVE_INFINITY;
                if (tokens[c / perPosition] != 0) { // PAD cells are excluded, as upstream's keep mask does
                    double dot = 0;
                    for (int i = 0; i < d; i++) dot += (double) cells[c][i] * probe[k * d + i];
                    s = dot / scale;
                }
                scores[c] = s;
                max = Math.max(max, s);
            }
            double sum = 0;
            for (int c = 0; c < cells.length; c++) {
                scores[c] = Math.exp(scores[c] - max);
                sum += scores[c];
            }
            for (int c = 0; c < cells.length; c++) {
                double w = scores[c] / sum;
                if (w == 0) continue;
                for (int i = 0; i < d; i++) pooled[k * d + i] += w * cells[c][i];
            }
        }
        return pooled;
    }
}
