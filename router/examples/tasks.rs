//! Long-running tools as tasks (the 2026-07-28 extension `io.modelcontextprotocol/tasks`): a
//! client that declares the extension gets the task at once and follows it with `tasks/get` (or
//! a `subscriptions/listen` stream naming it), answers its questions with `tasks/update`, and may
//! `tasks/cancel` it. Without the extension an optional task tool runs as a plain call. In a
//! 2025-11-25 session a client asks for a task with `params.task` and reads it with `tasks/result`
//! (2025-11-25's experimental tasks; a task's questions go to the client once it has read the
//! task's `input_required` status, on the stream of a waiting `tasks/result` over HTTP).
//!
//! Serves stdio: `cargo run -p mcp-sansio-router --example tasks`; or Streamable HTTP at
//! `http://ADDR/mcp`: `cargo run -p mcp-sansio-router --features http --example tasks -- --http
//! 127.0.0.1:8000` (a workspace build turns the feature on).
//! The official tasks client (`@modelcontextprotocol/ext-tasks`) drives it in
//! tests/interop/ext_tasks.mjs, the Python SDK's 2025-11-25 tasks client in
//! tests/interop/python_tasks.py.
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
    let config = Config::new("tasks", "1.0.0");
    let mut args = std::env::args().skip(1);
    match (args.next().as_deref(), args.next()) {
        (None, _) => {
            let (mut server, jobs) = router().into_server(config, |future| {
                tokio::spawn(future);
            });
            mcp_sansio_tokio::serve_stdio_with_jobs(&mut server, jobs).await
        }
        (Some("--http"), Some(addr)) => serve_http(config, &addr).await,
        _ => {
            eprintln!("usage: tasks [--http ADDR]");
            std::process::exit(2)
        }
    }
}

/// Streamable HTTP at `http://ADDR/mcp` until Ctrl-C: sessions for the legacy versions (each
/// with its own task table), the stateless engine for 2026-07-28.
#[cfg(feature = "http")]
async fn serve_http(config: Config<'static>, addr: &str) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let endpoint = router().into_http(mcp_sansio_http::HttpConfig::new(config, addr), |future| {
        tokio::spawn(future);
    });
    eprintln!("tasks: serving http://{addr}/mcp");
    mcp_sansio_http::serve(listener, endpoint, mcp_sansio_http::shutdown_signal()).await
}

#[cfg(not(feature = "http"))]
async fn serve_http(_: Config<'static>, _: &str) -> std::io::Result<()> {
    Err(std::io::Error::other("--http needs mcp-sansio-router's `http` feature"))
}
