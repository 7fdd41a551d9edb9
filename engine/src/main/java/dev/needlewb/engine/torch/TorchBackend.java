package dev.needlewb.engine.torch;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.io.NpyArray;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The engine {@code torch}: the full-sequence forward on libtorch. It lives in the module {@code torch}
 * (jar {@code torch/target/needle-wb-torch.jar}, libtorch beside it in {@code lib/}); the default CLI jar
 * carries neither, and looks the backend up through {@link ServiceLoader} only when {@code --engine torch}
 * or {@code --prefill torch} asks for it, so no other command loads or extracts libtorch.
 */
public interface TorchBackend {
    /**
     * Checks every parameter the forward reads (present, shape, float dtype) and copies them into
     * libtorch as float32. {@code threads} is libtorch's intra-op thread count (process-wide: the
     * last load sets it); its OpenMP threads spin while they wait, so more threads than free cores
     * costs far more than it gains (measured 10x slower prefill with 2 threads on a loaded 2-core machine).
     *
     * {@code permutations}: a Needle 3 model's MLP gathers as its file stores them (null for Needle 2).
     *
     * @throws WorkbenchException one line naming the first bad key
     */
    TorchModel load(ModelGeometry geometry, Map<String, NpyArray> flaxParams, MlpPermutations permutations, int threads)
            throws WorkbenchException;

    /** What the engine runs on, for reports: e.g. "libtorch 2.7.1 (DJL 0.36.0, cpu)". */
    String describe();

    /** The backend on the class path, or a one-line error telling which jar has it. */
    static TorchBackend find() throws WorkbenchException {
        return ServiceLoader.load(TorchBackend.class).findFirst().orElseThrow(() -> new WorkbenchException(ErrorKind.UNSUPPORTED, 
                "the torch engine is not in this jar: build the module torch and run torch/target/needle-wb-torch.jar (NEEDLE_WB_TORCH=1 ./needle-wb)"
                        + " (it carries libtorch; the default needle-wb.jar does not)"));
    }
}
