package dev.needlewb.converter.flax;

/** Pickle opcodes of protocols 0 to 5 (CPython {@code Lib/pickle.py}), by byte value. */
final class PickleOp {
    static final int MARK = '(', STOP = '.', POP = '0', POP_MARK = '1', DUP = '2';
    static final int FLOAT = 'F', INT = 'I', BININT = 'J', BININT1 = 'K', LONG = 'L', BININT2 = 'M';
    static final int NONE = 'N', PERSID = 'P', BINPERSID = 'Q', REDUCE = 'R';
    static final int STRING = 'S', BINSTRING = 'T', SHORT_BINSTRING = 'U';
    static final int UNICODE = 'V', BINUNICODE = 'X';
    static final int APPEND = 'a', BUILD = 'b', GLOBAL = 'c', DICT = 'd', EMPTY_DICT = '}';
    static final int APPENDS = 'e', GET = 'g', BINGET = 'h', INST = 'i', LONG_BINGET = 'j';
    static final int LIST = 'l', EMPTY_LIST = ']', OBJ = 'o', PUT = 'p', BINPUT = 'q', LONG_BINPUT = 'r';
    static final int SETITEM = 's', TUPLE = 't', EMPTY_TUPLE = ')', SETITEMS = 'u', BINFLOAT = 'G';
    // protocol 2
    static final int PROTO = 0x80, NEWOBJ = 0x81, EXT1 = 0x82, EXT2 = 0x83, EXT4 = 0x84;
    static final int TUPLE1 = 0x85, TUPLE2 = 0x86, TUPLE3 = 0x87, NEWTRUE = 0x88, NEWFALSE = 0x89;
    static final int LONG1 = 0x8a, LONG4 = 0x8b;
    // protocol 3
    static final int BINBYTES = 'B', SHORT_BINBYTES = 'C';
    // protocol 4
    static final int SHORT_BINUNICODE = 0x8c, BINUNICODE8 = 0x8d, BINBYTES8 = 0x8e;
    static final int EMPTY_SET = 0x8f, ADDITEMS = 0x90, FROZENSET = 0x91, NEWOBJ_EX = 0x92;
    static final int STACK_GLOBAL = 0x93, MEMOIZE = 0x94, FRAME = 0x95;
    // protocol 5
    static final int BYTEARRAY8 = 0x96, NEXT_BUFFER = 0x97, READONLY_BUFFER = 0x98;

    static final int HIGHEST_PROTOCOL = 5;

    private PickleOp() {}
}
