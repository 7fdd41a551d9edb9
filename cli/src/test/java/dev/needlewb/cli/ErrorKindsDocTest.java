package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/errors.md lists every kind once, with the exit code Main gives it. */
class ErrorKindsDocTest {
    private static final Pattern ROW = Pattern.compile("^\\| `([A-Z_]+)` \\| (\\d) \\|", Pattern.MULTILINE);

    @Test
    void theDocumentedExitCodeOfEachKindIsMains() throws Exception {
        String doc = Files.readString(Golden.projectRoot().resolve("docs/errors.md"));
        Map<String, Integer> documented = new TreeMap<>();
        for (Matcher m = ROW.matcher(doc); m.find(); ) {
            assertThat(documented.put(m.group(1), Integer.parseInt(m.group(2)))).as("%s listed twice", m.group(1)).isNull();
        }
        Map<String, Integer> mapped = new TreeMap<>();
        Arrays.stream(ErrorKind.values()).forEach(k -> mapped.put(k.name(), Main.exitCode(k)));
        assertThat(documented).isEqualTo(mapped);
    }
}
