package dev.needlewb.cli;

import dev.needlewb.cli.scale.ModelFile;
import dev.needlewb.cli.scale.SweepTask;
import dev.needlewb.cli.scale.TaskContext;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reference.ReferenceForward;
import dev.needlewb.reports.parity.EngineMode;
import dev.needlewb.reports.parity.Parity;
import dev.needlewb.reports.parity.ParityEngines;
import dev.needlewb.reports.parity.PromptParity;
import dev.needlewb.reports.parity.ToleranceProfile;
import java.io.IOException;
import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * One prompt through one engine of one model, against the float64 reference, as {@code parity}
 * judges it. The model, its reference (the model's weights dequantized and widened) and each engine
 * are opened once per partition, and a partition holds one model's tasks only; all engines of a prompt run
 * one after another.
 *
 * @param model  index into the setup's models
 * @param tokens the prompt's ids under this model's tokenizer (checked by the driver)
 */
record ParityPromptTask(Setup setup, int model, EngineMode engine, int prompt, int[] tokens) implements SweepTask<PromptParity> {
    /**
     * What every task of one sweep shares.
     *
     * @param profile     a built-in profile's name for every engine, or null: the profile file, or else each engine's default
     * @param profileFile a tolerance profile file (null: none)
     */
    record Setup(List<ModelFile> models, NonFinitePolicy nonFinite, boolean quant, String profile, ModelFile profileFile) implements Serializable {
        Setup {
            models = List.copyOf(models);
        }
    }

    /** A model file open with the float64 reference over its own weights and the engines, each loaded once for the partition. */
    private record OpenModel(CactFile cact, ReferenceForward reference, ParityEngines engines) implements AutoCloseable {
        @Override
        public void close() {
            engines.close();
            cact.close();
        }
    }

    @Override
    public String resource() {
        return "model " + model;
    }

    @Override
    public String group() {
        return "prompt " + prompt;
    }

    @Override
    public PromptParity run(TaskContext context) throws WorkbenchException, IOException {
        var local = context.local(setup.models().get(model));
        OpenModel open = context.shared("model", () -> {
            CactFile cact = CactFile.open(local, setup.nonFinite());
            try {
                // Any prompt the driver let through fits max_seq_len; the engines' caches grow with the positions reached.
                return new OpenModel(cact, ModelSource.of(cact).reference(), new ParityEngines(cact, null, 0, 0, cact.geometry().maxSeqLen()));
            } catch (WorkbenchException | RuntimeException e) {
                cact.close();
                throw e;
            }
        });
        ToleranceProfile profile = ToleranceProfile.resolve(setup.profileFile() != null ? context.local(setup.profileFile()).toString()
                : setup.profile() != null ? setup.profile() : engine.reference(setup.quant(), open.cact().geometry().generation()).defaultProfile());
        var reference = new Parity.ReferenceRun(open.reference(), null, Map.of(engine, profile));
        // No window: the driver refused prompts longer than a Needle 2 model's kv_window; Needle 3 attends through its own mask.
        return PromptParity.of(Parity.run(List.of(reference), open.cact(), open.engines(), tokens, 0, 0, List.of(engine), setup.quant())
                .againstReference().getFirst());
    }
}
