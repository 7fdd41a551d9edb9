package dev.needlewb.reports.report;

import dev.needlewb.converter.cact.CactFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** An input a report depends on, identified by its SHA-256 so a reader can tell exactly which file it was. */
public record InputFile(String role, Path path, long bytes, String sha256) {

    /** The .cact as it was read, so a report names the bytes a run used even if the file changed since. */
    public static InputFile of(String role, CactFile file) {
        return new InputFile(role, file.path().toAbsolutePath().normalize(), file.fileBytes(), file.sha256());
    }

    /** This file's content reported under another path: a staged output under the name it is committed to. */
    public InputFile at(Path shown) {
        return new InputFile(role, shown.toAbsolutePath().normalize(), bytes, sha256);
    }

    public static InputFile of(String role, Path path) throws IOException {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        long n = 0;
        byte[] buf = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(path)) {
            for (int r; (r = in.read(buf)) > 0; n += r) sha.update(buf, 0, r);
        }
        return new InputFile(role, path.toAbsolutePath().normalize(), n, HexFormat.of().formatHex(sha.digest()));
    }
}
