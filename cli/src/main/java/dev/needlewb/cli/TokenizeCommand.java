package dev.needlewb.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.reports.report.Report;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "tokenize", mixinStandardHelpOptions = true,
        description = "Encode text to token ids, or decode ids to text, with the tokenizer stored in a .cact (upstream reference-encoder semantics).")
final class TokenizeCommand implements Callable<Integer> {
    @Parameters(paramLabel = "MODEL.cact")
    Path model;

    @ArgGroup(multiplicity = "1")
    Input input;

    static final class Input {
        @Option(names = "--text", paramLabel = "TEXT", description = "Text to encode (no BOS is added).")
        String text;

        @Option(names = "--ids", paramLabel = "1,2,3", split = ",", description = "Token ids to decode.")
        int[] ids;
    }

    @Option(names = "--json", description = "Print JSON (ids, pieces and text) instead of plain output.")
    boolean json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException {
        try (CactFile cact = CactFile.open(model, NonFinitePolicy.ALLOW)) { // its tokenizer only
            Tokenizer tokenizer = ModelTokenizer.of(cact);
            int[] ids = input.text != null ? input.text.isEmpty() ? new int[0] : tokenizer.encode(input.text) : input.ids;
            String text = input.text != null ? input.text : tokenizer.decode(ids);
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                ObjectNode node = Report.JSON.createObjectNode();
                node.put("text", text);
                ArrayNode idArray = node.putArray("ids");
                ArrayNode pieces = node.putArray("pieces");
                for (int id : ids) {
                    idArray.add(id);
                    pieces.add(tokenizer.vocab().piece(id));
                }
                out.println(node.toPrettyString());
            } else if (input.text != null) {
                out.println(String.join(",", Arrays.stream(ids).mapToObj(Integer::toString).toList()));
            } else {
                out.println(text);
            }
            out.flush();
        }
        return 0;
    }
}
