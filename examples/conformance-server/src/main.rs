//! `conformance-server`: the fixtures the official MCP conformance suite expects
//! (`@modelcontextprotocol/conformance server --url http://127.0.0.1:$PORT/mcp`), on the public
//! API only, for both protocol eras on one endpoint. `PORT` defaults to 3000.
//!
//! Fixtures that need what the engine does not offer yet (logging, progress, sampling,
//! elicitation, completion, subscriptions, audio and embedded-resource content, resource
//! templates in lists) are left out; `tests/conformance/baseline-*.yml` names the scenarios that
//! fail for that reason.

#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::process::ExitCode;

use mcp_sansio::server::{
    Config, Handler, Prompt, PromptArgument, PromptGet, PromptReply, Resource, ResourceRead, ResourceReply, Role, Tool,
    ToolCall, ToolReply,
};
use mcp_sansio_http::{HttpConfig, McpHttp, serve, shutdown_signal};

/// A 1×1 PNG (the suite's `TEST_IMAGE_BASE64`, decoded).
const PNG: [u8; 70] = [
    137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 31, 21, 196,
    137, 0, 0, 0, 13, 73, 68, 65, 84, 120, 218, 99, 252, 207, 192, 240, 31, 0, 5, 5, 2, 0, 95, 200, 241, 210, 0, 0, 0,
    0, 73, 69, 78, 68, 174, 66, 96, 130,
];

const EMPTY: &str = r#"{"type":"object","properties":{}}"#;

static TOOLS: [Tool<'static>; 4] = [
    Tool::new("test_simple_text", "Tests simple text content response", EMPTY),
    Tool::new("test_image_content", "Tests image content response", EMPTY),
    Tool::new("test_error_handling", "Tests error response handling", EMPTY),
    // SEP-2243: its `region` argument is mirrored into the `Mcp-Param-Region` header.
    Tool::new(
        "test_header_param",
        "Echoes a parameter that travels in the Mcp-Param-Region header too",
        r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}"#,
    ),
];

static RESOURCES: [Resource<'static>; 2] = [
    Resource {
        uri: "test://static-text",
        name: "static-text",
        title: Some("Static Text Resource"),
        description: Some("A static text resource for testing"),
        mime_type: Some("text/plain"),
        ..Resource::EMPTY
    },
    Resource {
        uri: "test://static-binary",
        name: "static-binary",
        title: Some("Static Binary Resource"),
        description: Some("A static binary resource (image) for testing"),
        mime_type: Some("image/png"),
        ..Resource::EMPTY
    },
];

static PROMPT_ARGS: [PromptArgument<'static>; 2] = [
    PromptArgument { name: "arg1", title: None, description: Some("First test argument"), required: true },
    PromptArgument { name: "arg2", title: None, description: Some("Second test argument"), required: true },
];

static PROMPTS: [Prompt<'static>; 2] = [
    Prompt {
        name: "test_simple_prompt",
        title: Some("Simple Test Prompt"),
        description: Some("A simple prompt without arguments"),
        arguments: &[],
        icons: &[],
    },
    Prompt {
        name: "test_prompt_with_arguments",
        title: Some("Prompt With Arguments"),
        description: Some("A prompt with required arguments"),
        arguments: &PROMPT_ARGS,
        icons: &[],
    },
];

struct Fixtures;

impl Handler for Fixtures {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    const RESOURCES: &'static [Resource<'static>] = &RESOURCES;
    const PROMPTS: &'static [Prompt<'static>] = &PROMPTS;

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        match call.name {
            "test_simple_text" => reply.text("This is a simple text response for testing.").finish(),
            "test_image_content" => reply.image("image/png", &PNG).finish(),
            "test_error_handling" => reply.finish_error_text("This tool intentionally returns an error for testing"),
            "test_header_param" => match call.argument("region").and_then(|v| v.as_str()) {
                Some(region) => reply.text_json(region).finish(),
                None => reply.finish_error_text("missing region"),
            },
            other => reply.finish_error_text(other),
        }
    }

    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        match read.uri {
            "test://static-text" => reply
                .text("test://static-text", Some("text/plain"), "This is the content of the static text resource.")
                .finish(),
            "test://static-binary" => reply.blob("test://static-binary", Some("image/png"), &PNG).finish(),
            uri => match template_id(uri) {
                Some(id) => reply
                    .text_fmt(
                        uri,
                        Some("application/json"),
                        format_args!(r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#),
                    )
                    .finish(),
                None => reply.not_found(uri),
            },
        }
    }

    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        match get.name {
            "test_prompt_with_arguments" => {
                let (arg1, arg2) = (get.argument("arg1"), get.argument("arg2"));
                match (arg1, arg2) {
                    (Some(arg1), Some(arg2)) => reply
                        .text_fmt(Role::User, format_args!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"))
                        .finish(),
                    _ => reply.fail(mcp_sansio::jsonrpc::code::INVALID_PARAMS, "arg1 and arg2 are required"),
                }
            }
            _ => reply.text(Role::User, "This is a simple prompt for testing.").finish(),
        }
    }
}

/// The `{id}` of `test://template/{id}/data`, if it is a plain segment.
fn template_id(uri: &str) -> Option<&str> {
    let id = uri.strip_prefix("test://template/")?.strip_suffix("/data")?;
    (!id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')).then_some(id)
}

fn main() -> ExitCode {
    let port = match std::env::var("PORT").map(|p| p.parse::<u16>()) {
        Err(_) => 3000,
        Ok(Ok(port)) => port,
        Ok(Err(error)) => {
            eprintln!("conformance-server: PORT: {error}");
            return ExitCode::FAILURE;
        }
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut engine = Config::new("mcp-sansio-conformance-server", env!("CARGO_PKG_VERSION"));
    engine.limits.max_response = 64 * 1024;
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("conformance-server: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        eprintln!("conformance-server: serving http://{addr}/mcp");
        serve(listener, McpHttp::new(Fixtures, HttpConfig::new(engine, addr)), shutdown_signal()).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance-server: {error}");
            ExitCode::FAILURE
        }
    }
}
