package dev.needlewb.cli;

import dev.needlewb.cli.scale.ModelFile;
import dev.needlewb.cli.scale.SweepTask;
import dev.needlewb.cli.scale.TaskContext;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reports.study.IdempotenceResult;
import dev.needlewb.reports.study.StudyTargets;
import java.io.IOException;
import java.io.Serializable;
import java.util.List;

/** The idempotence study of one tensor: the file's study targets are opened once per partition. */
record IdempotenceTask(Setup setup, String tensor) implements SweepTask<IdempotenceResult> {
    /** The file and the study's settings, as {@code study idempotence} was given them. */
    record Setup(ModelFile input, List<String> tensors, String bits, Integer group, NonFinitePolicy nonFinite, int rounds) implements Serializable {
        Setup {
            tensors = List.copyOf(tensors);
        }
    }

    @Override
    public String resource() {
        return setup.input().sha256();
    }

    @Override
    public String group() {
        return tensor;
    }

    @Override
    public IdempotenceResult run(TaskContext context) throws WorkbenchException, IOException {
        StudyTargets targets = context.shared("targets " + setup.input().sha256(),
                () -> StudyTargets.open(context.local(setup.input()), setup.tensors(), setup.bits(), setup.group(), setup.nonFinite()));
        for (StudyTargets.Target t : targets.targets()) {
            if (t.name().equals(tensor)) return t.open().run(setup.rounds(), done -> {});
        }
        throw new WorkbenchException(ErrorKind.MISSING_KEY, setup.input().path() + ": no CQ tensor " + tensor + " to study here");
    }
}
