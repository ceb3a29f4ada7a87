//! `host`: the host API, `mcp_sansio_tokio::child::spawn` and `ClientHandle::call_tool`, on a
//! `current_thread` runtime. Pipelined: `--depth` tasks, each awaiting one call at a time (the
//! host API keeps at most `host::MAX_IN_FLIGHT` of them on the wire; the others wait for a
//! permit).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use mcp_sansio::client::{Config, EraPolicy};
use mcp_sansio_tokio::child;
use mcp_sansio_tokio::host::Host;

use crate::{Check, Job, Mark, Report, fail};

pub fn run(job: &Job) -> Report {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(format!("runtime: {e}")));
    runtime.block_on(async {
        let mut command = tokio::process::Command::new(&job.server[0]);
        command.args(&job.server[1..]);
        let config = Config::new("mcp-bench-client", "0.0.0").with_era(EraPolicy::Legacy);
        let client = child::spawn(command, config, Host::new()).unwrap_or_else(|e| fail(format!("spawn: {e}")));
        client.connect().await.unwrap_or_else(|e| fail(format!("host: connect: {e}")));
        let server = client.id().unwrap_or_else(|| fail("host: no child"));
        let arguments: Arc<str> = job.arguments().into();
        let check = Arc::new(Check::new(&job.message));
        let expect = |answer: Result<Vec<u8>, _>| match answer {
            Ok(result) if check.ok(&result) => {}
            other => fail(format!("host: bad answer: {other:?}")),
        };
        expect(client.call_tool("echo", &arguments).await);

        let mark = Mark::start(server);
        let deadline = Instant::now() + job.seq;
        let mut calls = 0;
        while Instant::now() < deadline {
            expect(client.call_tool("echo", &arguments).await);
            calls += 1;
        }
        let seq = mark.end(server, calls);

        // The tasks are spawned before the mark: on this thread they start once this task waits.
        let (calls, bad) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let deadline = Instant::now() + job.pipe;
        let tasks: Vec<_> = (0..job.depth)
            .map(|_| {
                let (handle, arguments, check) = ((*client).clone(), arguments.clone(), check.clone());
                let (calls, bad) = (calls.clone(), bad.clone());
                tokio::spawn(async move {
                    while Instant::now() < deadline {
                        match handle.call_tool("echo", &arguments).await {
                            Ok(result) if check.ok(&result) => {}
                            _ => {
                                bad.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        calls.fetch_add(1, Ordering::Relaxed);
                    }
                })
            })
            .collect();
        let mark = Mark::start(server);
        for task in tasks {
            task.await.unwrap_or_else(|e| fail(format!("host: task: {e}")));
        }
        let pipe = mark.end(server, calls.load(Ordering::Relaxed));
        if bad.load(Ordering::Relaxed) > 0 {
            fail(format!("host: {} bad answers", bad.load(Ordering::Relaxed)));
        }
        let status = client.close().await.unwrap_or_else(|e| fail(format!("host: close: {e}")));
        if !status.success() {
            fail(format!("the server exited with {status}"));
        }
        Report { seq, pipe }
    })
}
