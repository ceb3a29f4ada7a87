//! A real `Server` whose handler defers requests and finishes them from other tasks through a
//! `JobSender`: cancellation, a full transmit buffer behind a blocked writer (the answer is retried,
//! never lost), and a multi-threaded runtime. The whole "answer later" path on tokio.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_sansio::server::{Config, Deferred, Handler, OwnedBuffers, ReplyError, Server, Tool, ToolCall, ToolReply};
use mcp_sansio_tokio::{JobSender, JobStatus, job_queue, run_with_jobs};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, duplex};
use tokio::sync::{Notify, mpsc};

/// Room for every deferred request of the tests.
type SlowServer = Server<'static, Slow, 32>;

static TOOLS: [Tool<'static>; 1] = [Tool::new("slow", "Answers after a delay", r#"{"type":"object"}"#)];

struct Slow {
    sender: JobSender<SlowServer>,
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
        let sender = self.sender.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(delay)).await;
            let _ = sender.submit(move |server: &mut SlowServer, _now| answer(server, &deferred, delay));
        });
    }
}

fn answer(server: &mut SlowServer, deferred: &Deferred, delay: u64) -> JobStatus {
    match server.reply_tool(deferred) {
        Ok(reply) => {
            reply.text_fmt(format_args!("slept {delay} ms")).finish();
            JobStatus::Done
        }
        // The transmit buffer is full: again once output was written.
        Err(ReplyError::Busy) => JobStatus::Retry,
        // A cancelled request is refused here and never answered.
        Err(_) => JobStatus::Done,
    }
}

fn request(id: u32, ms: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow","arguments":{{"ms":{ms}}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    ) + "\n"
}

#[tokio::test(start_paused = true)]
async fn deferred_answers_arrive_from_other_tasks_and_cancellation_suppresses_them() {
    let (sender, jobs) = job_queue::<SlowServer>();
    let buffers = OwnedBuffers::zeroed(4096, 4096, 0);
    let mut server: SlowServer = Server::new_owned(Slow { sender }, Config::new("slow", "1"), buffers);
    let (mut client, server_io) = duplex(4096);
    let (server_in, server_out) = tokio::io::split(server_io);

    let client_side = async move {
        client.write_all(request(1, 50).as_bytes()).await.unwrap();
        client.write_all(request(2, 10).as_bytes()).await.unwrap();
        client.write_all(request(3, 30).as_bytes()).await.unwrap();
        client
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}\n")
            .await
            .unwrap();
        let (read_half, mut write_half) = tokio::io::split(client);
        let mut lines = BufReader::new(read_half).lines();
        let first = lines.next_line().await.unwrap().unwrap();
        let second = lines.next_line().await.unwrap().unwrap();
        write_half.shutdown().await.unwrap();
        let rest = lines.next_line().await.unwrap();
        (first, second, rest)
    };
    let (result, (first, second, rest)) =
        tokio::join!(run_with_jobs(&mut server, server_in, server_out, jobs), client_side);
    result.unwrap();
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    let second: serde_json::Value = serde_json::from_str(&second).unwrap();
    assert_eq!(first["id"], 2, "the shorter sleep answers first");
    assert_eq!(first["result"]["content"][0]["text"], "slept 10 ms");
    assert_eq!(second["id"], 1);
    assert_eq!(rest, None, "the cancelled request 3 is never answered");
    assert_eq!(server.in_flight(), 0);
}

/// Reads answers until `count` lines arrived, then closes the input and expects nothing more.
async fn answers_then_eof(
    mut input: tokio::io::DuplexStream,
    output: tokio::io::DuplexStream,
    count: usize,
) -> Vec<serde_json::Value> {
    let mut lines = BufReader::new(output).lines();
    let mut answers = Vec::new();
    while answers.len() < count {
        let line = lines.next_line().await.unwrap().expect("an answer before EOF");
        answers.push(serde_json::from_str::<serde_json::Value>(&line).unwrap());
    }
    input.shutdown().await.unwrap();
    assert_eq!(lines.next_line().await.unwrap(), None, "nothing after the expected answers");
    answers
}

/// Answers by id, each id at most once.
fn by_id(answers: &[serde_json::Value]) -> HashMap<u64, &serde_json::Value> {
    let mut by_id = HashMap::new();
    for answer in answers {
        let id = answer["id"].as_u64().unwrap();
        assert!(by_id.insert(id, answer).is_none(), "answered twice: {answer}");
    }
    by_id
}

type ParkedServer = Server<'static, Parked>;

static PARKED_TOOLS: [Tool<'static>; 2] = [
    Tool::new("slow", "Answers when the test says so", r#"{"type":"object"}"#),
    Tool::new("fast", "Answers at once", r#"{"type":"object"}"#),
];

/// Defers `slow` calls and hands them to the test; answers `fast` calls at once.
struct Parked {
    parked: mpsc::UnboundedSender<Deferred>,
}

impl Handler for Parked {
    /// A dynamic table: its capabilities are declared.
    fn capabilities(&self) -> mcp_sansio::mcp::ServerCapabilities {
        mcp_sansio::mcp::ServerCapabilities::NONE.with_tools(Default::default())
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        PARKED_TOOLS.get(index).copied()
    }

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        if call.name == "fast" {
            reply.text("fast").finish();
        } else if let Ok(deferred) = reply.defer() {
            let _ = self.parked.send(deferred);
        }
    }
}

fn call(id: u32, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    ) + "\n"
}

#[tokio::test(start_paused = true)]
async fn a_deferred_answer_that_meets_a_full_transmit_buffer_is_retried_and_sent_once() {
    let (sender, jobs) = job_queue::<ParkedServer>();
    let (parked, mut parked_rx) = mpsc::unbounded_channel();
    // The smallest transmit buffer: one answer fills it, so a deferred answer is refused
    // (`ReplyError::Busy`) as long as any output is pending.
    let buffers = OwnedBuffers::zeroed(4096, mcp_sansio::server::MIN_RESPONSE_WINDOW, 0);
    let mut server: ParkedServer = Server::new_owned(Parked { parked }, Config::new("parked", "1"), buffers);
    // Room for every request; 16 bytes of pipe towards the client, which reads nothing until the
    // job ran once.
    let (mut client_in, server_in) = duplex(4096);
    let (server_out, client_out) = duplex(16);

    let attempts = Arc::new(AtomicUsize::new(0));
    let busy = Arc::new(AtomicUsize::new(0));
    let first_attempt = Arc::new(Notify::new());
    let worker = tokio::spawn({
        let (attempts, busy, first_attempt) = (attempts.clone(), busy.clone(), first_attempt.clone());
        async move {
            let deferred = parked_rx.recv().await.unwrap();
            sender
                .submit(move |server: &mut ParkedServer, _now| {
                    attempts.fetch_add(1, Ordering::SeqCst);
                    first_attempt.notify_one();
                    match server.reply_tool(&deferred) {
                        Ok(reply) => {
                            reply.text("deferred answer").finish();
                            JobStatus::Done
                        }
                        Err(ReplyError::Busy) => {
                            busy.fetch_add(1, Ordering::SeqCst);
                            JobStatus::Retry
                        }
                        Err(error) => panic!("{error:?}"),
                    }
                })
                .unwrap();
        }
    });
    let client_side = async {
        let requests = [call(1, "slow"), call(2, "fast"), call(3, "fast"), call(4, "fast")].concat();
        client_in.write_all(requests.as_bytes()).await.unwrap();
        first_attempt.notified().await;
        answers_then_eof(client_in, client_out, 4).await
    };
    // Virtual time: if the loop stalls (a lost answer keeps the server open), time jumps to the
    // deadline at once and the test fails instead of hanging.
    let serve = run_with_jobs(&mut server, server_in, server_out, jobs);
    let (result, answers) = tokio::time::timeout(Duration::from_secs(3600), async { tokio::join!(serve, client_side) })
        .await
        .expect("the loop stalled: the deferred answer was lost");
    result.unwrap();
    worker.await.unwrap();

    let answers = by_id(&answers);
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[&1]["result"]["content"][0]["text"], "deferred answer");
    assert!(busy.load(Ordering::SeqCst) >= 1, "the job ran while the writer was blocked and found no room");
    assert_eq!(attempts.load(Ordering::SeqCst), busy.load(Ordering::SeqCst) + 1, "done at the first attempt with room");
    assert_eq!(server.in_flight(), 0);
}

#[test]
fn senders_of_a_server_are_send_sync_and_clone() {
    fn assert_send_sync_clone<T: Send + Sync + Clone + 'static>() {}
    assert_send_sync_clone::<JobSender<SlowServer>>();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deferred_answers_from_worker_threads_each_arrive_once() {
    let (sender, jobs) = job_queue::<SlowServer>();
    // A transmit buffer small enough that answers from other threads meet pending output and get
    // retried.
    let buffers = OwnedBuffers::zeroed(4096, 512, 0);
    let mut server: SlowServer = Server::new_owned(Slow { sender }, Config::new("slow", "1"), buffers);
    let requests: String = (1..=20).map(|id| request(id, u64::from(id % 4))).collect();
    let (mut client_in, server_in) = duplex(requests.len());
    let (server_out, client_out) = duplex(64);

    let client_side = async move {
        client_in.write_all(requests.as_bytes()).await.unwrap();
        answers_then_eof(client_in, client_out, 20).await
    };
    // A hang guard only (a lost answer keeps the server open forever), not a timing assertion.
    let serve = run_with_jobs(&mut server, server_in, server_out, jobs);
    let (result, answers) = tokio::time::timeout(Duration::from_secs(120), async { tokio::join!(serve, client_side) })
        .await
        .expect("the loop stalled: a deferred answer was lost");
    result.unwrap();
    let answers = by_id(&answers);
    assert_eq!(answers.len(), 20);
    for (id, answer) in answers {
        assert_eq!(answer["result"]["content"][0]["text"], format!("slept {} ms", id % 4), "{answer}");
    }
    assert_eq!(server.in_flight(), 0);
}
