package dev.needlewb.reports.convert;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the conversion manifest beside a file ({@code FILE.manifest.json}) describes it: the
 * output SHA-256 it records against the file's own. A manifest that does not match belongs to
 * another version of the file (written by another run, or the file was replaced since).
 */
public record ManifestCheck(Path manifest, Status status, String recorded, String detail) {
    /** Manifests are small (about 250 bytes per tensor); a larger file is not one. */
    static final long MAX_BYTES = 64L << 20;

    public enum Status {
        /** No manifest beside the file. */
        NONE,
        /** The manifest records this file's SHA-256. */
        MATCHES,
        /** The manifest records another SHA-256: it describes another file. */
        DIFFERS,
        /** A file of that name that is not a readable conversion manifest. */
        UNREADABLE
    }

    /** The manifest of the file {@code file} whose SHA-256 is {@code sha256}. */
    public static ManifestCheck of(Path file, String sha256) {
        Path manifest = file.resolveSibling(file.getFileName() + ".manifest.json");
        if (!Files.exists(manifest)) return new ManifestCheck(manifest, Status.NONE, null, "no manifest beside the file");
        try {
            if (Files.size(manifest) > MAX_BYTES) return unreadable(manifest, "larger than " + MAX_BYTES + " bytes");
            JsonNode recorded = Report.JSON.readTree(manifest.toFile()).at("/conversion/output/sha256");
            if (!recorded.isTextual()) return unreadable(manifest, "it records no conversion.output.sha256");
            String sha = recorded.asText();
            return sha.equals(sha256)
                    ? new ManifestCheck(manifest, Status.MATCHES, sha, "describes this file")
                    : new ManifestCheck(manifest, Status.DIFFERS, sha, "describes another file: it records sha256 " + sha
                            + ", this file's is " + sha256);
        } catch (IOException e) {
            return unreadable(manifest, e.getMessage());
        }
    }

    private static ManifestCheck unreadable(Path manifest, String why) {
        return new ManifestCheck(manifest, Status.UNREADABLE, null, "not a readable conversion manifest: " + why);
    }

    /** Whether nothing is wrong: no manifest, or one that matches. */
    public boolean consistent() {
        return status == Status.NONE || status == Status.MATCHES;
    }
}
