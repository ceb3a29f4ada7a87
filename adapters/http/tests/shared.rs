//! Legacy sessions shared by replicas ([`mcp_sansio_http::shared`]): three endpoints on loopback
//! share one store, as replicas behind a load balancer share Redis, and every request of a session
//! goes to another replica than the one before.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use mcp_sansio::http::SessionId;
use mcp_sansio::server::{Config, ListChanged};
use mcp_sansio_http::shared::{EventsRead, SharedEvent, StoreFuture};
use mcp_sansio_http::{HttpConfig, McpHttp, Notice, SharedSessions, StoreError, serve};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

mod support;
use support::replicated::Replicated;
use support::{BOTH, JSON, Reply, modern, open_session, post_kept_open, read_events, send, task_request};

/// A legacy session opened on `opened`, initialized and its standalone GET stream opened (its priming
/// event read) on `listening`: its id, the stream, and what was read of it.
async fn listening_session(opened: SocketAddr, listening: SocketAddr) -> (String, tokio::net::TcpStream, Vec<u8>) {
    let sid = open_session(opened).await;
    let initialized = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    assert_eq!(post(listening, &sid, &initialized).await.status, 202);
    let get =
        [("Accept", "text/event-stream"), ("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let mut stream = support::get_kept_open(listening, &get).await;
    let mut raw = Vec::new();
    read_events(&mut stream, &mut raw, 0).await;
    (sid, stream, raw)
}

/// A stream's events kept, and whether it ended.
type Kept = (Vec<(u64, Bytes)>, bool);

/// A store in memory that the replicas of a test share, with a bus for relayed answers; it can be
/// made to fail or to stall.
#[derive(Clone)]
struct Store {
    map: Arc<Mutex<HashMap<SessionId, Vec<u8>>>>,
    bus: tokio::sync::broadcast::Sender<Vec<u8>>,
    /// Each stream's events and whether it ended; `arrived` wakes the readers waiting for more.
    events: Arc<Mutex<HashMap<(SessionId, u32), Kept>>>,
    arrived: Arc<tokio::sync::Notify>,
    /// 0: up, 1: failing, 2: stalled.
    mode: Arc<AtomicU8>,
    /// The tasks' records, and until when each replica said it was alive.
    tasks: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    beats: Arc<Mutex<HashMap<u64, std::time::Instant>>>,
}

impl Default for Store {
    fn default() -> Self {
        let bus = tokio::sync::broadcast::channel(16).0;
        let (map, events, arrived, mode, tasks, beats) = Default::default();
        Store { map, bus, events, arrived, mode, tasks, beats }
    }
}

impl Store {
    fn answer<T: Send + 'static>(&self, value: impl FnOnce() -> T + Send + 'static) -> StoreFuture<'_, T> {
        let mode = self.mode.load(Ordering::SeqCst);
        Box::pin(async move {
            match mode {
                0 => Ok(value()),
                1 => Err(StoreError::new("down")),
                _ => std::future::pending().await,
            }
        })
    }
    fn len(&self) -> usize {
        self.map.lock().unwrap().len()
    }
}

impl SharedSessions for Store {
    fn load(&self, id: SessionId, _ttl: Duration) -> StoreFuture<'_, Option<Vec<u8>>> {
        let map = Arc::clone(&self.map);
        self.answer(move || map.lock().unwrap().get(&id).cloned())
    }
    fn save(&self, id: SessionId, state: Vec<u8>, _ttl: Duration) -> StoreFuture<'_, ()> {
        let map = Arc::clone(&self.map);
        self.answer(move || drop(map.lock().unwrap().insert(id, state)))
    }
    fn remove(&self, id: SessionId) -> StoreFuture<'_, ()> {
        let map = Arc::clone(&self.map);
        self.answer(move || drop(map.lock().unwrap().remove(&id)))
    }
    fn publish(&self, message: Vec<u8>) -> StoreFuture<'_, ()> {
        let bus = self.bus.clone();
        self.answer(move || drop(bus.send(message)))
    }
    fn append_events(&self, events: Vec<SharedEvent>, _ttl: Duration) -> StoreFuture<'_, ()> {
        let (kept, arrived) = (Arc::clone(&self.events), Arc::clone(&self.arrived));
        self.answer(move || {
            let mut kept = kept.lock().unwrap();
            for event in events {
                let (stream, ended) = kept.entry((event.session, event.stream)).or_default();
                match event.sequence {
                    SharedEvent::END => *ended = true,
                    sequence => stream.push((sequence, event.event)),
                }
            }
            arrived.notify_waiters();
        })
    }
    fn read_events(&self, session: SessionId, stream: u32, after: u64, wait: Duration) -> StoreFuture<'_, EventsRead> {
        let (kept, arrived, mode) =
            (Arc::clone(&self.events), Arc::clone(&self.arrived), self.mode.load(Ordering::SeqCst));
        Box::pin(async move {
            if mode != 0 {
                return Err(StoreError::new("down"));
            }
            let deadline = tokio::time::Instant::now() + wait;
            loop {
                let notified = arrived.notified();
                let read = {
                    let kept = kept.lock().unwrap();
                    let (events, ended) = kept.get(&(session, stream)).cloned().unwrap_or_default();
                    EventsRead { events: events.into_iter().filter(|(s, _)| *s > after).collect(), ended }
                };
                if !read.events.is_empty() || read.ended || tokio::time::Instant::now() >= deadline {
                    return Ok(read);
                }
                let _ = tokio::time::timeout_at(deadline, notified).await;
            }
        })
    }
    fn save_task(&self, id: String, record: Vec<u8>, _ttl: Duration) -> StoreFuture<'_, ()> {
        let tasks = Arc::clone(&self.tasks);
        self.answer(move || drop(tasks.lock().unwrap().insert(id, record)))
    }
    fn load_task(&self, id: String) -> StoreFuture<'_, Option<Vec<u8>>> {
        let tasks = Arc::clone(&self.tasks);
        self.answer(move || tasks.lock().unwrap().get(&id).cloned())
    }
    fn beat(&self, worker: u64, ttl: Duration) -> StoreFuture<'_, ()> {
        let beats = Arc::clone(&self.beats);
        self.answer(move || {
            beats.lock().unwrap().insert(worker, std::time::Instant::now() + ttl);
        })
    }
    fn is_alive(&self, worker: u64) -> StoreFuture<'_, bool> {
        let beats = Arc::clone(&self.beats);
        self.answer(move || beats.lock().unwrap().get(&worker).is_some_and(|until| *until > std::time::Instant::now()))
    }
    fn subscribe(&self, into: tokio::sync::mpsc::Sender<Vec<u8>>) {
        let mut relayed = self.bus.subscribe();
        tokio::spawn(async move {
            while let Ok(message) = relayed.recv().await {
                if into.send(message).await.is_err() {
                    break;
                }
            }
        });
    }
}

/// Starts replica `number` on loopback with `store`; it serves until the test ends.
async fn replica(number: u8, store: &Store) -> SocketAddr {
    replica_endpoint(number, store).await.0
}

async fn replica_endpoint(number: u8, store: &Store) -> (SocketAddr, McpHttp<Replicated>) {
    // Every request reads the store: what these tests check of it.
    let (addr, endpoint, _) = replica_with(number, store, Duration::ZERO).await;
    (addr, endpoint)
}

/// Replica `number`, serving its own copy of a session for `fresh`; the task serving it, which a
/// test may stop (then dropping the endpoint stops the replica).
async fn replica_with(number: u8, store: &Store, fresh: Duration) -> (SocketAddr, McpHttp<Replicated>, Served) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(Config::new("replica", "1.0.0"), addr);
    config.replica = number;
    config.store_timeout = Duration::from_millis(300);
    config.tasks = Some(mcp_sansio_http::TaskLimits::default());
    config.shared_state_fresh = fresh;
    let endpoint = McpHttp::new(Replicated, config).with_shared_sessions(store.clone());
    let served = tokio::spawn({
        let endpoint = endpoint.clone();
        async move {
            let _ = serve(listener, endpoint, std::future::pending::<()>()).await;
        }
    });
    (addr, endpoint, served)
}

/// The task serving a replica.
type Served = tokio::task::JoinHandle<()>;

async fn post(addr: SocketAddr, sid: &str, body: &Value) -> Reply {
    let headers = [JSON, BOTH, ("Mcp-Session-Id", sid), ("MCP-Protocol-Version", "2025-11-25")];
    send(addr, "POST", &headers, &body.to_string()).await
}

fn echo(id: u32, text: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"echo","arguments":{"text":text}}})
}

/// The stream part of the SSE event ids in `reply` (`<stream>-<sequence>`).
fn streams_of(reply: &Reply) -> Vec<u32> {
    support::sse_ids(&reply.body).iter().map(|id| id.split('-').next().unwrap().parse().unwrap()).collect()
}

#[tokio::test]
async fn any_replica_serves_any_request_of_a_session_and_its_changes_reach_the_others() {
    let store = Store::default();
    let replicas = [replica(1, &store).await, replica(2, &store).await, replica(3, &store).await];
    let sid = open_session(replicas[0]).await;
    assert_eq!(store.len(), 1, "written before the answer went out");
    let initialized = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    assert_eq!(post(replicas[1], &sid, &initialized).await.status, 202);

    // A call on a replica that has never seen the session: its info log and its answer.
    let reply = post(replicas[2], &sid, &echo(1, "on three")).await;
    assert_eq!(reply.status, 200, "{:?}", String::from_utf8_lossy(&reply.body));
    let events = reply.events();
    assert_eq!(events[0]["method"], "notifications/message");
    assert_eq!(events.last().unwrap()["result"]["content"][0]["text"], "on three");
    // Its stream ids carry its replica number, so no other replica names a stream alike.
    assert!(streams_of(&reply).iter().all(|stream| stream >> 24 == 3), "{:?}", streams_of(&reply));

    // The level set on one replica holds on the others: the info log is no longer sent.
    let level = json!({"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}});
    assert!(post(replicas[0], &sid, &level).await.events()[0]["result"].is_object());
    for (i, addr) in replicas.iter().enumerate() {
        let events = post(*addr, &sid, &echo(3 + i as u32, "quiet")).await.events();
        assert_eq!(events.len(), 1, "replica {}: {events:?}", i + 1);
        assert_eq!(events[0]["result"]["content"][0]["text"], "quiet");
    }

    // Ended on one replica, unknown on every one, also those that still held it.
    assert_eq!(send(replicas[1], "DELETE", &[("Mcp-Session-Id", &sid)], "").await.status, 204);
    assert_eq!(store.len(), 0);
    for addr in replicas {
        assert_eq!(post(addr, &sid, &echo(9, "gone")).await.status, 404);
    }
    let unknown = "0123456789abcdef0123456789abcdef";
    assert_eq!(post(replicas[0], unknown, &echo(10, "never")).await.status, 404);
}

#[tokio::test]
async fn a_failing_or_stalled_store_is_a_clear_503_and_the_replica_recovers_when_it_answers_again() {
    let store = Store::default();
    let (one, two) = (replica(1, &store).await, replica(2, &store).await);
    let sid = open_session(one).await;
    for mode in [1, 2] {
        store.mode.store(mode, Ordering::SeqCst);
        let started = std::time::Instant::now();
        let reply = post(two, &sid, &echo(1, "store away")).await;
        assert_eq!(reply.status, 503, "mode {mode}");
        assert_eq!(reply.header("retry-after"), Some("1"));
        assert_eq!(reply.json()["error"]["message"], "Service Unavailable: the session store is unavailable");
        assert!(started.elapsed() < Duration::from_secs(3), "bounded by the store timeout");
        // A new session that cannot be written is refused, and not kept.
        let refused = send(one, "POST", &[JSON, BOTH], &support::initialize()).await;
        assert_eq!(refused.status, 503, "mode {mode}");
        assert_eq!(refused.header("mcp-session-id"), None);
    }
    assert_eq!(store.len(), 1);
    store.mode.store(0, Ordering::SeqCst);
    let reply = post(two, &sid, &echo(2, "back")).await;
    assert_eq!(reply.events().last().unwrap()["result"]["content"][0]["text"], "back");
}

/// Three replicas sharing `store`, and a session (2025-11-25, taking elicitation) opened on the
/// first: its id.
async fn three_asking(store: &Store) -> ([SocketAddr; 3], String) {
    let replicas = [replica(1, store).await, replica(2, store).await, replica(3, store).await];
    let sid = support::open_asking_session(replicas[0]).await;
    (replicas, sid)
}

/// Calls `greet` in session `sid` on `addr`, which asks the client for a name: the call's stream
/// kept open, what was read of it, and the question's id.
async fn greet_asking(addr: SocketAddr, sid: &str) -> (tokio::net::TcpStream, Vec<u8>, Value) {
    let greet = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}});
    let mut stream = post_kept_open(addr, &session_headers(sid), &greet.to_string()).await;
    let mut raw = Vec::new();
    let body = read_events(&mut stream, &mut raw, 1).await;
    let question: Value = serde_json::from_str(&support::sse_data(&body)[0]).unwrap();
    assert_eq!(question["method"], "elicitation/create");
    (stream, raw, question["id"].clone())
}

/// The client's answer `name` to question `id`, POSTed to `addr`: its status.
async fn answer_name(addr: SocketAddr, sid: &str, id: &Value, name: &str) -> Reply {
    let answer = json!({"jsonrpc":"2.0","id":id,"result":{"action":"accept","content":{"name":name}}});
    send(addr, "POST", &session_headers(sid), &answer.to_string()).await
}

/// The result a `greet` call's stream ends with.
async fn greeting(stream: &mut tokio::net::TcpStream, raw: &mut Vec<u8>) -> Value {
    let body = read_events(stream, raw, 2).await;
    serde_json::from_str(&support::sse_data(&body)[1]).unwrap()
}

fn session_headers(sid: &str) -> [(&str, &str); 4] {
    [JSON, BOTH, ("Mcp-Session-Id", sid), ("MCP-Protocol-Version", "2025-11-25")]
}

#[tokio::test]
async fn an_answer_to_the_servers_request_reaching_another_replica_is_relayed_to_the_waiting_one() {
    let store = Store::default();
    let (replicas, sid) = three_asking(&store).await;
    // Each call waits on its replica for the client's answer, which comes through another one.
    for (asked, answered) in [(1, 2), (2, 0)] {
        let (mut stream, mut raw, id) = greet_asking(replicas[asked], &sid).await;
        let relayed = answer_name(replicas[answered], &sid, &id, "Ada").await;
        assert_eq!(relayed.status, 202, "{:?}", String::from_utf8_lossy(&relayed.body));
        let result = greeting(&mut stream, &mut raw).await;
        assert_eq!(result["id"], 1);
        let (asked, answered) = (asked + 1, answered + 1);
        assert_eq!(result["result"]["content"][0]["text"], "Ada", "replica {asked} asked, {answered} answered");
    }
    // An answer no replica waits for is accepted and dropped; with the bus down it is a clear 503.
    let stray = json!({"jsonrpc":"2.0","id":77,"result":{}}).to_string();
    assert_eq!(send(replicas[1], "POST", &session_headers(&sid), &stray).await.status, 202);
    store.mode.store(1, Ordering::SeqCst);
    assert_eq!(send(replicas[1], "POST", &session_headers(&sid), &stray).await.status, 503);
}

#[tokio::test]
async fn replicas_waiting_at_once_ask_under_ids_of_their_own_and_each_takes_only_its_answer() {
    // Two calls of one session wait on two replicas at once for the client's answers. The answers
    // reach every replica; each must take only its own (replicas counting their request ids from
    // the same shared state asked both questions under one id, and the first answer went to both).
    let store = Store::default();
    let (replicas, sid) = three_asking(&store).await;
    let mut waiting = [greet_asking(replicas[1], &sid).await, greet_asking(replicas[2], &sid).await];
    assert_ne!(waiting[0].2, waiting[1].2, "two replicas asked under one id");
    for ((stream, raw, id), name) in waiting.iter_mut().zip(["Ada", "Bob"]) {
        assert_eq!(answer_name(replicas[0], &sid, id, name).await.status, 202);
        let result = greeting(stream, raw).await;
        assert_eq!(result["result"]["content"][0]["text"], name, "{result}");
    }
}

#[tokio::test]
async fn a_change_announced_on_one_replica_reaches_the_streams_every_replica_holds() {
    let store = Store::default();
    let (one, announcer) = replica_endpoint(1, &store).await;
    let (two, three) = (replica(2, &store).await, replica(3, &store).await);
    // A legacy session opened on one replica, its GET stream on another.
    let (_, mut legacy, mut legacy_raw) = listening_session(one, two).await;
    // A 2026-07-28 listen stream on the third.
    let listen = json!({"jsonrpc":"2.0","id":"listen","method":"subscriptions/listen","params":{
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},
        "notifications":{"toolsListChanged":true}}});
    let headers = [JSON, BOTH, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "subscriptions/listen")];
    let mut modern = post_kept_open(three, &headers, &listen.to_string()).await;
    let mut modern_raw = Vec::new();
    let acknowledged = read_events(&mut modern, &mut modern_raw, 1).await;
    assert!(support::sse_data(&acknowledged)[0].contains("notifications/subscriptions/acknowledged"));

    announcer.announce(Notice::ListChanged(ListChanged::Tools)).await.expect("published");
    let body = read_events(&mut legacy, &mut legacy_raw, 1).await;
    assert!(support::sse_data(&body)[0].contains("notifications/tools/list_changed"), "legacy GET on replica 2");
    let body = read_events(&mut modern, &mut modern_raw, 2).await;
    assert!(support::sse_data(&body)[1].contains("notifications/tools/list_changed"), "listen stream on replica 3");
    // The store down: the announcement fails, clearly.
    store.mode.store(1, Ordering::SeqCst);
    assert!(announcer.announce(Notice::ListChanged(ListChanged::Tools)).await.is_err());
}

#[tokio::test]
async fn a_subscription_made_through_one_replica_holds_for_the_get_stream_another_serves() {
    let store = Store::default();
    let (one, announcer) = replica_endpoint(1, &store).await;
    let (two, three) = (replica(2, &store).await, replica(3, &store).await);
    // The GET stream opens on replica 2 before the subscription is made on replica 3.
    let (sid, mut stream, mut raw) = listening_session(one, two).await;
    let subscribe = json!({"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///watched"}});
    assert!(post(three, &sid, &subscribe).await.events()[0]["result"].is_object());
    // Replica 2 learns of it from the bus (before the announcement, published after it), not from
    // a request of the session.
    announcer.announce(Notice::ResourceUpdated("file:///watched".into())).await.expect("published");
    let body = read_events(&mut stream, &mut raw, 1).await;
    let update = &support::sse_data(&body)[0];
    assert!(update.contains("notifications/resources/updated") && update.contains("file:///watched"), "{update}");
}

#[tokio::test]
async fn a_stream_of_one_replica_resumes_on_another_with_what_was_missed_and_what_comes_later() {
    let store = Store::default();
    let replicas = [replica(1, &store).await, replica(2, &store).await, replica(3, &store).await];
    let sid = support::open_asking_session(replicas[0]).await;
    let session = [JSON, BOTH, ("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let resume = |last: String| {
        let sid = sid.clone();
        async move {
            let headers = [
                ("Accept", "text/event-stream"),
                ("Mcp-Session-Id", sid.as_str()),
                ("Last-Event-ID", last.as_str()),
                ("Connection", "close"),
            ];
            support::get_kept_open(replicas[2], &headers).await
        }
    };
    let greet = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}});
    // 1. The call's stream breaks after the question; the answer comes; the client resumes on
    //    replica 3 and gets the rest (the result), and the stream ends.
    let mut call = post_kept_open(replicas[0], &session, &greet.to_string()).await;
    let (question, last) = support::question_and_its_id(&mut call).await;
    drop(call);
    let answer = json!({"jsonrpc":"2.0","id":question["id"],"result":{"action":"accept","content":{"name":"Ada"}}});
    assert_eq!(send(replicas[1], "POST", &session, &answer.to_string()).await.status, 202);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut resumed = resume(last.clone()).await;
    let mut raw = Vec::new();
    let read = tokio::io::AsyncReadExt::read_to_end(&mut resumed, &mut raw);
    assert!(
        tokio::time::timeout(Duration::from_secs(5), read).await.is_ok(),
        "the resumed stream ends with the call's"
    );
    let replay = support::parse(&raw);
    assert_eq!(replay.status, 200);
    let events = replay.events();
    assert_eq!(events.len(), 1, "only what followed {last}: {events:?}");
    assert_eq!(events[0]["result"]["content"][0]["text"], "Ada");
    assert_eq!(last.split('-').next().unwrap().parse::<u32>().unwrap() >> 24, 1, "replica 1's stream: {last}");

    // 2. Resumed before the answer: the result arrives on the resumed stream as it is written.
    let greet = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet"}});
    let mut call = post_kept_open(replicas[0], &session, &greet.to_string()).await;
    let (question, last) = support::question_and_its_id(&mut call).await;
    drop(call);
    let mut resumed = resume(last).await;
    let mut raw = Vec::new();
    // The resumed stream waits (the answer is not given yet).
    tokio::time::sleep(Duration::from_millis(100)).await;
    let answer = json!({"jsonrpc":"2.0","id":question["id"],"result":{"action":"accept","content":{"name":"Grace"}}});
    assert_eq!(send(replicas[1], "POST", &session, &answer.to_string()).await.status, 202);
    let body = read_events(&mut resumed, &mut raw, 1).await;
    let result: Value = serde_json::from_str(&support::sse_data(&body)[0]).unwrap();
    assert_eq!((result["id"].clone(), result["result"]["content"][0]["text"].clone()), (json!(2), json!("Grace")));
}

#[tokio::test]
async fn a_get_stream_resumed_on_another_replica_gets_what_it_missed_then_that_replicas_notifications() {
    let store = Store::default();
    let (one, announcer) = replica_endpoint(1, &store).await;
    let two = replica(2, &store).await;
    let (sid, mut stream, mut raw) = listening_session(one, one).await;
    let changed = || announcer.announce(Notice::ListChanged(ListChanged::Tools));
    changed().await.expect("published");
    let body = read_events(&mut stream, &mut raw, 1).await;
    let seen = support::sse_ids(&body).into_iter().rfind(|id| !id.ends_with("-0")).expect("an event");
    assert_eq!(seen.split('-').next().unwrap().parse::<u32>().unwrap(), 1 << 24 | 1, "replica 1's standalone stream");
    // The connection breaks; one more change is written to replica 1's stream meanwhile.
    drop(stream);
    tokio::time::sleep(Duration::from_millis(100)).await;
    changed().await.expect("published");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let resume = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Last-Event-ID", seen.as_str()),
    ];
    let mut resumed = support::get_kept_open(two, &resume).await;
    let mut raw = Vec::new();
    let body = read_events(&mut resumed, &mut raw, 1).await;
    assert_eq!(support::sse_data(&body).len(), 1, "the missed change, once");
    // Then replica 2's own standalone stream: the next change comes from it.
    changed().await.expect("published");
    let body = read_events(&mut resumed, &mut raw, 2).await;
    let data = support::sse_data(&body);
    assert_eq!(data.len(), 2, "{data:?}");
    assert!(data.iter().all(|d| d.contains("notifications/tools/list_changed")), "{data:?}");
    let ids = support::sse_ids(&body);
    assert_eq!(ids.last().unwrap().split('-').next().unwrap().parse::<u32>().unwrap(), 2 << 24 | 1, "{ids:?}");
}

#[tokio::test]
async fn a_task_is_answered_for_through_any_replica() {
    let store = Store::default();
    let replicas = [replica(1, &store).await, replica(2, &store).await, replica(3, &store).await];
    let created = modern(replicas[0], &task_request(1, "tools/call", json!({"name": "remember"}))).await;
    let task = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("a task: {created}")).to_owned();
    for (i, addr) in replicas.iter().enumerate() {
        let got = modern(*addr, &task_request(2 + i as u32, "tasks/get", json!({"taskId": task}))).await;
        assert_eq!(got["id"], 2 + i as u32, "replica {}: {got}", i + 1);
        assert_eq!(got["result"]["status"], "completed", "replica {}: {got}", i + 1);
        assert_eq!(got["result"]["result"]["content"][0]["text"], "remembered");
    }
    // No replica holds it: answered as unknown (after the others had their chance).
    let unknown = modern(replicas[1], &task_request(9, "tasks/get", json!({"taskId": "0000"}))).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    // Cancelled through another replica: ended already, so refused as the holder refuses it.
    let cancel = modern(replicas[2], &task_request(10, "tasks/cancel", json!({"taskId": task}))).await;
    let here = modern(replicas[0], &task_request(11, "tasks/cancel", json!({"taskId": task}))).await;
    assert_eq!(cancel["error"], here["error"], "{cancel} {here}");
}

#[tokio::test]
async fn a_task_whose_replica_stopped_is_answered_for_as_failed_by_another() {
    let store = Store::default();
    let (worker, endpoint, served) = replica_with(1, &store, Duration::ZERO).await;
    let other = replica(2, &store).await;
    let created = modern(worker, &task_request(1, "tools/call", json!({"name": "linger"}))).await;
    let task = created["result"]["taskId"].as_str().unwrap_or_else(|| panic!("a task: {created}")).to_owned();
    let got = modern(other, &task_request(2, "tasks/get", json!({"taskId": task}))).await;
    assert_eq!(got["result"]["status"], "working", "answered by its replica: {got}");
    assert!(store.tasks.lock().unwrap().contains_key(&task), "recorded in the store");

    // Its replica stops: no answer, then no beat.
    served.abort();
    drop(endpoint);
    let started = std::time::Instant::now();
    let failed = loop {
        let got = modern(other, &task_request(3, "tasks/get", json!({"taskId": task}))).await;
        if got["result"]["status"] == "failed" {
            break got;
        }
        assert_eq!(got["result"]["status"], "working", "never unknown: {got}");
        assert!(started.elapsed() < Duration::from_secs(10), "failed within the beat's timeout: {got}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert!(started.elapsed() >= Duration::from_secs(1), "not before its replica's beat ended: {failed}");
    let message = failed["result"]["statusMessage"].as_str().unwrap_or_default().to_owned();
    assert!(message.contains("stopped"), "{failed}");
    // Asked again, or through a third replica: failed too; never working again.
    let third = replica(3, &store).await;
    for (id, addr) in [(4, other), (5, third)] {
        let got = modern(addr, &task_request(id, "tasks/get", json!({"taskId": task}))).await;
        assert_eq!(got["result"]["status"], "failed", "{got}");
    }
    // Cancelled after it ended: it stays failed.
    let cancel = modern(other, &task_request(6, "tasks/cancel", json!({"taskId": task}))).await;
    assert!(cancel["result"].is_object() || cancel["error"].is_object(), "{cancel}");
    let got = modern(third, &task_request(7, "tasks/get", json!({"taskId": task}))).await;
    assert_eq!(got["result"]["status"], "failed", "{got}");
}

/// A 2025-11-25 request of session `sid`; its answer (a JSON body or the stream's last event).
async fn legacy(addr: SocketAddr, sid: &str, id: u32, method: &str, params: Value) -> Value {
    let reply = post(addr, sid, &json!({"jsonrpc":"2.0","id":id,"method":method,"params":params})).await;
    serde_json::from_slice(&reply.body).unwrap_or_else(|_| reply.events().pop().expect("an answer"))
}

/// A session (2025-11-25, taking elicitation) opened on `opened` and initialized on `initialized`.
async fn asking_session(opened: SocketAddr, initialized: SocketAddr) -> String {
    let sid = support::open_asking_session(opened).await;
    let notification = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
    assert_eq!(post(initialized, &sid, &notification).await.status, 202);
    sid
}

/// Calls `tool` as a 2025-11-25 task of session `sid` on `addr`: the task's id.
async fn legacy_task(addr: SocketAddr, sid: &str, tool: &str) -> String {
    let created = legacy(addr, sid, 1, "tools/call", json!({"name": tool, "task": {"ttl": 60_000}})).await;
    created["result"]["task"]["taskId"].as_str().unwrap_or_else(|| panic!("a task: {created}")).to_owned()
}

#[tokio::test]
async fn a_sessions_task_is_followed_read_and_cancelled_through_any_replica() {
    let store = Store::default();
    let replicas = [replica(1, &store).await, replica(2, &store).await, replica(3, &store).await];
    let sid = asking_session(replicas[0], replicas[1]).await;
    let task = legacy_task(replicas[0], &sid, "remember").await;
    assert!(store.tasks.lock().unwrap().contains_key(&task), "recorded in the store");
    for (i, addr) in replicas.iter().enumerate() {
        let got = legacy(*addr, &sid, 2 + i as u32, "tasks/get", json!({"taskId": task})).await;
        assert_eq!(got["id"], 2 + i as u32, "replica {}: {got}", i + 1);
        assert_eq!(got["result"]["status"], "completed", "replica {}: {got}", i + 1);
    }
    let result = legacy(replicas[2], &sid, 5, "tasks/result", json!({"taskId": task})).await;
    assert_eq!(result["result"]["content"][0]["text"], "remembered", "{result}");
    assert_eq!(result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task, "{result}");
    // No replica holds it: answered as unknown (after the others had their chance); nor does
    // another session see it.
    let unknown = legacy(replicas[1], &sid, 6, "tasks/get", json!({"taskId": "0000"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let other = asking_session(replicas[1], replicas[2]).await;
    let foreign = legacy(replicas[2], &other, 7, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");
    // Cancelled through another replica: ended already, so refused as its replica refuses it.
    let cancel = legacy(replicas[2], &sid, 8, "tasks/cancel", json!({"taskId": task})).await;
    let here = legacy(replicas[0], &sid, 9, "tasks/cancel", json!({"taskId": task})).await;
    assert_eq!(cancel["error"], here["error"], "{cancel} {here}");
    assert!(cancel["error"].is_object(), "{cancel}");
    // A task still working, cancelled through another replica.
    let working = legacy_task(replicas[1], &sid, "linger").await;
    let cancelled = legacy(replicas[0], &sid, 10, "tasks/cancel", json!({"taskId": working})).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let got = legacy(replicas[2], &sid, 11, "tasks/get", json!({"taskId": working})).await;
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    // Listed through any replica: the tasks of every replica, the one asked holding one or none.
    for (i, addr) in replicas.iter().enumerate() {
        let listed = legacy(*addr, &sid, 12 + i as u32, "tasks/list", json!({})).await;
        assert_eq!(listed["id"], 12 + i as u32, "{listed}");
        let mut ids: Vec<&str> = listed["result"]["tasks"]
            .as_array()
            .unwrap_or_else(|| panic!("{listed}"))
            .iter()
            .map(|task| task["taskId"].as_str().unwrap())
            .collect();
        ids.sort_unstable();
        let mut want = [task.as_str(), working.as_str()];
        want.sort_unstable();
        assert_eq!(ids, want, "replica {}: {listed}", i + 1);
    }
    // Another session's list has none of them.
    let listed = legacy(replicas[0], &other, 15, "tasks/list", json!({})).await;
    assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
    // Replica 2's engine for the session stays awake (it holds a task), and still takes what
    // another replica changed: the level set through replica 1 silences its info log.
    let level = json!({"jsonrpc":"2.0","id":16,"method":"logging/setLevel","params":{"level":"error"}});
    assert!(post(replicas[0], &sid, &level).await.events()[0]["result"].is_object());
    let events = post(replicas[1], &sid, &echo(17, "quiet")).await.events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["result"]["content"][0]["text"], "quiet");
}

#[tokio::test]
async fn a_sessions_task_asks_through_the_tasks_result_another_replica_serves() {
    let store = Store::default();
    let replicas = [replica(1, &store).await, replica(2, &store).await, replica(3, &store).await];
    let sid = asking_session(replicas[0], replicas[1]).await;
    let task = legacy_task(replicas[0], &sid, "confirm").await;
    let got = legacy(replicas[1], &sid, 2, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(got["result"]["status"], "input_required", "{got}");
    // tasks/result through replica 3: the question comes on its stream, from replica 1's engine.
    let session = [JSON, BOTH, ("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let read = json!({"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId": task}});
    let mut stream = post_kept_open(replicas[2], &session, &read.to_string()).await;
    let mut raw = Vec::new();
    let body = read_events(&mut stream, &mut raw, 1).await;
    let question: Value = serde_json::from_str(&support::sse_data(&body)[0]).unwrap();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    assert_eq!(question["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task, "{question}");
    // Its priming event names replica 1's stream, which a client may resume on any replica.
    let ids = support::sse_ids(&body);
    assert!(ids.iter().all(|id| id.split('-').next().unwrap().parse::<u32>().unwrap() >> 24 == 1), "{ids:?}");
    // Answered through replica 2: relayed to replica 1, where the task runs on; its result ends
    // the stream replica 3 serves.
    let answer = json!({"jsonrpc":"2.0","id":question["id"],"result":{"action":"accept","content":{"ok":true}}});
    assert_eq!(send(replicas[1], "POST", &session, &answer.to_string()).await.status, 202);
    let body = read_events(&mut stream, &mut raw, 2).await;
    let result: Value = serde_json::from_str(&support::sse_data(&body)[1]).unwrap();
    assert_eq!(result["id"], 3, "{result}");
    assert_eq!(result["result"]["content"][0]["text"], "confirmed", "{result}");
    let got = legacy(replicas[2], &sid, 4, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(got["result"]["status"], "completed", "{got}");
}

#[tokio::test]
async fn a_sessions_task_whose_replica_stopped_is_answered_for_as_failed_by_another() {
    let store = Store::default();
    let (worker, endpoint, served) = replica_with(1, &store, Duration::ZERO).await;
    let (other, third) = (replica(2, &store).await, replica(3, &store).await);
    let sid = asking_session(worker, other).await;
    let task = legacy_task(worker, &sid, "linger").await;
    let got = legacy(other, &sid, 2, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(got["result"]["status"], "working", "answered by its replica: {got}");

    served.abort();
    drop(endpoint);
    let started = std::time::Instant::now();
    let failed = loop {
        let got = legacy(other, &sid, 3, "tasks/get", json!({"taskId": task})).await;
        if got["result"]["status"] == "failed" {
            break got;
        }
        assert_eq!(got["result"]["status"], "working", "never unknown: {got}");
        assert!(started.elapsed() < Duration::from_secs(10), "failed within the beat's timeout: {got}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    let message = failed["result"]["statusMessage"].as_str().unwrap_or_default().to_owned();
    assert!(message.contains("stopped"), "{failed}");
    // Through the third replica too, and its tasks/result is the failure.
    let got = legacy(third, &sid, 4, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(got["result"]["status"], "failed", "{got}");
    let result = legacy(third, &sid, 5, "tasks/result", json!({"taskId": task})).await;
    assert!(result["error"]["message"].as_str().unwrap_or_default().contains("stopped"), "{result}");
}

#[tokio::test]
async fn a_tasks_result_followed_through_another_replica_ends_failed_when_the_tasks_replica_stops() {
    let store = Store::default();
    let (worker, endpoint, served) = replica_with(1, &store, Duration::ZERO).await;
    let other = replica(2, &store).await;
    let sid = asking_session(worker, other).await;
    let task = legacy_task(worker, &sid, "linger").await;
    let session = [JSON, BOTH, ("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let read = json!({"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId": task}});
    let mut stream = post_kept_open(other, &session, &read.to_string()).await;
    let mut raw = Vec::new();
    // Replica 2 follows replica 1's stream (its priming event first); then replica 1 stops.
    let mut buf = [0u8; 4096];
    while !raw.windows(3).any(|w| w == b"-0\n") {
        let read = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await;
        let n = read.unwrap_or_else(|_| panic!("no priming event: {:?}", String::from_utf8_lossy(&raw))).unwrap();
        assert!(n > 0, "{:?}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&buf[..n]);
    }
    served.abort();
    drop(endpoint);
    let started = std::time::Instant::now();
    let answer = loop {
        let n = tokio::time::timeout(Duration::from_secs(15), stream.read(&mut buf)).await.expect("an answer").unwrap();
        assert!(n > 0, "ended without an answer: {:?}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&buf[..n]);
        let body = support::dechunk(&raw[raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4..]);
        if let Some(data) = support::sse_data(&body).first() {
            break serde_json::from_str::<Value>(data).unwrap();
        }
    };
    assert!(started.elapsed() < Duration::from_secs(10), "within the beat's timeout and a check");
    assert_eq!(answer["id"], 2, "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap_or_default().contains("stopped"), "{answer}");
    // Taken in by replica 2, which answers for it from now on.
    let got = legacy(other, &sid, 3, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(got["result"]["status"], "failed", "{got}");
}

#[tokio::test]
async fn a_fresh_copy_is_served_without_the_store_and_a_session_ended_elsewhere_ends_it() {
    let store = Store::default();
    let fresh = Duration::from_secs(60);
    let (one, two) = (replica_with(1, &store, fresh).await.0, replica_with(2, &store, fresh).await.0);
    let sid = open_session(one).await;
    assert_eq!(answer_text(&post(two, &sid, &echo(1, "read")).await), "read");
    // Both copies are fresh: served with the store down.
    store.mode.store(1, Ordering::SeqCst);
    for (i, addr) in [one, two].into_iter().enumerate() {
        assert_eq!(answer_text(&post(addr, &sid, &echo(2 + i as u32, "copy")).await), "copy");
    }
    store.mode.store(0, Ordering::SeqCst);
    // Ended through one replica: the other's copy ends too, told through the bus.
    assert_eq!(send(one, "DELETE", &[("Mcp-Session-Id", &sid)], "").await.status, 204);
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while post(two, &sid, &echo(4, "gone")).await.status != 404 {
        assert!(std::time::Instant::now() < deadline, "replica 2 still serves the ended session");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn answer_text(reply: &Reply) -> Value {
    assert_eq!(reply.status, 200, "{:?}", String::from_utf8_lossy(&reply.body));
    reply.events().pop().expect("an answer")["result"]["content"][0]["text"].clone()
}
