package dev.needlewb.converter.cq;

/**
 * A CQ-quantized matrix before bit packing: one code per element, row-major {@code [rows][inPad]}
 * (the padding columns of the last group included; ternary codes are trit indices 0, 1, 2 into
 * the codebook) and the float16 bit patterns of the group norms, row-major
 * {@code [rows][groupsPerRow]}.
 */
public record CqCodes(int rows, int cols, int recordBits, int group, byte[] codes, short[] norms) {

    public CqCodes {
        if (rows < 0 || cols < 0 || group <= 0) {
            throw new IllegalArgumentException("bad CQ shape [" + rows + ", " + cols + "] group " + group);
        }
        int groups = (cols + group - 1) / group;
        if ((long) rows * groups * group != codes.length || (long) rows * groups != norms.length) {
            throw new IllegalArgumentException("CQ [" + rows + ", " + cols + "] group " + group + " needs "
                    + (long) rows * groups * group + " codes and " + (long) rows * groups + " norms, got "
                    + codes.length + " and " + norms.length);
        }
    }

    /** Columns rounded up to a whole number of groups. */
    public int inPad() {
        return groupsPerRow() * group;
    }

    public int groupsPerRow() {
        return (cols + group - 1) / group;
    }

    /** The code of element (row, col), col < inPad. */
    public int code(int row, int col) {
        return codes[row * inPad() + col];
    }

    /** The float16 bits of the norm of group {@code g} of {@code row}. */
    public short norm(int row, int g) {
        return norms[row * groupsPerRow() + g];
    }
}
