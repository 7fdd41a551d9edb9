package dev.needlewb.torch;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.jni.JniUtils;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.engine.torch.TorchBackend;
import dev.needlewb.engine.torch.TorchModel;
import java.util.Map;

/**
 * The torch engine on DJL's PyTorch engine. libtorch comes from the pytorch-native-cpu jar on the
 * class path, extracted by DJL on first use into its cache ({@code ~/.djl.ai/pytorch}, or
 * {@code ENGINE_CACHE_DIR}); {@code ai.djl.offline} is set so that DJL never tries to download one.
 */
public final class DjlTorchBackend implements TorchBackend {
    private static final String ENGINE = "PyTorch";

    /** The service loader's constructor: nothing is loaded until {@link #load}. */
    public DjlTorchBackend() {}

    @Override
    public TorchModel load(Geometry geometry, Map<String, NpyArray> flaxParams, int threads) throws WorkbenchException {
        if (geometry.repeatedSite() >= 0) {
            throw new WorkbenchException(ErrorKind.UNSUPPORTED, "geometry: engram site " + geometry.repeatedSite() + " repeats a layer: the torch engine"
                    + " injects one site per layer, as the reference does");
        }
        if (threads < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "the torch engine needs at least one thread, got " + threads);
        NDManager manager = NDManager.newBaseManager(engine());
        JniUtils.setNumThreads(threads);
        try {
            return new TorchForward(manager, geometry, new TorchWeights(new FlaxTensors(flaxParams, manager), geometry, manager));
        } catch (WorkbenchException | RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    @Override
    public String describe() {
        Engine engine = Engine.getEngine(engine());
        return "libtorch " + engine.getVersion() + " (DJL " + Engine.getDjlVersion() + ", cpu, float32)";
    }

    private static String engine() {
        System.setProperty("ai.djl.offline", "true");
        return ENGINE;
    }
}
