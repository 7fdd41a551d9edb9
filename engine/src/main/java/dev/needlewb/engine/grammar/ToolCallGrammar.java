package dev.needlewb.engine.grammar;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.tokenizer.ToolSchemas;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The byte grammar of an answer for one tools list:
 * {@code [<think>..</think>[\n]]<tool_call>[CALL,...]</tool_call>[<|im_end|>]} where each CALL is
 * {@code {"name":"TOOL","arguments":{...}}} in compact JSON, TOOL one of the tools and the arguments
 * an object valid for that tool's {@code parameters}. Immutable and shareable; {@link #start} is the
 * state before the first symbol.
 */
public final class ToolCallGrammar {
    private final List<String> names;
    private final OuterFrame start;

    private ToolCallGrammar(List<String> names, OuterFrame start) {
        this.names = names;
        this.start = start;
    }

    /** Compiles every tool's {@code parameters}; errors name the place in the tools' source. The list may be empty. */
    public static ToolCallGrammar compile(ToolSchemas tools) throws WorkbenchException {
        return compile(tools, false);
    }

    /**
     * As {@link #compile(ToolSchemas)}; {@code requireCall} admits only lists of at least one call
     * (an API's "tool choice: required"), so the empty refusal {@code []} is not an answer.
     */
    public static ToolCallGrammar compile(ToolSchemas tools, boolean requireCall) throws WorkbenchException {
        if (requireCall && tools.size() == 0) throw tools.error(ErrorKind.BAD_SCHEMA, "a call is required but there are no tools");
        List<SchemaNode.ObjectNode> arguments = new ArrayList<>();
        List<byte[]> spellings = new ArrayList<>();
        for (int i = 0; i < tools.size(); i++) {
            try {
                arguments.add(new SchemaCompiler(tools.tool(i).get("parameters")).parameters());
            } catch (SchemaCompiler.SchemaError e) {
                throw tools.parametersError(ErrorKind.BAD_SCHEMA, i, e.path, e.getMessage());
            }
            spellings.add(SchemaCompiler.spelling(SchemaCompiler.JSON.getNodeFactory().textNode(tools.names().get(i))).getBytes(StandardCharsets.UTF_8));
        }
        SchemaNode.CallNode call = new SchemaNode.CallNode(new ByteTrie(spellings), List.copyOf(arguments));
        // without tools the only answer is the empty list
        SchemaNode.ArrayNode list = new SchemaNode.ArrayNode(call, requireCall ? 1 : 0, tools.size() == 0 ? 0 : -1);
        return new ToolCallGrammar(tools.names(), new OuterFrame(list, OuterFrame.START));
    }

    public List<String> names() {
        return names;
    }

    Frame start() {
        return start;
    }

    /** Whether {@code state} is after the closing {@code </tool_call>}: the answer may end. */
    static boolean complete(Frame state) {
        return state instanceof OuterFrame o && o.complete();
    }

    static boolean thinking(Frame state) {
        return state instanceof OuterFrame o && o.phase() == OuterFrame.THINK;
    }
}
