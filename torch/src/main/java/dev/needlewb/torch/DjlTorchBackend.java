package dev.needlewb.torch;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.jni.JniUtils;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.engine.torch.MlpPermutations;
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
    private static volatile String waitPolicy;

    /** The service loader's constructor: nothing is loaded until {@link #load}. */
    public DjlTorchBackend() {}

    @Override
    public TorchModel load(ModelGeometry geometry, Map<String, NpyArray> flaxParams, MlpPermutations permutations, int threads)
            throws WorkbenchException {
        TorchShape shape = TorchShape.of(geometry);
        if (threads < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "the torch engine needs at least one thread, got " + threads);
        NDManager manager = NDManager.newBaseManager(engine());
        JniUtils.setNumThreads(threads);
        try {
            return new TorchForward(manager, shape, new TorchWeights(new FlaxTensors(flaxParams, manager), shape, permutations, manager));
        } catch (WorkbenchException | RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    @Override
    public String describe() {
        Engine engine = Engine.getEngine(engine());
        return "libtorch " + engine.getVersion() + " (DJL " + Engine.getDjlVersion() + ", cpu, float32, OpenMP wait policy " + waitPolicy + ")";
    }

    /** The engine's name, after the settings that must precede loading libtorch. */
    private static String engine() {
        System.setProperty("ai.djl.offline", "true");
        if (waitPolicy == null) waitPolicy = OpenMpWaitPolicy.passiveUnlessSet();
        return ENGINE;
    }
}
