//! `rmcp`, `rmcp-mt`: rmcp's client, `().serve(TokioChildProcess)` (legacy `initialize`, rmcp's
//! default), calling `Peer::call_tool` (one `tools/call`; `RunningService::call_tool` would clone
//! the params per call for its input rounds). Pipelined: `--depth` tasks on clones of the peer.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::ServiceError;
use rmcp::transport::TokioChildProcess;

use crate::{Job, Mark, Report, fail};

/// Whether `result` is a successful echo of `message`.
fn echoed(result: &Result<CallToolResult, ServiceError>, message: &str) -> bool {
    match result {
        Ok(result) => {
            result.is_error != Some(true)
                && result.content.first().and_then(|c| c.as_text()).is_some_and(|t| t.text == message)
        }
        Err(_) => false,
    }
}

pub fn run(job: &Job, multi_thread: bool) -> Report {
    let runtime = if multi_thread {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    }
    .unwrap_or_else(|e| fail(format!("runtime: {e}")));
    runtime.block_on(async {
        let mut command = tokio::process::Command::new(&job.server[0]);
        command.args(&job.server[1..]);
        let transport = TokioChildProcess::new(command).unwrap_or_else(|e| fail(format!("rmcp: spawn: {e}")));
        let server = transport.id().unwrap_or_else(|| fail("rmcp: no child"));
        let client = ().serve(transport).await.unwrap_or_else(|e| fail(format!("rmcp: connect: {e}")));
        let arguments: JsonObject =
            serde_json::from_str(&job.arguments()).unwrap_or_else(|e| fail(format!("arguments: {e}")));
        let params = CallToolRequestParams::new("echo").with_arguments(arguments);
        let peer = client.peer().clone();
        let message: Arc<str> = job.message.as_str().into();
        let first = peer.call_tool(params.clone()).await;
        if !echoed(&first, &message) {
            fail(format!("rmcp: bad answer: {first:?}"));
        }

        let mark = Mark::start(server);
        let deadline = Instant::now() + job.seq;
        let mut calls = 0;
        while Instant::now() < deadline {
            let answer = peer.call_tool(params.clone()).await;
            if !echoed(&answer, &message) {
                fail(format!("rmcp: bad answer: {answer:?}"));
            }
            calls += 1;
        }
        let seq = mark.end(server, calls);

        // Spawned before the mark (on the multi-threaded runtime some calls may start a few
        // microseconds before it).
        let (calls, bad) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let deadline = Instant::now() + job.pipe;
        let tasks: Vec<_> = (0..job.depth)
            .map(|_| {
                let (peer, params, message) = (peer.clone(), params.clone(), message.clone());
                let (calls, bad) = (calls.clone(), bad.clone());
                tokio::spawn(async move {
                    while Instant::now() < deadline {
                        if !echoed(&peer.call_tool(params.clone()).await, &message) {
                            bad.fetch_add(1, Ordering::Relaxed);
                        }
                        calls.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        let mark = Mark::start(server);
        for task in tasks {
            task.await.unwrap_or_else(|e| fail(format!("rmcp: task: {e}")));
        }
        let pipe = mark.end(server, calls.load(Ordering::Relaxed));
        if bad.load(Ordering::Relaxed) > 0 {
            fail(format!("rmcp: {} bad answers", bad.load(Ordering::Relaxed)));
        }
        drop(peer);
        let _ = client.cancel().await;
        Report { seq, pipe }
    })
}
