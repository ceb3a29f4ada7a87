//! A server whose handler defers every tool call and answers it from a task spawned on the
//! runtime's executor, through a `JobSender`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_sansio::server::{Config, Deferred, Handler, OwnedBuffers, ReplyError, Server, Tool, ToolCall, ToolReply};
use mcp_sansio_futures::{JobQueue, JobSender, JobStatus, job_queue};

use super::Runtime;

/// Room for every deferred request of the tests.
pub type SlowServer = Server<'static, Slow, 32>;

static TOOLS: [Tool<'static>; 1] = [Tool::new("slow", "Answers after a delay", r#"{"type":"object"}"#)];

/// Defers every call; a task spawned on `runtime` answers it after `ms` milliseconds.
pub struct Slow {
    sender: JobSender<SlowServer>,
    runtime: Runtime,
    /// Times a job found the transmit buffer full.
    busy: Arc<AtomicUsize>,
}

impl Handler for Slow {
    /// A dynamic table: its capabilities are declared.
    fn capabilities(&self) -> mcp_sansio::mcp::ServerCapabilities {
        mcp_sansio::mcp::ServerCapabilities::NONE.with_tools(Default::default())
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        TOOLS.get(index).copied()
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        let delay = call.argument("ms").and_then(|v| v.as_u64()).unwrap_or(0);
        let Ok(deferred) = reply.defer() else { return };
        let (sender, runtime, busy) = (self.sender.clone(), self.runtime, self.busy.clone());
        self.runtime.spawn(async move {
            runtime.sleep(Duration::from_millis(delay)).await;
            let _ = sender.submit(move |server: &mut SlowServer, _now| answer(server, &deferred, delay, &busy));
        });
    }
}

fn answer(server: &mut SlowServer, deferred: &Deferred, delay: u64, busy: &AtomicUsize) -> JobStatus {
    match server.reply_tool(deferred) {
        Ok(reply) => {
            reply.text_fmt(format_args!("slept {delay} ms")).finish();
            JobStatus::Done
        }
        Err(ReplyError::Busy) => {
            busy.fetch_add(1, Ordering::SeqCst);
            JobStatus::Retry
        }
        // A cancelled request is refused here and never answered.
        Err(_) => JobStatus::Done,
    }
}

pub fn slow_server(runtime: Runtime, tx: usize) -> (SlowServer, JobQueue<SlowServer>, Arc<AtomicUsize>) {
    let (sender, jobs) = job_queue::<SlowServer>();
    let busy = Arc::new(AtomicUsize::new(0));
    let handler = Slow { sender, runtime, busy: busy.clone() };
    let buffers = OwnedBuffers::zeroed(8192, tx, 0);
    (Server::new_owned(handler, Config::new("slow", "1"), buffers), jobs, busy)
}

pub fn request(id: u32, ms: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow","arguments":{{"ms":{ms}}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    ) + "\n"
}
