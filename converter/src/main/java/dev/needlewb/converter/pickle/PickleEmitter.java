package dev.needlewb.converter.pickle;

import static dev.needlewb.converter.pickle.PickleOp.*;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Emits pickle opcodes for scalars, strings, bytes and globals, and keeps the memo, at protocol 2
 * or 4. The protocol decides the spelling: protocol 4 writes {@code SHORT_BINUNICODE},
 * {@code STACK_GLOBAL} and {@code MEMOIZE} as the pickle module does; protocol 2 writes
 * {@code BINUNICODE}, {@code GLOBAL} and {@code BINPUT}, the subset PyTorch's
 * {@code weights_only} unpickler (torch 1.13) understands. Containers are the caller's: it writes
 * their opcodes with {@link #op}.
 */
public final class PickleEmitter {
    private final OutputStream out;
    private final int protocol;
    private final Map<String, Long> memo = new HashMap<>();
    private long memoSize;

    public PickleEmitter(OutputStream out, int protocol) {
        if (protocol != 2 && protocol != 4) throw new IllegalArgumentException("protocol " + protocol + " (2 or 4 only)");
        this.out = out;
        this.protocol = protocol;
    }

    /** {@code PROTO n}, the first opcode of a pickle. */
    public void proto() throws IOException {
        out.write(PROTO);
        out.write(protocol);
    }

    /** One opcode without operands. */
    public void op(int opcode) throws IOException {
        out.write(opcode);
    }

    /** Pushes a global, memoized and fetched again with a GET the next time. */
    public void global(String module, String name) throws IOException {
        String key = "global:" + module + "." + name;
        if (fetch(key)) return;
        if (protocol >= 4) {
            writeString(module);
            writeString(name);
            out.write(STACK_GLOBAL);
        } else {
            out.write(GLOBAL);
            out.write((module + "\n" + name + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        remember(key);
    }

    /** Pushes the object memoized under {@code key} again; false if there is none yet. */
    public boolean fetch(String key) throws IOException {
        Long index = memo.get(key);
        if (index == null) return false;
        if (index < 256) {
            out.write(BINGET);
            out.write(index.intValue());
        } else {
            out.write(LONG_BINGET);
            writeLe(index, 4);
        }
        return true;
    }

    /** Memoizes the top of the stack under {@code key} for {@link #fetch}. */
    public void remember(String key) throws IOException {
        memo.put(key, memoSize);
        memoize();
    }

    /** Memoizes the top of the stack (as the pickle module does for every container). */
    public void memoize() throws IOException {
        if (protocol >= 4) {
            out.write(MEMOIZE);
        } else if (memoSize < 256) {
            out.write(BINPUT);
            out.write((int) memoSize);
        } else {
            out.write(LONG_BINPUT);
            writeLe(memoSize, 4);
        }
        memoSize++;
    }

    public void writeLong(long v) throws IOException {
        if (v >= 0 && v < 256) {
            out.write(BININT1);
            out.write((int) v);
        } else if (v >= 0 && v < 65536) {
            out.write(BININT2);
            writeLe(v, 2);
        } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            out.write(BININT);
            writeLe(v, 4);
        } else {
            writeBigInteger(BigInteger.valueOf(v));
        }
    }

    /** LONG1: little-endian two's complement of the minimal length. */
    public void writeBigInteger(BigInteger v) throws IOException {
        byte[] be = v.toByteArray();
        if (be.length > 255) throw new IllegalArgumentException("integer too large to pickle: " + v);
        out.write(LONG1);
        out.write(be.length);
        for (int i = be.length - 1; i >= 0; i--) out.write(be[i]);
    }

    /** BINFLOAT is big-endian IEEE 754 double. */
    public void writeDouble(double d) throws IOException {
        out.write(BINFLOAT);
        long bits = Double.doubleToRawLongBits(d);
        for (int i = 7; i >= 0; i--) out.write((int) (bits >>> (8 * i)));
    }

    public void writeString(String s) throws IOException {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (utf8.length < 256 && protocol >= 4) {
            out.write(SHORT_BINUNICODE);
            out.write(utf8.length);
        } else {
            out.write(BINUNICODE);
            writeLe(utf8.length, 4);
        }
        out.write(utf8);
    }

    /** Bytes opcodes exist from protocol 3 on. */
    public void writeBytes(byte[] b) throws IOException {
        if (protocol < 3) throw new IllegalArgumentException("protocol " + protocol + " has no bytes opcode");
        if (b.length < 256) {
            out.write(SHORT_BINBYTES);
            out.write(b.length);
        } else {
            out.write(BINBYTES);
            writeLe(b.length, 4);
        }
        out.write(b);
    }

    private void writeLe(long v, int bytes) throws IOException {
        for (int i = 0; i < bytes; i++) out.write((int) (v >>> (8 * i)));
    }
}
