package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.v2.V2Names;
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
    @Option(names = "--geometry", paramLabel = "needle2|mini|FILE.cact|CKPT.pkl", defaultValue = "needle2",
            description = "The model: a named geometry (released layout, both probe heads), a .cact or a checkpoint (default: ${DEFAULT-VALUE}).")
    String geometry;

    @Option(names = "--bits-map", paramLabel = "SPEC", defaultValue = "embedding=4,mhc=4,default=2",
            description = "CQ widths shown for the matrices (default: ${DEFAULT-VALUE}).")
    String bitsMap;

    @Option(names = "--compact", description = "Show layer 0 only, with N for the layer index.")
    boolean compact;

    @Option(names = "--json", description = "Print JSON instead of Markdown.")
    boolean json;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException {
        BitsMap bits = BitsMap.parse(bitsMap);
        NameTable table = new NameTable(load(), bits, compact);
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
            default -> {
                Path file = Path.of(geometry);
                if (geometry.toLowerCase(Locale.ROOT).endsWith(".cact")) {
                    try (CactFile f = CactFile.open(file, NonFinitePolicy.ALLOW)) { // its geometry only
                        return WeightSources.namesOf(f);
                    }
                }
                if (geometry.endsWith(".pkl") || geometry.endsWith(".ckpt")) return WeightSources.namesOf(FlaxCheckpointReader.read(file, true, NonFinitePolicy.ALLOW));
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "--geometry " + geometry + ": expected needle2, mini, a .cact or a checkpoint .pkl");
            }
        }
    }
}
