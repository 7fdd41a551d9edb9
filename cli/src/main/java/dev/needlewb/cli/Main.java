package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.simd.VectorWidth;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The one entry point: {@code needle-wb <command>}. */
@Command(
        name = "needle-wb",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Convert, check and run Needle 2 models.",
        subcommands = {CommandLine.HelpCommand.class, DemoCommand.class, InspectCommand.class, NamesCommand.class,
            ConvertCommand.class, TokenizeCommand.class, ReferenceCommand.class, GenerateCommand.class, BenchCommand.class,
            ParityCommand.class, EvalCommand.class, StudyCommand.class, SweepCommand.class, CodebookCommand.class, TrainJvmCommand.class})
public final class Main implements Runnable {
    /** Exit code for a user error (bad file, bad option) or a failed file operation: one line on stderr, no stack trace. */
    public static final int EXIT_USER_ERROR = 2;
    /** Exit code for a bug in the workbench itself. */
    public static final int EXIT_INTERNAL_ERROR = 3;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        VectorBitsOption.applyEarly(args);
        try {
            VectorWidth.describe();
        } catch (ExceptionInInitializerError | IllegalArgumentException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            System.err.println("needle-wb: " + TerminalSafeWriter.escape(String.valueOf(cause.getMessage())));
            System.exit(EXIT_USER_ERROR);
        }
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /**
     * Runs one command line; returns the exit code. Used by tests with captured streams. Both
     * streams print control characters escaped ({@link TerminalSafeWriter}).
     */
    public static int run(String[] args, PrintWriter rawOut, PrintWriter rawErr) {
        PrintWriter out = new PrintWriter(new TerminalSafeWriter(rawOut), true);
        PrintWriter err = new PrintWriter(new TerminalSafeWriter(rawErr), true);
        CommandLine cli = new CommandLine(new Main());
        // picocli colours help on a terminal with escape sequences, which the writers would spell out
        cli.setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            err.println("needle-wb: " + describe(e));
            err.flush();
            return switch (e) {
                case WorkbenchException w -> exitCode(w.kind());
                case IOException io -> EXIT_USER_ERROR;
                default -> failInternal(e, err);
            };
        });
        cli.setParameterExceptionHandler((e, a) -> {
            err.println("needle-wb: " + TerminalSafeWriter.oneLine(e.getMessage()));
            err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            err.flush();
            return EXIT_USER_ERROR;
        });
        return cli.execute(args);
    }

    /**
     * The exit code for an error of {@code kind}, the one place kinds meet exit codes (docs/errors.md
     * lists them). Every kind is bad input or a failed file operation; a check that finds a problem
     * returns 1 from its command, and a bug (an exception outside {@link WorkbenchException}) exits 3.
     */
    static int exitCode(ErrorKind kind) {
        return switch (kind) {
            case IO, FILE_CHANGED, OUTPUT_CONFLICT -> EXIT_USER_ERROR;
            case TRUNCATED, TOO_LARGE, UNKNOWN_FORMAT, BAD_TAG, WRONG_GENERATION, BAD_HEADER_FIELD, NONZERO_RESERVED,
                    BAD_OFFSET, MISALIGNED, OVERLAP, TRAILING_BYTES, SHAPE_MISMATCH, UNSUPPORTED_DTYPE, NON_FINITE,
                    BAD_VALUE, BAD_CODE, UNSAFE_PICKLE_GLOBAL, BAD_PICKLE, BAD_ARCHIVE, BAD_TOKENIZER -> EXIT_USER_ERROR;
            case BAD_JSON, BAD_TEXT, BAD_SCHEMA, BAD_CONFIG, BAD_GEOMETRY, MISSING_KEY, UNKNOWN_KEY, MODEL_MISMATCH,
                    UNSUPPORTED -> EXIT_USER_ERROR;
            case BAD_OPTION, BAD_PROMPT, STEP_FAILED -> EXIT_USER_ERROR;
        };
    }

    /** The error's one line (a newline from input text is spelled out). */
    private static String describe(Exception e) {
        if (e instanceof NoSuchFileException n) return TerminalSafeWriter.oneLine(n.getFile() + ": no such file");
        if (e instanceof AccessDeniedException a) return TerminalSafeWriter.oneLine(a.getFile() + ": permission denied");
        return TerminalSafeWriter.oneLine(e.getMessage() == null ? e.toString() : e.getMessage());
    }

    private static int failInternal(Exception e, PrintWriter err) {
        err.println("needle-wb: internal error (please report it with this trace):");
        e.printStackTrace(err);
        err.flush();
        return EXIT_INTERNAL_ERROR;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"needle-wb " + (v == null ? "dev" : v) + " (Java " + Runtime.version() + ")"};
        }
    }
}
