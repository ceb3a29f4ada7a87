//! Legacy sessions shared by replicas ([`mcp_sansio_http::shared`]): three endpoints on loopback
//! share one store, as replicas behind a load balancer share Redis, and every request of a session
//! goes to another replica than the one before.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_sansio::http::SessionId;
use mcp_sansio::mcp::{LoggingLevel, ServerCapabilities};
use mcp_sansio::server::{Config, Handler, Tool, ToolCall, ToolReply};
use mcp_sansio_http::shared::StoreFuture;
use mcp_sansio_http::{HttpConfig, McpHttp, SharedSessions, StoreError, serve};
use serde_json::{Value, json};

mod support;
use support::{BOTH, JSON, Reply, open_session, send};

/// A store in memory that the replicas of a test share; it can be made to fail or to stall.
#[derive(Clone, Default)]
struct Store {
    map: Arc<Mutex<HashMap<SessionId, Vec<u8>>>>,
    /// 0: up, 1: failing, 2: stalled.
    mode: Arc<AtomicU8>,
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
}

static TOOLS: [Tool<'static>; 1] = [Tool::new("echo", "Echoes text, logging it at info", r#"{"type":"object"}"#)];

struct Echo;

impl Handler for Echo {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::NONE.with_tools(Default::default()).with_logging()
    }
    fn call_tool(&mut self, call: ToolCall<'_>, mut reply: ToolReply<'_>) {
        let text = call.argument("text").and_then(|v| v.as_str());
        let _ = reply.log(LoggingLevel::Info, None, format_args!("echoing"));
        match text {
            Some(text) => reply.text_json(text).finish(),
            None => reply.finish_error_text("missing text"),
        }
    }
}

/// Starts replica `number` on loopback with `store`; it serves until the test ends.
async fn replica(number: u8, store: &Store) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(Config::new("replica", "1.0.0"), addr);
    config.replica = number;
    config.store_timeout = Duration::from_millis(300);
    let endpoint = McpHttp::new(Echo, config).with_shared_sessions(store.clone());
    tokio::spawn(serve(listener, endpoint, std::future::pending::<()>()));
    addr
}

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
