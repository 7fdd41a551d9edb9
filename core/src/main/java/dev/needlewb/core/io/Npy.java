package dev.needlewb.core.io;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The {@code .npy} format, version 1.0 (what numpy writes for ordinary arrays). */
public final class Npy {
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final Pattern DESCR = Pattern.compile("'descr':\\s*'([^']+)'");
    private static final Pattern FORTRAN = Pattern.compile("'fortran_order':\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape':\\s*\\(([^)]*)\\)");

    private Npy() {}

    public static NpyArray parse(byte[] bytes, String what) throws IOException {
        if (bytes.length < 10) throw new IOException(what + ": too short for an npy header");
        for (int i = 0; i < MAGIC.length; i++) {
            if (bytes[i] != MAGIC[i]) throw new IOException(what + ": not an npy file (bad magic)");
        }
        int major = bytes[6];
        int headerLen;
        int start;
        if (major == 1) {
            headerLen = (bytes[8] & 0xFF) | (bytes[9] & 0xFF) << 8;
            start = 10;
        } else if (major == 2 || major == 3) {
            if (bytes.length < 12) throw new IOException(what + ": truncated npy header");
            headerLen = (bytes[8] & 0xFF) | (bytes[9] & 0xFF) << 8 | (bytes[10] & 0xFF) << 16 | (bytes[11] & 0xFF) << 24;
            start = 12;
        } else {
            throw new IOException(what + ": unsupported npy version " + major);
        }
        if (headerLen < 0 || start + (long) headerLen > bytes.length) {
            throw new IOException(what + ": npy header runs past the end");
        }
        String header = new String(bytes, start, headerLen, StandardCharsets.ISO_8859_1);
        Matcher d = DESCR.matcher(header), f = FORTRAN.matcher(header), s = SHAPE.matcher(header);
        if (!d.find() || !f.find() || !s.find()) throw new IOException(what + ": malformed npy header " + header.strip());
        if (f.group(1).equals("True")) throw new IOException(what + ": Fortran-order npy arrays are not supported");
        String[] dims = s.group(1).split(",");
        int count = 0;
        for (String dim : dims) if (!dim.isBlank()) count++;
        int[] shape = new int[count];
        int k = 0;
        for (String dim : dims) if (!dim.isBlank()) shape[k++] = Integer.parseInt(dim.strip());
        int dataStart = start + headerLen;
        byte[] data = java.util.Arrays.copyOfRange(bytes, dataStart, bytes.length);
        try {
            return new NpyArray(d.group(1), shape, data);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IOException(what + ": " + e.getMessage(), e);
        }
    }

    public static byte[] serialize(NpyArray a) {
        StringBuilder shape = new StringBuilder("(");
        for (int d : a.shape()) shape.append(d).append(", ");
        if (a.shape().length == 1) shape.setLength(shape.length() - 1);
        else if (a.shape().length > 1) shape.setLength(shape.length() - 2);
        shape.append(')');
        String dict = "{'descr': '" + a.descr() + "', 'fortran_order': False, 'shape': " + shape + ", }";
        int unpadded = 10 + dict.length() + 1;
        int padded = (unpadded + 63) / 64 * 64;
        String header = dict + " ".repeat(padded - unpadded) + "\n";
        ByteArrayOutputStream out = new ByteArrayOutputStream(padded + a.data().length);
        out.writeBytes(MAGIC);
        out.write(1);
        out.write(0);
        out.write(header.length() & 0xFF);
        out.write(header.length() >>> 8);
        out.writeBytes(header.getBytes(StandardCharsets.ISO_8859_1));
        out.writeBytes(a.data());
        return out.toByteArray();
    }
}
