//! The application of the replica tests: a tool that logs, one that asks the client, and a
//! resource to subscribe to.

use mcp_sansio::mcp::{ListCapability, LoggingLevel, ResourceCapability, ServerCapabilities, TaskSupport};
use mcp_sansio::server::{Handler, InputRequest, Resource, Tool, ToolCall, ToolReply};

static TOOLS: [Tool<'static>; 5] = [
    Tool::new("echo", "Echoes text, logging it at info", r#"{"type":"object"}"#),
    Tool::new("greet", "Asks the user's name, then greets", r#"{"type":"object"}"#),
    Tool::new("remember", "Runs as a task when the client can take one", r#"{"type":"object"}"#)
        .with_task_support(TaskSupport::Optional),
    Tool::new("linger", "Runs as a task that never ends", r#"{"type":"object"}"#)
        .with_task_support(TaskSupport::Required),
    Tool::new("confirm", "Runs as a task that asks the user to confirm", r#"{"type":"object"}"#)
        .with_task_support(TaskSupport::Optional),
];

static RESOURCES: [Resource<'static>; 1] = [Resource::new("file:///watched", "watched")];

const NAME_FORM: &str = r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;

const CONFIRM_FORM: &str = r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;

/// Echoes (logging at info) and greets (asking the name first): a server whose requests to the
/// client cross replicas.
pub struct Replicated;

impl Handler for Replicated {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    const RESOURCES: &'static [Resource<'static>] = &RESOURCES;
    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::NONE
            .with_tools(ListCapability { list_changed: true })
            .with_resources(ResourceCapability { subscribe: true, list_changed: false })
            .with_logging()
    }
    fn call_tool(&mut self, call: ToolCall<'_>, mut reply: ToolReply<'_>) {
        if call.name == "remember" {
            // A task when the request declared the tasks extension; answered at once either way.
            let _ = reply.run_as_task();
            return reply.text("remembered").finish();
        }
        if call.name == "linger" {
            // Working until its replica stops: its answer is never given.
            if reply.run_as_task().is_ok() {
                let _ = reply.defer();
            }
            return;
        }
        if call.name == "confirm" {
            let _ = reply.run_as_task();
            let answer = call.context.input("ok").and_then(|a| a.get("content")).and_then(|c| c.get("ok"));
            return match answer.and_then(|ok| ok.as_bool()) {
                Some(ok) => reply.text(if ok { "confirmed" } else { "not confirmed" }).finish(),
                None => {
                    let ask = InputRequest::ElicitForm { message: "Go on?", requested_schema: CONFIRM_FORM };
                    reply.input_required().request("ok", ask).finish()
                }
            };
        }
        if call.name == "greet" {
            let name = call.context.input("name").and_then(|a| a.get("content")).and_then(|c| c.get("name"));
            return match name.and_then(|n| n.as_str()) {
                Some(name) => reply.text_json(name).finish(),
                None => {
                    let ask = InputRequest::ElicitForm { message: "What is your name?", requested_schema: NAME_FORM };
                    reply.input_required().request("name", ask).finish()
                }
            };
        }
        let text = call.argument("text").and_then(|v| v.as_str());
        let _ = reply.log(LoggingLevel::Info, None, format_args!("echoing"));
        match text {
            Some(text) => reply.text_json(text).finish(),
            None => reply.finish_error_text("missing text"),
        }
    }
}
