//! An endpoint of several shards (`McpHttp::sharded`): requests of different shards run at once,
//! handlers included, in both eras; a deferred answer, a task and a cancellation reach the engine
//! of their shard.

mod support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_sansio::mcp::{ListCapability, ServerCapabilities, TaskSupport};
use mcp_sansio::server::{Config, Deferred, Event, Handler, Tool, ToolCall, ToolReply};
use mcp_sansio_http::{HttpConfig, McpHttp, Serving, serve};
use serde_json::{Value, json};
use support::{BOTH, JSON, modern, open_session, send, task_request};

static TOOLS: [Tool<'static>; 3] = [
    Tool::new("meet", "Waits a while for a second call to arrive", r#"{"type":"object"}"#),
    Tool::new("later", "Answered later, through McpHttp::with_engine", r#"{"type":"object"}"#),
    Tool::new("remember", "Runs as a task", r#"{"type":"object"}"#).with_task_support(TaskSupport::Optional),
];

/// What the shards' handlers share.
#[derive(Default)]
struct Shared {
    /// `meet` calls that arrived so far.
    arrived: AtomicUsize,
    /// Deferred `later` calls, with the engine that holds each.
    deferred: Mutex<Vec<(Serving, Deferred)>>,
    cancelled: AtomicUsize,
}

/// One shard's handler.
struct Meeting {
    shared: Arc<Shared>,
    /// How long `meet` waits for a second call.
    patience: Duration,
}

impl Handler for Meeting {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::NONE.with_tools(ListCapability { list_changed: false })
    }
    fn call_tool(&mut self, call: ToolCall<'_>, mut reply: ToolReply<'_>) {
        match call.name {
            "meet" => {
                // Met: another call arrived while this one waited (the other shard's handler ran
                // meanwhile), or before it.
                self.shared.arrived.fetch_add(1, Ordering::SeqCst);
                let started = Instant::now();
                while self.shared.arrived.load(Ordering::SeqCst) < 2 && started.elapsed() < self.patience {
                    std::hint::spin_loop();
                }
                let met = self.shared.arrived.load(Ordering::SeqCst) >= 2;
                reply.text(if met { "met" } else { "alone" }).finish()
            }
            "later" => {
                let engine = mcp_sansio_http::serving().expect("called by the endpoint");
                if let Ok(deferred) = reply.defer() {
                    self.shared.deferred.lock().unwrap().push((engine, deferred));
                }
            }
            _ => {
                let _ = reply.run_as_task();
                reply.text("remembered").finish()
            }
        }
    }
    fn on_event(&mut self, _now: mcp_sansio::time::Instant, event: Event<'_>) {
        if matches!(event, Event::Cancelled { .. }) {
            self.shared.cancelled.fetch_add(1, Ordering::SeqCst);
        }
    }
}

struct Server {
    addr: SocketAddr,
    endpoint: McpHttp<Meeting>,
    shared: Arc<Shared>,
}

async fn start(shards: usize, patience: Duration) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(Config::new("sharded", "1.0.0"), addr);
    config.tasks = Some(mcp_sansio_http::TaskLimits::default());
    let shared = Arc::new(Shared::default());
    let make = || Meeting { shared: Arc::clone(&shared), patience };
    let endpoint = McpHttp::sharded(make, shards, config);
    tokio::spawn(serve(listener, endpoint.clone(), std::future::pending()));
    Server { addr, endpoint, shared }
}

/// Calls `meet` in a legacy session; its text.
async fn meet_in(addr: SocketAddr, session: &str) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "meet"}});
    let reply = send(addr, "POST", &[JSON, BOTH, ("Mcp-Session-Id", session)], &call.to_string()).await;
    reply.events()[0]["result"]["content"][0]["text"].clone()
}

/// Two `meet` calls at once, 2026-07-28 ones or in two legacy sessions: whether each met the other.
async fn meet_twice(server: &Server, legacy: bool) -> [Value; 2] {
    server.shared.arrived.store(0, Ordering::SeqCst);
    let addr = server.addr;
    let calls: Vec<_> = if legacy {
        let sessions = [open_session(addr).await, open_session(addr).await];
        sessions.map(|session| tokio::spawn(async move { meet_in(addr, &session).await })).into()
    } else {
        (0..2)
            .map(|id| {
                let call = task_request(id, "tools/call", json!({"name": "meet"}));
                tokio::spawn(async move { modern(addr, &call).await["result"]["content"][0]["text"].clone() })
            })
            .collect()
    };
    let mut met = Vec::new();
    for call in calls {
        met.push(call.await.unwrap());
    }
    [met[0].clone(), met[1].clone()]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_of_different_shards_run_at_once_in_both_eras_and_one_shard_runs_them_in_turn() {
    let sharded = start(4, Duration::from_secs(5)).await;
    assert_eq!(meet_twice(&sharded, false).await, [json!("met"), json!("met")], "2026-07-28");
    assert_eq!(meet_twice(&sharded, true).await, [json!("met"), json!("met")], "legacy sessions");
    assert_eq!(sharded.endpoint.session_count(), 2);
    // One shard: the first call waits alone (its patience short here), the second comes after it.
    let single = start(1, Duration::from_millis(300)).await;
    for legacy in [false, true] {
        let mut met = meet_twice(&single, legacy).await;
        met.sort_by_key(Value::to_string);
        assert_eq!(met, [json!("alone"), json!("met")], "legacy: {legacy}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_answer_reaches_the_engine_of_its_shard() {
    let server = start(3, Duration::ZERO).await;
    let addr = server.addr;
    let calls: Vec<_> = (0..3)
        .map(|id| {
            let call = task_request(id, "tools/call", json!({"name": "later"}));
            tokio::spawn(async move { modern(addr, &call).await })
        })
        .collect();
    let started = Instant::now();
    while server.shared.deferred.lock().unwrap().len() < 3 {
        assert!(started.elapsed() < Duration::from_secs(5), "the calls reached the handlers");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let deferred = std::mem::take(&mut *server.shared.deferred.lock().unwrap());
    let mut engines: Vec<Serving> = deferred.iter().map(|(engine, _)| *engine).collect();
    engines.sort_by_key(|engine| format!("{engine:?}"));
    assert_eq!(engines, [Serving::Stateless(0), Serving::Stateless(1), Serving::Stateless(2)], "one call per shard");
    for (engine, deferred) in deferred {
        let text = format!("{engine:?}");
        let answered = server.endpoint.with_engine(engine, |engine, _| {
            engine.reply_tool(&deferred).map(|reply| reply.text(&text).finish()).is_ok()
        });
        assert_eq!(answered, Some(true), "{engine:?}");
    }
    let mut answers = Vec::new();
    for call in calls {
        let answer = call.await.unwrap();
        answers.push(answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{answer}")).to_owned());
    }
    answers.sort();
    assert_eq!(answers, ["Stateless(0)", "Stateless(1)", "Stateless(2)"]);
    assert_eq!(server.endpoint.with_engine(Serving::Stateless(3), |_, _| ()), None, "no such shard");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_answered_for_by_the_shard_that_holds_it_and_a_closed_response_cancels_in_its_shard() {
    let server = start(3, Duration::ZERO).await;
    let created = modern(server.addr, &task_request(1, "tools/call", json!({"name": "remember"}))).await;
    let task = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("a task: {created}")).to_owned();
    // Stateless requests go to the shards in turn: these reach every shard first, unless routed.
    for id in 2..8 {
        let got = modern(server.addr, &task_request(id, "tasks/get", json!({"taskId": task}))).await;
        assert_eq!(got["result"]["status"], "completed", "{got}");
    }
    let unknown = modern(server.addr, &task_request(9, "tasks/get", json!({"taskId": "0000"}))).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // A `later` call whose client goes away: cancelled in the engine that holds it.
    let mut kept = Vec::new();
    for id in 10..13 {
        let call = task_request(id, "tools/call", json!({"name": "later"}));
        let headers =
            [JSON, BOTH, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "later")];
        kept.push(support::post_kept_open(server.addr, &headers, &call.to_string()).await);
    }
    let started = Instant::now();
    while server.shared.deferred.lock().unwrap().len() < 3 {
        assert!(started.elapsed() < Duration::from_secs(5), "the calls reached the handlers");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    drop(kept);
    while server.shared.cancelled.load(Ordering::SeqCst) < 3 {
        assert!(started.elapsed() < Duration::from_secs(5), "each engine cancelled its call");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
