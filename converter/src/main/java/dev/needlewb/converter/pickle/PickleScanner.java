package dev.needlewb.converter.pickle;

import static dev.needlewb.converter.pickle.PickleOp.*;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Walks a pickle's opcode stream without executing anything. It keeps an abstract stack (what
 * kind of value each slot holds, and the text of strings) so that it can name every global the
 * pickle would import, including {@code STACK_GLOBAL} whose operands come from strings pushed
 * earlier or fetched from the memo. Every length is bounded by the bytes left in the file.
 *
 * <p>Refused, with the file and the byte offset of the opcode: a global outside the allow-list,
 * unknown opcodes, truncation, a call ({@code REDUCE}/{@code NEWOBJ}) on anything but a named
 * global, a {@code BUILD} on anything but a constructed object, persistent ids, the extension
 * registry, out-of-band buffers, the protocol 0/1 instance opcodes {@code INST} and {@code OBJ},
 * container keys that are not strings or numbers, stack underflow, unknown memo entries and
 * bytes after {@code STOP}. {@link Rules} say which globals may occur and whether binary
 * persistent ids (PyTorch's storage references, a tuple each) are accepted.
 */
public final class PickleScanner {

    /** One global the pickle names, with the offset of the opcode that names it. */
    public record GlobalRef(String module, String name, long offset) {
        public String qualifiedName() {
            return module + "." + name;
        }
    }

    /**
     * What a pickle may contain: the qualified names {@code module.name} of the globals it may
     * name, a phrase saying what they are (for the refusal message), and whether {@code BINPERSID}
     * with a tuple operand may occur.
     */
    public record Rules(Set<String> allowedGlobals, String allowedSummary, boolean persistentIds) {
        public Rules {
            allowedGlobals = Set.copyOf(allowedGlobals);
        }
    }

    /** The result of a successful scan: the protocol from {@code PROTO} (0 if absent) and every global named. */
    public record Scan(int protocol, List<GlobalRef> globals) {
        public Scan {
            globals = List.copyOf(globals);
        }
    }

    /** Python refuses to parse integers longer than this many digits (sys.int_info.default_max_str_digits). */
    private static final int MAX_INT_DIGITS = 4300;
    /** Far beyond any checkpoint (a SETITEMS batch holds 2000 values), low enough to bound memory. */
    private static final int MAX_ENTRIES = 1 << 24;

    private enum Kind { MARK, TEXT, SCALAR, GLOBAL, TUPLE, LIST, DICT, SET, OBJECT }

    /** One abstract stack slot; {@code text} holds a string's value, {@code global} a global's reference. */
    private record Item(Kind kind, String text, GlobalRef global) {
        static final Item MARK_ITEM = new Item(Kind.MARK, null, null);
        static final Item SCALAR_ITEM = new Item(Kind.SCALAR, null, null);

        static Item of(Kind kind) {
            return new Item(kind, null, null);
        }

        boolean isKey() {
            return kind == Kind.TEXT || kind == Kind.SCALAR;
        }
    }

    private final Path file;
    private final byte[] data;
    private final Rules rules;
    private final List<Item> stack = new ArrayList<>();
    private final Map<Long, Item> memo = new HashMap<>();
    private final List<GlobalRef> globals = new ArrayList<>();
    private int pos;
    private int opStart;
    private int protocol;

    private PickleScanner(Path file, byte[] data, Rules rules) {
        this.file = file;
        this.data = data;
        this.rules = rules;
    }

    /**
     * Scans {@code data} (the whole pickle); {@code file} names it in errors. A global outside
     * the rules' allow-list is refused at the offset of the opcode naming it.
     */
    public static Scan scan(Path file, byte[] data, Rules rules) throws FormatException {
        PickleScanner s = new PickleScanner(file, data, rules);
        s.run();
        return new Scan(s.protocol, s.globals);
    }

    private void run() throws FormatException {
        if (data.length == 0) throw new FormatException(ErrorKind.TRUNCATED, file, 0, "empty file, not a pickle");
        while (true) {
            if (pos >= data.length) throw fail(ErrorKind.TRUNCATED, pos, "pickle ends without STOP (truncated)");
            opStart = pos;
            int op = data[pos++] & 0xFF;
            if (op == STOP) {
                Item top = pop("STOP");
                if (top.kind == Kind.MARK) throw fail(ErrorKind.BAD_PICKLE, "STOP with a MARK on top of the stack");
                if (pos != data.length) throw fail(ErrorKind.TRAILING_BYTES, pos, (data.length - pos) + " bytes after STOP");
                return;
            }
            step(op);
        }
    }

    private void step(int op) throws FormatException {
        switch (op) {
            case PROTO -> {
                int v = u8();
                if (v > HIGHEST_PROTOCOL) throw fail(ErrorKind.UNSUPPORTED, "unsupported pickle protocol " + v);
                protocol = v;
            }
            case FRAME -> {
                long n = u64();
                if (n > remaining()) throw fail(ErrorKind.TRUNCATED, "FRAME of " + n + " bytes runs past the end (" + remaining() + " bytes left)");
            }
            case MARK -> push(Item.MARK_ITEM);
            case POP -> pop("POP");
            case POP_MARK -> popToMark("POP_MARK");
            case DUP -> push(peekValue("DUP"));
            case NONE, NEWTRUE, NEWFALSE -> push(Item.SCALAR_ITEM);
            case BININT -> { skip(4); push(Item.SCALAR_ITEM); }
            case BININT1 -> { skip(1); push(Item.SCALAR_ITEM); }
            case BININT2 -> { skip(2); push(Item.SCALAR_ITEM); }
            case BINFLOAT -> { skip(8); push(Item.SCALAR_ITEM); }
            case LONG1 -> { skip(u8()); push(Item.SCALAR_ITEM); }
            case LONG4 -> { skip(signedLength32("LONG4")); push(Item.SCALAR_ITEM); }
            case INT, LONG -> {
                String line = line();
                if (line.length() > MAX_INT_DIGITS + 2) throw fail(ErrorKind.TOO_LARGE, "integer literal longer than " + MAX_INT_DIGITS + " digits");
                if (!line.matches("[+-]?[0-9]+L?")) throw fail(ErrorKind.BAD_PICKLE, "malformed integer literal");
                push(Item.SCALAR_ITEM);
            }
            case FLOAT -> {
                if (line().isBlank()) throw fail(ErrorKind.BAD_PICKLE, "empty float literal");
                push(Item.SCALAR_ITEM);
            }
            case STRING -> {
                String s = line();
                if (s.length() < 2 || (s.charAt(0) != '\'' && s.charAt(0) != '"') || s.charAt(s.length() - 1) != s.charAt(0)) {
                    throw fail(ErrorKind.BAD_PICKLE, "malformed STRING literal");
                }
                push(Item.SCALAR_ITEM);
            }
            case BINSTRING -> { skip(signedLength32("BINSTRING")); push(Item.SCALAR_ITEM); }
            case SHORT_BINSTRING -> { skip(u8()); push(Item.SCALAR_ITEM); }
            case BINBYTES -> { skip(u32()); push(Item.SCALAR_ITEM); }
            case SHORT_BINBYTES -> { skip(u8()); push(Item.SCALAR_ITEM); }
            case BINBYTES8, BYTEARRAY8 -> { skip(length64()); push(Item.SCALAR_ITEM); }
            case UNICODE -> push(text(line()));
            case BINUNICODE -> push(text(utf8(u32())));
            case SHORT_BINUNICODE -> push(text(utf8(u8())));
            case BINUNICODE8 -> push(text(utf8(length64())));
            case EMPTY_TUPLE -> push(Item.of(Kind.TUPLE));
            case TUPLE1, TUPLE2, TUPLE3 -> {
                for (int i = 0; i < op - TUPLE1 + 1; i++) popValue("TUPLE");
                push(Item.of(Kind.TUPLE));
            }
            case TUPLE -> { popToMark("TUPLE"); push(Item.of(Kind.TUPLE)); }
            case EMPTY_LIST -> push(Item.of(Kind.LIST));
            case LIST -> { popToMark("LIST"); push(Item.of(Kind.LIST)); }
            case EMPTY_DICT -> push(Item.of(Kind.DICT));
            case DICT -> { checkPairs(popToMark("DICT")); push(Item.of(Kind.DICT)); }
            case EMPTY_SET -> push(Item.of(Kind.SET));
            case FROZENSET -> { checkKeys(popToMark("FROZENSET")); push(Item.of(Kind.SET)); }
            case APPEND -> { popValue("APPEND"); expectTarget("APPEND", Kind.LIST); }
            case APPENDS -> { popToMark("APPENDS"); expectTarget("APPENDS", Kind.LIST); }
            case SETITEM -> {
                popValue("SETITEM");
                if (!popValue("SETITEM").isKey()) throw fail(ErrorKind.BAD_PICKLE, "SETITEM with a key that is not a string or number");
                expectTarget("SETITEM", Kind.DICT);
            }
            case SETITEMS -> { checkPairs(popToMark("SETITEMS")); expectTarget("SETITEMS", Kind.DICT); }
            case ADDITEMS -> { checkKeys(popToMark("ADDITEMS")); expectTarget("ADDITEMS", Kind.SET); }
            case GLOBAL -> {
                String module = line();
                String name = line();
                push(global(module, name));
            }
            case STACK_GLOBAL -> {
                Item name = popValue("STACK_GLOBAL");
                Item module = popValue("STACK_GLOBAL");
                if (module.kind != Kind.TEXT || name.kind != Kind.TEXT) {
                    throw fail(ErrorKind.BAD_PICKLE, "STACK_GLOBAL operands are not two strings");
                }
                push(global(module.text, name.text));
            }
            case INST -> {
                global(line(), line());
                throw fail(ErrorKind.UNSUPPORTED, "INST (protocol 0 instance creation) is not supported");
            }
            case OBJ -> throw fail(ErrorKind.UNSUPPORTED, "OBJ (protocol 1 instance creation) is not supported");
            case REDUCE, NEWOBJ -> {
                Item args = popValue("REDUCE");
                Item callable = popValue("REDUCE");
                if (callable.kind != Kind.GLOBAL) throw fail(ErrorKind.BAD_PICKLE, "call on something that is not a named global");
                if (args.kind != Kind.TUPLE) throw fail(ErrorKind.BAD_PICKLE, "call arguments are not a tuple");
                push(Item.of(Kind.OBJECT));
            }
            case NEWOBJ_EX -> {
                Item kwargs = popValue("NEWOBJ_EX");
                Item args = popValue("NEWOBJ_EX");
                Item cls = popValue("NEWOBJ_EX");
                if (cls.kind != Kind.GLOBAL || args.kind != Kind.TUPLE || kwargs.kind != Kind.DICT) {
                    throw fail(ErrorKind.BAD_PICKLE, "NEWOBJ_EX needs a global, a tuple and a dict");
                }
                push(Item.of(Kind.OBJECT));
            }
            case BUILD -> {
                popValue("BUILD");
                if (peekValue("BUILD").kind != Kind.OBJECT) throw fail(ErrorKind.BAD_PICKLE, "BUILD on something that is not a constructed object");
            }
            case PUT -> memoPut(memoIndex(line()), peekValue("PUT"));
            case BINPUT -> memoPut(u8(), peekValue("BINPUT"));
            case LONG_BINPUT -> memoPut(u32(), peekValue("LONG_BINPUT"));
            case MEMOIZE -> memoPut(memo.size(), peekValue("MEMOIZE"));
            case GET -> push(memoGet(memoIndex(line())));
            case BINGET -> push(memoGet(u8()));
            case LONG_BINGET -> push(memoGet(u32()));
            case BINPERSID -> {
                if (!rules.persistentIds()) throw fail(ErrorKind.UNSAFE_PICKLE_GLOBAL, "persistent ids (external object references) are not allowed");
                if (popValue("BINPERSID").kind != Kind.TUPLE) throw fail(ErrorKind.BAD_PICKLE, "persistent id that is not a tuple");
                push(Item.of(Kind.OBJECT));
            }
            case PERSID -> throw fail(ErrorKind.UNSAFE_PICKLE_GLOBAL, "persistent ids (external object references) are not allowed");
            case EXT1, EXT2, EXT4 -> throw fail(ErrorKind.UNSAFE_PICKLE_GLOBAL, "extension-registry globals are not allowed");
            case NEXT_BUFFER, READONLY_BUFFER -> throw fail(ErrorKind.UNSUPPORTED, "out-of-band buffers are not supported");
            default -> throw fail(ErrorKind.BAD_PICKLE, String.format("unknown pickle opcode 0x%02x", op));
        }
    }

    private Item global(String module, String name) throws FormatException {
        GlobalRef ref = new GlobalRef(module, name, opStart);
        if (name.indexOf('.') >= 0 || !rules.allowedGlobals().contains(ref.qualifiedName())) {
            throw fail(ErrorKind.UNSAFE_PICKLE_GLOBAL, "pickle global " + ref.qualifiedName() + " is not allowed (only " + rules.allowedSummary() + " may occur)");
        }
        globals.add(ref);
        return new Item(Kind.GLOBAL, null, ref);
    }

    private static Item text(String s) {
        return new Item(Kind.TEXT, s, null);
    }

    private void push(Item item) throws FormatException {
        if (stack.size() >= MAX_ENTRIES) throw fail(ErrorKind.TOO_LARGE, "stack deeper than " + MAX_ENTRIES + " entries");
        stack.add(item);
    }

    private Item pop(String op) throws FormatException {
        if (stack.isEmpty()) throw fail(ErrorKind.BAD_PICKLE, op + " on an empty stack");
        return stack.removeLast();
    }

    private Item popValue(String op) throws FormatException {
        Item item = pop(op);
        if (item.kind == Kind.MARK) throw fail(ErrorKind.BAD_PICKLE, op + " needs more values above the last MARK");
        return item;
    }

    private Item peekValue(String op) throws FormatException {
        if (stack.isEmpty() || stack.getLast().kind == Kind.MARK) throw fail(ErrorKind.BAD_PICKLE, op + " with no value on the stack");
        return stack.getLast();
    }

    private List<Item> popToMark(String op) throws FormatException {
        int mark = stack.lastIndexOf(Item.MARK_ITEM);
        if (mark < 0) throw fail(ErrorKind.BAD_PICKLE, op + " without a MARK");
        List<Item> items = new ArrayList<>(stack.subList(mark + 1, stack.size()));
        stack.subList(mark, stack.size()).clear();
        return items;
    }

    private void expectTarget(String op, Kind container) throws FormatException {
        Kind k = peekValue(op).kind;
        if (k != container && k != Kind.OBJECT) throw fail(ErrorKind.BAD_PICKLE, op + " on a " + k.name().toLowerCase() + ", not a " + container.name().toLowerCase());
    }

    private void checkPairs(List<Item> items) throws FormatException {
        if (items.size() % 2 != 0) throw fail(ErrorKind.BAD_PICKLE, "odd number of items for a dict");
        for (int i = 0; i < items.size(); i += 2) {
            if (!items.get(i).isKey()) throw fail(ErrorKind.BAD_PICKLE, "dict key that is not a string or number");
        }
    }

    private void checkKeys(List<Item> items) throws FormatException {
        for (Item item : items) if (!item.isKey()) throw fail(ErrorKind.BAD_PICKLE, "set element that is not a string or number");
    }

    private void memoPut(long index, Item item) throws FormatException {
        if (memo.size() >= MAX_ENTRIES && !memo.containsKey(index)) throw fail(ErrorKind.TOO_LARGE, "memo larger than " + MAX_ENTRIES + " entries");
        memo.put(index, item);
    }

    private Item memoGet(long index) throws FormatException {
        Item item = memo.get(index);
        if (item == null) throw fail(ErrorKind.BAD_PICKLE, "memo entry " + index + " was never stored");
        return item;
    }

    private long memoIndex(String line) throws FormatException {
        try {
            return Long.parseLong(line);
        } catch (NumberFormatException e) {
            throw fail(ErrorKind.BAD_PICKLE, "malformed memo index");
        }
    }

    private int remaining() {
        return data.length - pos;
    }

    private void need(long n) throws FormatException {
        if (n > remaining()) {
            throw fail(ErrorKind.TRUNCATED, "truncated: needs " + n + " more bytes at byte " + pos + ", " + remaining() + " left");
        }
    }

    private void skip(long n) throws FormatException {
        need(n);
        pos += (int) n;
    }

    private int u8() throws FormatException {
        need(1);
        return data[pos++] & 0xFF;
    }

    private long u32() throws FormatException {
        need(4);
        long v = ByteBuffer.wrap(data, pos, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xFFFFFFFFL;
        pos += 4;
        return v;
    }

    private long signedLength32(String op) throws FormatException {
        long v = (int) u32();
        if (v < 0) throw fail(ErrorKind.BAD_PICKLE, op + " with negative length " + v);
        return v;
    }

    private long u64() throws FormatException {
        need(8);
        long v = ByteBuffer.wrap(data, pos, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        pos += 8;
        return v < 0 ? Long.MAX_VALUE : v;
    }

    /** An 8-byte length, bounded by the bytes left (which also keeps it below 2^31). */
    private long length64() throws FormatException {
        long n = u64();
        if (n > remaining()) {
            throw fail(ErrorKind.TRUNCATED, "length " + (n == Long.MAX_VALUE ? ">= 2^63" : Long.toString(n))
                    + " runs past the end of the file (" + remaining() + " bytes left)");
        }
        return n;
    }

    private String line() throws FormatException {
        for (int i = pos; i < data.length; i++) {
            if (data[i] == '\n') {
                String s = new String(data, pos, i - pos, StandardCharsets.ISO_8859_1);
                pos = i + 1;
                return s;
            }
        }
        throw fail(ErrorKind.TRUNCATED, "truncated: line without a newline");
    }

    private String utf8(long n) throws FormatException {
        need(n);
        try {
            String s = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(data, pos, (int) n)).toString();
            pos += (int) n;
            return s;
        } catch (CharacterCodingException e) {
            throw fail(ErrorKind.BAD_PICKLE, "string is not valid UTF-8");
        }
    }

    private FormatException fail(ErrorKind kind, String problem) {
        return fail(kind, opStart, problem);
    }

    private FormatException fail(ErrorKind kind, long offset, String problem) {
        return new FormatException(kind, file, offset, problem);
    }
}
