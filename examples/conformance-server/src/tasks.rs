//! The tools of the suite's tasks scenarios (the 2026-07-28 extension `io.modelcontextprotocol/tasks`;
//! the suite has no reference fixtures for them: names, arguments and behaviour follow its
//! scenario descriptions and SEP-2663's reference server). Work that takes time is deferred and
//! answered by [`run_jobs`] from a timer.

use std::time::Duration;

use mcp_sansio::mcp::TaskSupport;
use mcp_sansio::server::{Deferred, InputRequest, ReplyError, Tool, ToolCall, ToolReply};
use mcp_sansio_http::McpHttp;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use crate::handler::Fixtures;

const CONFIRM: &str = r#"{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}"#;
const NAME: &str = r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;

const fn task_tool(name: &'static str, description: &'static str, schema: &'static str) -> Tool<'static> {
    Tool::new(name, description, schema).with_task_support(TaskSupport::Required)
}

pub static TASK_TOOLS: [Tool<'static>; 7] = [
    Tool::new("greet", "Greets by name, at once (never a task)", NAME),
    Tool::new(
        "slow_compute",
        "Computes for `seconds` seconds: a task when the client declared the tasks extension",
        r#"{"type":"object","properties":{"seconds":{"type":"integer","minimum":0},"label":{"type":"string"}},"required":["seconds","label"]}"#,
    )
    .with_task_support(TaskSupport::Optional),
    task_tool("failing_job", "A task whose tool result is an error (isError)", "{\"type\":\"object\"}"),
    task_tool("protocol_error_job", "A task that fails with a JSON-RPC error", "{\"type\":\"object\"}"),
    task_tool(
        "confirm_delete",
        "A task that asks the user to confirm deleting a file",
        r#"{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}"#,
    ),
    task_tool("multi_input", "A task that asks two questions at once", "{\"type\":\"object\"}"),
    task_tool(
        "test_tool_with_task",
        "Asks for a name (input_required), then computes the greeting in a task",
        "{\"type\":\"object\"}",
    ),
];

/// Whether `name` is one of [`TASK_TOOLS`].
pub fn is_task_tool(name: &str) -> bool {
    TASK_TOOLS.iter().any(|tool| tool.name == name)
}

/// A deferred call to answer later.
pub struct Job {
    /// The engine that holds the deferred call.
    engine: mcp_sansio_http::Serving,
    deferred: Deferred,
    after: Duration,
    text: String,
}

/// The unescaped text of a string argument, or `""`.
fn argument(call: &ToolCall<'_>, key: &str) -> String {
    call.argument(key).and_then(|v| v.as_str()).map(|s| s.to_string()).unwrap_or_default()
}

/// `content.<field>` of an elicitation answer, as JSON text.
fn answered(call: &ToolCall<'_>, key: &str, field: &str) -> Option<String> {
    let answer = call.context.input(key)?;
    let value = answer.get("content").and_then(|c| c.get(field))?;
    Some(match value.as_str() {
        Some(s) => s.to_string(),
        None => String::from_utf8_lossy(value.as_bytes()).into_owned(),
    })
}

impl Fixtures {
    /// Serves the tools of [`TASK_TOOLS`].
    pub fn call_task_tool(&mut self, call: &ToolCall<'_>, mut reply: ToolReply<'_>) {
        match call.name {
            "greet" => reply.text_fmt(format_args!("Hello, {}!", argument(call, "name"))).finish(),
            "slow_compute" => {
                let seconds = call.argument("seconds").and_then(|v| v.as_u64()).unwrap_or(0);
                let text = format!(
                    "Computation \"{}\" completed after {seconds} seconds. Result: 42.",
                    argument(call, "label")
                );
                // A task when the client declared the extension; an ordinary deferred call otherwise.
                let _ = reply.run_as_task();
                if seconds == 0 {
                    return reply.text(&text).finish();
                }
                if let Ok(deferred) = reply.defer() {
                    let engine = mcp_sansio_http::serving().unwrap_or(mcp_sansio_http::Serving::Stateless(0));
                    let _ = self.jobs.send(Job { engine, deferred, after: Duration::from_secs(seconds), text });
                }
            }
            "test_tool_with_task" => match answered(call, "user_name", "name") {
                None => {
                    let ask = InputRequest::ElicitForm { message: "What is your name?", requested_schema: NAME };
                    reply.input_required().request("user_name", ask).finish()
                }
                Some(name) => match reply.run_as_task() {
                    Ok(()) => reply.text_fmt(format_args!("Hello, {name}! (computed in task)")).finish(),
                    Err(why) => reply.refuse_task(why),
                },
            },
            "failing_job" | "protocol_error_job" | "confirm_delete" | "multi_input" => {
                if let Err(why) = reply.run_as_task() {
                    return reply.refuse_task(why);
                }
                match call.name {
                    "failing_job" => reply.finish_error_text("The job failed"),
                    "protocol_error_job" => {
                        reply.fail(mcp_sansio::jsonrpc::code::INTERNAL_ERROR, "Internal error: the job crashed")
                    }
                    "confirm_delete" => {
                        let file = argument(call, "filename");
                        match answered(call, "confirm", "confirm") {
                            Some(confirm) if confirm == "true" => {
                                reply.text_fmt(format_args!("Deleted '{file}'")).finish()
                            }
                            Some(_) => reply.text_fmt(format_args!("Kept '{file}'")).finish(),
                            None => {
                                let message = format!("Delete '{file}'?");
                                let ask = InputRequest::ElicitForm { message: &message, requested_schema: CONFIRM };
                                reply.input_required().request("confirm", ask).finish()
                            }
                        }
                    }
                    _ => match (answered(call, "name", "name"), answered(call, "confirm", "confirm")) {
                        (Some(name), Some(confirm)) => {
                            reply.text_fmt(format_args!("Name: {name}; confirmed: {confirm}")).finish()
                        }
                        _ => {
                            let name = InputRequest::ElicitForm { message: "Your name?", requested_schema: NAME };
                            let confirm = InputRequest::ElicitForm { message: "Confirm?", requested_schema: CONFIRM };
                            reply.input_required().request("name", name).request("confirm", confirm).finish()
                        }
                    },
                }
            }
            other => reply.finish_error_text(other),
        }
    }
}

/// The queue of deferred calls to answer later.
pub fn job_queue() -> (UnboundedSender<Job>, UnboundedReceiver<Job>) {
    tokio::sync::mpsc::unbounded_channel()
}

/// Answers each job when its time comes (a task's answer becomes its outcome; a cancelled one is
/// dropped).
pub async fn run_jobs(endpoint: McpHttp<Fixtures>, mut jobs: UnboundedReceiver<Job>) {
    while let Some(job) = jobs.recv().await {
        let endpoint = endpoint.clone();
        tokio::spawn(async move {
            tokio::time::sleep(job.after).await;
            loop {
                let sent = endpoint.with_engine(job.engine, |engine, _| match engine.reply_tool(&job.deferred) {
                    Ok(reply) => {
                        reply.text(&job.text).finish();
                        true
                    }
                    Err(ReplyError::Busy) => false,
                    Err(_) => true,
                });
                if sent != Some(false) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        });
    }
}
