package dev.needlewb.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The one place the wording of a format error is the point: the one line users and docs quote is built from its fields. */
class FormatExceptionTest {
    @Test
    void theMessageNamesFileTensorAndOffsetItCarries() {
        FormatException e = new FormatException(ErrorKind.SHAPE_MISMATCH, Path.of("mini.cact"), 12, "layer00.d2", 57536,
                "nbytes 300, FP16 shape [128] needs 256");
        assertThat(e).hasMessage("mini.cact: tensor 12 (layer00.d2) at byte 57536: nbytes 300, FP16 shape [128] needs 256");
        assertThat(e.kind()).isEqualTo(ErrorKind.SHAPE_MISMATCH);
        assertThat(e.problem()).isEqualTo("nbytes 300, FP16 shape [128] needs 256");
    }

    @Test
    void partsThatDoNotApplyAreLeftOut() {
        assertThat(new FormatException(ErrorKind.TRUNCATED, Path.of("x.pkl"), 9, "pickle ends without STOP"))
                .hasMessage("x.pkl: at byte 9: pickle ends without STOP");
        assertThat(new FormatException(ErrorKind.MISSING_KEY, Path.of("x.pt"), 3, "w", FormatException.NO_OFFSET, "missing"))
                .hasMessage("x.pt: tensor 3 (w): missing");
        assertThat(new FormatException(ErrorKind.BAD_TOKENIZER, null, FormatException.NO_OFFSET, "no pieces"))
                .hasMessage("<memory>: no pieces");
    }
}
