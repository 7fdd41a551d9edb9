package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NpyExportTest {
    @Test
    void arraysKeepShapeAndRowMajorOrder() {
        assertThat(NpyExport.scalar(2.5).shape()).isEmpty();
        assertThat(NpyExport.vector(new double[] {1, 2}).asDoubles()).containsExactly(1, 2);
        var m = NpyExport.matrix(new double[][] {{1, 2, 3}, {4, 5, 6}});
        assertThat(m.shape()).containsExactly(2, 3);
        assertThat(m.asDoubles()).containsExactly(1, 2, 3, 4, 5, 6);
        var c = NpyExport.cube(new double[][][] {{{1, 2}}, {{3, 4}}});
        assertThat(c.shape()).containsExactly(2, 1, 2);
        assertThat(c.asDoubles()).containsExactly(1, 2, 3, 4);
        assertThatThrownBy(() -> NpyExport.matrix(new double[][] {{1}, {2, 3}})).isInstanceOf(IllegalArgumentException.class);
    }
}
