//! Long-running tools as tasks (the 2026-07-28 extension `io.modelcontextprotocol/tasks`): a
//! client that declares the extension gets the task at once and follows it with `tasks/get` (or
//! a `subscriptions/listen` stream naming it), answers its questions with `tasks/update`, and may
//! `tasks/cancel` it. Without the extension an optional task tool runs as a plain call. In a
//! 2025-11-25 session a client asks for a task with `params.task` and reads it with `tasks/result`
//! (2025-11-25's experimental tasks; a question inside such a task is not served yet).
//!
//! Serves stdio: `cargo run -p mcp-sansio-router --example tasks`. The official tasks client
//! (`@modelcontextprotocol/ext-tasks`) drives it in tests/interop/ext_tasks.mjs.
//!
//! - `wait {ms}`: awaits a timer, then "waited N ms" (optional task).
//! - `delete`: asks the user to confirm, then "deleted" or "kept" (always a task).
//! - `forever`: never ends (optional task): for cancellation.

use std::time::Duration;

use mcp_sansio::server::Config;
use mcp_sansio_router::{Context, Elicitation, InputError, NoArguments, Router, TaskSupport};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Wait {
    /// How long to wait, in milliseconds.
    ms: u64,
}

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

pub fn router() -> Router {
    Router::new()
        .task_tool("wait", "Awaits a timer", TaskSupport::Optional, |Wait { ms }, _: Context| async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            format!("waited {ms} ms")
        })
        .task_tool(
            "delete",
            "Deletes after the user confirms",
            TaskSupport::Required,
            |_: NoArguments, context| async move {
                Ok::<_, InputError>(match context.elicit::<Confirm>("Delete everything?").await? {
                    Elicitation::Accept(Confirm { confirm: true }) => "deleted",
                    _ => "kept",
                })
            },
        )
        .task_tool("forever", "Never ends", TaskSupport::Optional, |_: NoArguments, _: Context| async {
            tokio::time::sleep(Duration::from_secs(24 * 3600)).await;
            "finished"
        })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let (mut server, jobs) = router().into_server(Config::new("tasks", "1.0.0"), |future| {
        tokio::spawn(future);
    });
    mcp_sansio_tokio::serve_stdio_with_jobs(&mut server, jobs).await
}
