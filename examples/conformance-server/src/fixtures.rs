//! The tables the suite's scenarios name: tools, resources, templates, prompts, and the content
//! and forms they use (`examples/servers/typescript/everything-server.ts` of the suite is the
//! reference).

use mcp_sansio::server::{Prompt, PromptArgument, Resource, ResourceTemplate, Tool};

/// A 1×1 PNG (the suite's `TEST_IMAGE_BASE64`, decoded).
pub const PNG: [u8; 70] = [
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 31, 21, 196,
    137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 218, 99, 252, 207, 192, 240, 31, 0, 5, 5, 2, 0, 95, 200, 241, 210, 0, 0, 0,
    0, 73, 69, 78, 68, 174, 66, 96, 130,
];

/// A minimal WAV file (the suite's `TEST_AUDIO_BASE64`, decoded).
pub const WAV: [u8; 44] = [
    82, 73, 70, 70, 38, 0, 0, 0, 87, 65, 86, 69, 102, 109, 116, 32, 16, 0, 0, 0, 1, 0, 1, 0, 64, 31, 0, 0, 0, 125, 0,
    0, 2, 0, 16, 0, 100, 97, 116, 97, 2, 0, 0, 0,
];

const JSON_SCHEMA_2020_12: &str = r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},
"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},
"additionalProperties":false}"##;

pub const WATCHED_URI: &str = "test://watched-resource";

const EMPTY: &str = r#"{"type":"object","properties":{}}"#;

const fn tool(name: &'static str, description: &'static str) -> Tool<'static> {
    Tool::new(name, description, EMPTY)
}

pub static TOOLS: [Tool<'static>; 27] = [
    tool("test_simple_text", "Tests simple text content response"),
    tool("test_image_content", "Tests image content response"),
    tool("test_audio_content", "Tests audio content response"),
    tool("test_embedded_resource", "Tests embedded resource content response"),
    tool("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)"),
    tool("test_tool_with_logging", "Tests tool that emits log messages during execution"),
    tool("test_tool_with_progress", "Tests tool that reports progress notifications"),
    tool("test_error_handling", "Tests error response handling"),
    Tool::new(
        "test_sampling",
        "Tests server-initiated sampling (LLM completion request)",
        r#"{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}"#,
    ),
    Tool::new(
        "test_elicitation",
        "Tests server-initiated elicitation (user input request)",
        r#"{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}"#,
    ),
    tool("test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034"),
    tool("test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330"),
    // SEP-2243: its `region` argument is mirrored into the `Mcp-Param-Region` header.
    Tool::new(
        "test_header_param",
        "Echoes a parameter that travels in the Mcp-Param-Region header too",
        r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}"#,
    ),
    tool("test_missing_capability", "Asks the client's model (needs the client's sampling capability)"),
    tool("test_streaming_elicitation", "Asks the user for a value (elicitation) before answering"),
    tool("test_logging_tool", "Logs a diagnostic message (only when the request asks for a log level)"),
    tool("test_trigger_tool_change", "Adds or removes the tool test_dynamic_tool (tools list changed)"),
    tool("test_trigger_prompt_change", "Adds or removes the prompt test_dynamic_prompt (prompts list changed)"),
    tool("test_input_required_result_elicitation", "MRTR: asks for the user's name (elicitation)"),
    tool("test_input_required_result_sampling", "MRTR: asks the client's model a question (sampling)"),
    tool("test_input_required_result_list_roots", "MRTR: asks for the client's roots"),
    tool("test_input_required_result_request_state", "MRTR: returns InputRequiredResult with requestState"),
    tool("test_input_required_result_multiple_inputs", "MRTR: elicitation, sampling and roots in one round"),
    tool("test_input_required_result_multi_round", "MRTR: two rounds of elicitation, state carried between them"),
    tool("test_input_required_result_tampered_state", "MRTR: integrity-protected requestState"),
    tool("test_input_required_result_capabilities", "MRTR: asks only for what the client declared"),
    // SEP-1613 / SEP-2106: the schema is served as written, 2020-12 keywords and all.
    Tool::new(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
        JSON_SCHEMA_2020_12,
    ),
];

/// Appears and disappears with `test_trigger_tool_change`.
pub const DYNAMIC_TOOL: Tool<'static> = tool("test_dynamic_tool", "A tool added at run time");

pub static RESOURCES: [Resource<'static>; 3] = [
    Resource::new("test://static-text", "static-text")
        .with_title("Static Text Resource")
        .with_description("A static text resource for testing")
        .with_mime_type("text/plain"),
    Resource::new("test://static-binary", "static-binary")
        .with_title("Static Binary Resource")
        .with_description("A static binary resource (image) for testing")
        .with_mime_type("image/png"),
    Resource::new(WATCHED_URI, "watched-resource")
        .with_title("Watched Resource")
        .with_description("A resource that changes every 3 seconds (subscribe to hear of it)")
        .with_mime_type("text/plain"),
];

pub static RESOURCE_TEMPLATES: [ResourceTemplate<'static>; 1] =
    [ResourceTemplate::new("test://template/{id}/data", "template")
        .with_title("Resource Template")
        .with_description("A resource template with parameter substitution")
        .with_mime_type("application/json")];

static PROMPT_ARGS: [PromptArgument<'static>; 2] = [
    PromptArgument::new("arg1", true).with_description("First test argument"),
    PromptArgument::new("arg2", true).with_description("Second test argument"),
];

static RESOURCE_URI_ARG: [PromptArgument<'static>; 1] =
    [PromptArgument::new("resourceUri", true).with_description("URI of the resource to embed")];

const fn prompt(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    arguments: &'static [PromptArgument<'static>],
) -> Prompt<'static> {
    Prompt::new(name, arguments).with_title(title).with_description(description)
}

pub static PROMPTS: [Prompt<'static>; 5] = [
    prompt("test_simple_prompt", "Simple Test Prompt", "A simple prompt without arguments", &[]),
    prompt("test_prompt_with_arguments", "Prompt With Arguments", "A prompt with required arguments", &PROMPT_ARGS),
    prompt(
        "test_prompt_with_embedded_resource",
        "Prompt With Embedded Resource",
        "A prompt that includes an embedded resource",
        &RESOURCE_URI_ARG,
    ),
    prompt("test_prompt_with_image", "Prompt With Image", "A prompt that includes image content", &[]),
    prompt(
        "test_input_required_result_prompt",
        "Prompt Needing Input",
        "MRTR: asks the user for context before rendering",
        &[],
    ),
];

/// Appears and disappears with `test_trigger_prompt_change`.
pub const DYNAMIC_PROMPT: Prompt<'static> =
    prompt("test_dynamic_prompt", "Dynamic Prompt", "A prompt added at run time", &[]);

/// Values offered when completing `test_prompt_with_arguments`' arguments and the template's `id`.
pub const ARGUMENT_VALUES: [&str; 4] = ["test", "testing", "value-1", "value-2"];
pub const TEMPLATE_IDS: [&str; 3] = ["1", "2", "42"];

pub const RESPONSE_FORM: &str = r#"{"type":"object","properties":{"response":{"type":"string","description":"User's response"}},"required":["response"]}"#;

pub const NAME_FORM: &str = r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;
pub const COLOR_FORM: &str = r#"{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}"#;
pub const CONFIRM_FORM: &str = r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;
pub const VALUE_FORM: &str = r#"{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}"#;
pub const CONTEXT_FORM: &str = r#"{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}"#;

/// SEP-1034: a default for each primitive type.
pub const DEFAULTS_FORM: &str = r#"{"type":"object","properties":{
"name":{"type":"string","description":"User name","default":"John Doe"},
"age":{"type":"integer","description":"User age","default":30},
"score":{"type":"number","description":"User score","default":95.5},
"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}"#;

/// SEP-1330: untitled and titled, single and multiple choice, and the legacy `enumNames`.
pub const ENUMS_FORM: &str = r#"{"type":"object","properties":{
"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},
"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
"untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
"titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},"required":[]}"#;
