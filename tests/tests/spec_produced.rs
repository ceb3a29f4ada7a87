//! Server-side 2026-07-28 example messages (`spec/2026-07-28/examples/`) that the engine can
//! produce, produced: an application built to say what each example says makes the engine write
//! that very message (compared as JSON; the engine's own `_meta.serverInfo` on results aside).

use std::path::PathBuf;

use mcp_sansio::connection::Connection;
use mcp_sansio::mcp::{ListCapability, LoggingLevel, ResourceCapability, ServerCapabilities};
use mcp_sansio::server::{
    CompletionReply, CompletionRequest, Config, Handler, ListChanged, OwnedBuffers, Prompt, Server, Tool, ToolCall,
    ToolReply,
};
use mcp_sansio::time::Instant;
use mcp_sansio_tests::schema::{MODERN, spec_dir};
use serde_json::{Value, json};

static TOOLS: [Tool<'static>; 2] = [Tool::new("reticulate", "Reports progress", "{}"), Tool::new("db", "Logs", "{}")];
static PROMPTS: [Prompt<'static>; 1] = [Prompt::new("code_review", &[])];

struct Example;

impl Handler for Example {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    const PROMPTS: &'static [Prompt<'static>] = &PROMPTS;

    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::NONE
            .with_tools(ListCapability { list_changed: true })
            .with_prompts(ListCapability { list_changed: true })
            .with_resources(ResourceCapability { subscribe: true, list_changed: true })
            .with_logging()
            .with_completions()
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        let mut reply = reply;
        if call.name == "reticulate" {
            reply.progress(50, Some(100), Some("Reticulating splines...")).unwrap();
        } else {
            let data = json!({"error": "Connection failed", "details": {"host": "localhost", "port": 5432}});
            assert_eq!(reply.log_value(LoggingLevel::Error, Some("database"), &data), Ok(true));
        }
        reply.text("done").finish()
    }

    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        let candidates = ["flask", "django", "fastapi"];
        let mut reply = reply;
        let mut found = 0;
        for candidate in candidates.iter().filter(|c| c.starts_with(request.value.trim_start_matches("py"))) {
            if *candidate == "flask" {
                reply = reply.value(candidate);
                found += 1;
            }
        }
        reply.total(found).has_more(false).finish()
    }
}

fn example(definition: &str, file: &str) -> Value {
    let path: PathBuf = spec_dir().join(MODERN).join("examples").join(definition).join(file);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "ExampleClient", "version": "1.0.0"}})
}

struct Run {
    server: Server<'static, Example>,
}

impl Run {
    fn new() -> Self {
        let buffers = OwnedBuffers::zeroed(4096, 8192, 0);
        Run { server: Server::new_owned(Example, Config::new("example", "1"), buffers) }
    }

    fn send(&mut self, message: Value) -> Vec<Value> {
        let line = message.to_string() + "\n";
        assert_eq!(self.server.handle_input(Instant::ZERO, line.as_bytes()), line.len());
        self.drain()
    }

    fn drain(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(bytes) = self.server.poll_transmit() {
            out.extend_from_slice(bytes);
            let n = bytes.len();
            self.server.transmit_done(Instant::ZERO, n);
        }
        out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
    }
}

/// A result without the engine's `_meta.serverInfo` (the examples leave it out).
fn without_server_info(mut message: Value) -> Value {
    if let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) {
        let meta = result.get_mut("_meta").and_then(Value::as_object_mut);
        if let Some(meta) = meta {
            meta.remove("io.modelcontextprotocol/serverInfo");
            if meta.is_empty() {
                result.remove("_meta");
            }
        }
    }
    message
}

#[test]
fn completion_progress_and_log_examples_are_produced() {
    let mut run = Run::new();
    let request = example("CompleteRequest", "completion-request.json");
    let out = run.send(request);
    assert_eq!(
        without_server_info(out[0].clone()),
        example("CompleteResultResponse", "completion-result-response.json")
    );

    let mut call_meta = meta();
    call_meta["progressToken"] = json!("oivaizmir");
    let out = run
        .send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reticulate","_meta":call_meta}}));
    assert_eq!(out[0], example("ProgressNotification", "progress-message.json"));

    let mut log_meta = meta();
    log_meta["io.modelcontextprotocol/logLevel"] = json!("info");
    let out = run.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"db","_meta":log_meta}}));
    assert_eq!(out[0], example("LoggingMessageNotification", "log-database-connection-failed.json"));
}

#[test]
fn listen_examples_are_produced() {
    let mut run = Run::new();
    let out = run.send(example("SubscriptionsListenRequest", "listen-for-list-changes.json"));
    assert_eq!(out, [example("SubscriptionsAcknowledgedNotification", "listen-acknowledged.json")]);
    assert_eq!(run.server.list_changed(ListChanged::Tools), Ok(1));
    assert_eq!(run.server.list_changed(ListChanged::Prompts), Ok(0), "the listen did not ask for prompts");
    let out = run.drain();
    assert_eq!(out, [example("ToolListChangedNotification", "tools-list-changed.json")]);
    // A second listen that asks for the rest.
    let listen = json!({"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"_meta":meta(),
        "notifications":{"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["file:///project/src/main.rs"]}}});
    let _ack = run.send(listen);
    assert_eq!(run.server.list_changed(ListChanged::Prompts), Ok(1));
    assert_eq!(run.server.list_changed(ListChanged::Resources), Ok(1));
    assert_eq!(run.server.resource_updated("file:///project/src/main.rs"), Ok(1));
    let out = run.drain();
    assert_eq!(out[0], example("PromptListChangedNotification", "prompts-list-changed.json"));
    assert_eq!(out[1], example("ResourceListChangedNotification", "resources-list-changed.json"));
    assert_eq!(out[2], example("ResourceUpdatedNotification", "file-resource-updated-notification.json"));
    assert_eq!(run.server.end_listens(), Ok(2));
    let out = run.drain();
    let closed = example("SubscriptionsListenResultResponse", "listen-closed-response.json");
    assert_eq!(out, [closed.clone(), closed]);
}
