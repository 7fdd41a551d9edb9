package dev.needlewb.core.tokenizer;

/** The shapes a tool may be written in. Every one is read into upstream's (see {@link ToolNormalizer}). */
public enum ToolShape {
    /** {@code {"name", "description"?, "parameters": JSON schema}}: upstream's build_schema and fine-tuning data. */
    UPSTREAM("upstream"),
    /** {@code {"type": "function", "function": {"name", "description"?, "parameters"?, "strict"?}}}: OpenAI Chat Completions. */
    OPENAI("openai"),
    /** {@code {"type": "function", "name", "description"?, "parameters"?, "strict"?}}: OpenAI Responses. */
    OPENAI_FLAT("openai-flat"),
    /** {@code {"name", "description"?, "parameters": {"p": {"type", "required": true, ...}}}}: needle.c's default, Needle 1's data. */
    FLATTENED("flattened");

    /** The name reports and {@code --json} outputs use. */
    public final String label;

    ToolShape(String label) {
        this.label = label;
    }
}
