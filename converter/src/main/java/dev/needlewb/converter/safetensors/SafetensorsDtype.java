package dev.needlewb.converter.safetensors;

import java.util.Optional;

/** Safetensors dtype names and the numpy descriptor each is read into. BF16 is widened to float32. */
enum SafetensorsDtype {
    F64("<f8", 8), F32("<f4", 4), F16("<f2", 2), BF16("<f4", 2),
    I64("<i8", 8), I32("<i4", 4), I16("<i2", 2), I8("|i1", 1), U8("|u1", 1), BOOL("|b1", 1);

    final String descr;
    final int storedBytes;

    SafetensorsDtype(String descr, int storedBytes) {
        this.descr = descr;
        this.storedBytes = storedBytes;
    }

    static Optional<SafetensorsDtype> named(String name) {
        for (SafetensorsDtype d : values()) if (d.name().equals(name)) return Optional.of(d);
        return Optional.empty();
    }

    static Optional<SafetensorsDtype> forDescr(String descr) {
        for (SafetensorsDtype d : values()) if (d != BF16 && d.descr.equals(descr)) return Optional.of(d);
        return Optional.empty();
    }
}
