package dev.needlewb.converter.cact;

/** The dtype byte of a {@code .cact} directory record. */
public enum CactDType {
    FP16(1),
    FP32(2),
    CQ(3),
    RAW(4);

    private final int code;

    CactDType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The dtype with this code, or null if the code is unknown. */
    public static CactDType ofCode(int code) {
        for (CactDType t : values()) {
            if (t.code == code) return t;
        }
        return null;
    }
}
