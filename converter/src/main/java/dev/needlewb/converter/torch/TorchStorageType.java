package dev.needlewb.converter.torch;

import java.util.Arrays;
import java.util.Optional;

/**
 * PyTorch's typed storage classes ({@code torch.FloatStorage} ...) and the numpy dtype each maps
 * to. bfloat16 has no numpy dtype: it is read widened to float32 (exact, bfloat16 is the top half
 * of a float32) and never written.
 */
enum TorchStorageType {
    FLOAT("FloatStorage", "<f4", 4),
    DOUBLE("DoubleStorage", "<f8", 8),
    HALF("HalfStorage", "<f2", 2),
    BFLOAT16("BFloat16Storage", "<f4", 2),
    LONG("LongStorage", "<i8", 8),
    INT("IntStorage", "<i4", 4),
    SHORT("ShortStorage", "<i2", 2),
    CHAR("CharStorage", "|i1", 1),
    BYTE("ByteStorage", "|u1", 1),
    BOOL("BoolStorage", "|b1", 1);

    /** The class name in module {@code torch}. */
    final String className;
    /** The numpy dtype tensors of this storage are read as. */
    final String readDescr;
    /** Bytes per element in the storage file. */
    final int itemSize;

    TorchStorageType(String className, String readDescr, int itemSize) {
        this.className = className;
        this.readDescr = readDescr;
        this.itemSize = itemSize;
    }

    String qualifiedName() {
        return "torch." + className;
    }

    static Optional<TorchStorageType> byQualifiedName(String name) {
        return Arrays.stream(values()).filter(t -> t.qualifiedName().equals(name)).findFirst();
    }

    /** The storage a numpy array of {@code descr} is written as (bfloat16 never: no numpy dtype). */
    static Optional<TorchStorageType> forWriting(String descr) {
        return Arrays.stream(values()).filter(t -> t != BFLOAT16 && t.readDescr.equals(descr)).findFirst();
    }
}
