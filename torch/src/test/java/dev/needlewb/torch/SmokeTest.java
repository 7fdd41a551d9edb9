package dev.needlewb.torch;

import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDArray;
import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void runs() {
        System.setProperty("ai.djl.offline", "true");
        long t0 = System.nanoTime();
        try (NDManager m = NDManager.newBaseManager("PyTorch")) {
            NDArray a = m.create(new float[] {1, 2, 3, 4}, new ai.djl.ndarray.types.Shape(2, 2));
            System.out.println(a.matMul(a) + " " + (System.nanoTime() - t0) / 1e6 + " ms " + m.getEngine().getVersion());
        }
    }
}
