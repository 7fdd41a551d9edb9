package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.v2.V2Names;
import dev.needlewb.converter.v3.V3Names;
import dev.needlewb.core.v3.V3Geometry;
import dev.needlewb.converter.cact.CactGenerations;
import dev.needlewb.converter.names.BitsMap;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.reports.convert.NameTable;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "names", mixinStandardHelpOptions = true,
        description = "Print the name map: Flax path, canonical .cact name, PyTorch key, shapes, transform and storage of every tensor.")
final class NamesCommand implements Callable<Integer> {
    @Option(names = "--geometry", paramLabel = "needle2|mini|needle3|mini3|FILE.cact|CKPT.pkl", defaultValue = "needle2",
            description = {"The model: a named geometry in its released layout (Needle 2: both probe heads; Needle 3: the confidence head),",
                "a .cact or a checkpoint of either generation (default: ${DEFAULT-VALUE})."})
    String geometry;

    @Option(names = "--bits-map", paramLabel = "SPEC",
            description = "CQ widths shown for the matrices (default: the generation's exporter: Needle 2 embedding=4,mhc=4,default=2, Needle 3 4).")
    String bitsMap;

    @Option(names = "--compact", description = "Show layer 0 only, with N for the layer index.")
    boolean compact;

    @Option(names = "--json", description = "Print JSON instead of Markdown.")
    boolean json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException {
        NameMap names = load();
        BitsMap bits = bitsMap != null ? BitsMap.parse(bitsMap) : CactGenerations.of(names.geometry().generation()).defaultBits();
        NameTable table = new NameTable(names, bits, compact);
        spec.commandLine().getOut().print(json ? table.json() : table.markdown());
        spec.commandLine().getOut().flush();
        return 0;
    }

    private NameMap load() throws WorkbenchException {
        switch (geometry.toLowerCase(Locale.ROOT)) {
            case "needle2" -> {
                return V2Names.released(Geometry.needle2());
            }
            case "mini" -> {
                return V2Names.released(Geometry.mini());
            }
            case "needle3" -> {
                return V3Names.released(V3Geometry.released());
            }
            case "mini3" -> {
                return V3Names.released(V3Geometry.mini());
            }
            default -> {
                Path file = Path.of(geometry);
                if (geometry.toLowerCase(Locale.ROOT).endsWith(".cact")) {
                    try (CactFile f = CactFile.open(file, NonFinitePolicy.ALLOW)) { // its geometry only
                        return WeightSources.namesOf(f);
                    }
                }
                if (geometry.endsWith(".pkl") || geometry.endsWith(".ckpt")) return WeightSources.namesOfCheckpoint(file);
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "--geometry " + geometry + ": expected needle2, mini, needle3, mini3, a .cact or a checkpoint .pkl");
            }
        }
    }
}
