//! The HTTP endpoint over loopback TCP, driven by a raw HTTP/1.1 client: both eras, the refusals,
//! and a broken legacy stream resumed with `Last-Event-ID`.

use std::net::SocketAddr;
use std::time::Duration;

use mcp_sansio::server::{Config, Deferred, Event, Handler, Tool, ToolCall, ToolReply};
use mcp_sansio_http::{HttpConfig, McpHttp, serve};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

mod support;
use support::{
    BOTH, JSON, Reply, initialize, open_session, parse, post_kept_open, read_events, send, sse_data, sse_ids,
};

static TOOLS: [Tool<'static>; 2] = [
    Tool::new("echo", "Echoes text", r#"{"type":"object","properties":{"text":{"type":"string"}}}"#),
    Tool::new("slow", "Answered later", r#"{"type":"object"}"#),
];

#[derive(Default)]
struct Echo {
    deferred: Vec<Deferred>,
    /// Which engine served each deferred call ([`mcp_sansio_http::serving`]).
    served_by: Vec<Option<mcp_sansio_http::Serving>>,
    cancelled: usize,
}

impl Handler for Echo {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        if call.name == "slow" {
            if let Ok(deferred) = reply.defer() {
                self.deferred.push(deferred);
                self.served_by.push(mcp_sansio_http::serving());
            }
            return;
        }
        match call.argument("text").and_then(|v| v.as_str()) {
            Some(text) => reply.text_json(text).finish(),
            None => reply.finish_error_text("missing text"),
        }
    }
    fn on_event(&mut self, _now: mcp_sansio::time::Instant, event: Event<'_>) {
        if matches!(event, Event::Cancelled { .. }) {
            self.cancelled += 1;
        }
    }
}

struct Server {
    addr: SocketAddr,
    endpoint: McpHttp<Echo>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn start(tune: impl FnOnce(&mut HttpConfig)) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(Config::new("loopback", "1.0.0"), addr);
    config.max_body_bytes = 64 * 1024;
    tune(&mut config);
    let endpoint = McpHttp::new(Echo::default(), config);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(listener, endpoint.clone(), async move {
        let _ = stopped.await;
    }));
    Server { addr, endpoint, _stop: stop }
}

fn modern_call(id: u32, text: &str) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"echo","arguments":{"text":text},
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})
    .to_string()
}

const MODERN: [(&str, &str); 5] =
    [JSON, BOTH, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")];

#[tokio::test]
async fn stateless_posts_answer_as_json_or_sse_and_notifications_get_202() {
    let server = start(|_| {}).await;
    let reply = send(server.addr, "POST", &MODERN, &modern_call(1, "hi")).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.json()["result"]["content"][0]["text"], "hi");
    assert_eq!(reply.header("mcp-session-id"), None, "2026-07-28 mints no session");

    let mut sse_only = MODERN;
    sse_only[1] = ("Accept", "text/event-stream");
    let reply = send(server.addr, "POST", &sse_only, &modern_call(2, "there")).await;
    assert_eq!((reply.status, reply.header("content-type")), (200, Some("text/event-stream")));
    let events = reply.events();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["id"], 2);
    assert_eq!(events[0]["result"]["content"][0]["text"], "there");

    // An error answered on SSE keeps its status.
    let future = modern_call(5, "x").replace("2026-07-28", "2099-01-01");
    let mut future_headers = sse_only;
    future_headers[2] = ("MCP-Protocol-Version", "2099-01-01");
    let reply = send(server.addr, "POST", &future_headers, &future).await;
    assert_eq!((reply.status, reply.header("content-type")), (400, Some("text/event-stream")));
    assert_eq!(reply.events()[0]["error"]["code"], -32022);

    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}});
    let headers = [JSON, BOTH, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "notifications/cancelled")];
    let reply = send(server.addr, "POST", &headers, &cancel.to_string()).await;
    assert_eq!((reply.status, reply.body.len()), (202, 0));

    // Header rules with their statuses.
    let mut wrong_name = MODERN;
    wrong_name[4] = ("Mcp-Name", "other");
    let reply = send(server.addr, "POST", &wrong_name, &modern_call(3, "x")).await;
    assert_eq!(
        (reply.status, reply.json()["error"]["code"].clone(), reply.json()["id"].clone()),
        (400, json!(-32020), json!(3))
    );
    let unknown = json!({"jsonrpc":"2.0","id":4,"method":"no/such","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}});
    let headers = [JSON, BOTH, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "no/such")];
    let reply = send(server.addr, "POST", &headers, &unknown.to_string()).await;
    assert_eq!((reply.status, reply.json()["error"]["code"].clone()), (404, json!(-32601)));
    // 2026-07-28 is POST only.
    assert_eq!(send(server.addr, "GET", &[("Accept", "text/event-stream")], "").await.status, 405);
    assert_eq!(send(server.addr, "DELETE", &[], "").await.status, 405);
}

#[tokio::test]
async fn a_legacy_session_is_created_used_and_deleted() {
    let server = start(|_| {}).await;
    let sid = open_session(server.addr).await;
    assert_eq!(sid.len(), 32);
    assert!(sid.bytes().all(|b| b.is_ascii_hexdigit()));
    let session = ("Mcp-Session-Id", sid.as_str());
    let version = ("MCP-Protocol-Version", "2025-11-25");
    let initialized = json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string();
    assert_eq!(send(server.addr, "POST", &[JSON, BOTH, session, version], &initialized).await.status, 202);
    let call =
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"legacy"}}});
    let reply = send(server.addr, "POST", &[JSON, BOTH, session, version], &call.to_string()).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.events()[0]["result"]["content"][0]["text"], "legacy");
    // 2025-11-25 streams start with a priming event: an id, `retry`, empty data.
    assert!(String::from_utf8_lossy(&reply.body).contains("retry: 1000\ndata:\n\n"));
    assert_eq!(server.endpoint.session_count(), 1);
    // Answered, it holds nothing but the session: suspended until its next request.
    assert_eq!(server.endpoint.suspended_session_count(), 1);
    let mut more = Vec::new();
    for _ in 0..12 {
        more.push(open_session(server.addr).await);
    }
    assert_eq!(server.endpoint.session_count(), 13);
    assert_eq!(server.endpoint.suspended_session_count(), 13);
    let reply = send(server.addr, "POST", &[JSON, BOTH, session, version], &call.to_string()).await;
    assert_eq!(reply.events()[0]["result"]["content"][0]["text"], "legacy", "woken with its session");
    for sid in &more {
        assert_eq!(send(server.addr, "DELETE", &[("Mcp-Session-Id", sid.as_str())], "").await.status, 204);
    }

    assert_eq!(send(server.addr, "DELETE", &[session], "").await.status, 204);
    assert_eq!(server.endpoint.session_count(), 0);
    assert_eq!(send(server.addr, "POST", &[JSON, BOTH, session], &call.to_string()).await.status, 404);
}

#[tokio::test]
async fn sessions_are_required_known_and_expire() {
    let server = start(|c| c.session_idle_timeout = Duration::from_millis(200)).await;
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}).to_string();
    let missing = send(server.addr, "POST", &[JSON, BOTH], &call).await;
    assert_eq!((missing.status, missing.json()["id"].clone()), (400, json!(1)));
    let unknown = ("Mcp-Session-Id", "0123456789abcdef0123456789abcdef");
    assert_eq!(send(server.addr, "POST", &[JSON, BOTH, unknown], &call).await.status, 404);
    assert_eq!(send(server.addr, "POST", &[JSON, BOTH, ("Mcp-Session-Id", "x")], &call).await.status, 404);

    let sid = open_session(server.addr).await;
    let session = ("Mcp-Session-Id", sid.as_str());
    assert_eq!(send(server.addr, "POST", &[JSON, BOTH, session], &call).await.status, 200);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(send(server.addr, "POST", &[JSON, BOTH, session], &call).await.status, 404, "expired");
    assert_eq!(server.endpoint.session_count(), 0);
    // The client re-initialises, as a 404 tells it to, and is served in its new session.
    let renewed = open_session(server.addr).await;
    assert_ne!(renewed, sid);
    let session = ("Mcp-Session-Id", renewed.as_str());
    assert_eq!(send(server.addr, "POST", &[JSON, BOTH, session], &call).await.status, 200);
    // A session whose client went away is swept by another client's request (at most once a
    // second).
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let other = open_session(server.addr).await;
    assert_ne!(other, renewed);
    assert_eq!(server.endpoint.session_count(), 1, "the idle session swept");
}

#[tokio::test]
async fn refusals_rebinding_size_and_framing() {
    let server = start(|_| {}).await;
    // DNS rebinding: a foreign Host/Origin on a loopback server.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let body = modern_call(1, "x");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: evil.example.com\r\nOrigin: http://evil.example.com\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    assert_eq!(parse(&raw).status, 403);
    let foreign_origin = send(server.addr, "POST", &[JSON, BOTH, ("Origin", "http://evil.example.com")], &body).await;
    assert_eq!(foreign_origin.status, 403);

    // Too large, declared or not.
    let big = "x".repeat(64 * 1024 + 1);
    assert_eq!(send(server.addr, "POST", &MODERN, &big).await.status, 413);
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let chunk = format!("{:x}\r\n{big}\r\n0\r\n\r\n", big.len());
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{chunk}",
        server.addr
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    assert_eq!(parse(&raw).status, 413);

    // A body in several chunks, arriving apart, is joined whole.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let call = modern_call(7, "in pieces");
    let (a, rest) = call.split_at(10);
    let (b, c) = rest.split_at(rest.len() / 2);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\nTransfer-Encoding: chunked\r\n\r\n",
        server.addr
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    for piece in [a, b, c] {
        stream.write_all(format!("{:x}\r\n{piece}\r\n", piece.len()).as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stream.write_all(b"0\r\n\r\n").await.unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    let reply = parse(&raw);
    assert_eq!((reply.status, reply.json()["result"]["content"][0]["text"].clone()), (200, json!("in pieces")));

    // Content-Length with Transfer-Encoding: refused.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{{}}\r\n0\r\n\r\n",
        server.addr
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut raw)).await;
    assert_eq!(parse(&raw).status, 400);

    // Media types and paths.
    assert_eq!(send(server.addr, "POST", &[("Content-Type", "text/plain"), BOTH], "{}").await.status, 415);
    assert_eq!(send(server.addr, "POST", &[JSON, ("Accept", "text/html")], "{}").await.status, 406);
    assert_eq!(send(server.addr, "PUT", &[JSON], "{}").await.status, 405);
}

/// Reads a chunked SSE response from `stream` until `events` message events arrived; returns the
/// de-chunked bytes so far.
#[tokio::test]
async fn a_broken_stream_resumes_from_last_event_id_losing_and_repeating_nothing() {
    let server = start(|_| {}).await;
    let sid = open_session(server.addr).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n",
        server.addr
    );
    stream.write_all(get.as_bytes()).await.unwrap();
    // Wait for the stream to be open (its priming event) before anything is sent on it.
    let mut raw = Vec::new();
    let body = read_events(&mut stream, &mut raw, 0).await;
    assert_eq!(sse_ids(&body), ["1-0"]);
    let note = |n: u32| format!(r#"{{"level":"info","data":"n{n}"}}"#);
    for n in 1..=3 {
        assert_eq!(server.endpoint.notify_sessions("notifications/message", Some(&note(n))), 1);
    }
    let body = read_events(&mut stream, &mut raw, 3).await;
    let ids = sse_ids(&body);
    // The priming event, then three notifications.
    assert_eq!(ids.len(), 4, "{:?}", String::from_utf8_lossy(&body));
    assert_eq!(ids[0], "1-0");
    let last_seen = ids[2].clone(); // the client got n1 and n2 only, say
    drop(stream); // the connection breaks
    tokio::time::sleep(Duration::from_millis(50)).await;
    for n in 4..=5 {
        server.endpoint.notify_sessions("notifications/message", Some(&note(n)));
    }
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let resume = format!(
        "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\nLast-Event-ID: {last_seen}\r\n\r\n",
        server.addr
    );
    stream.write_all(resume.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let body = read_events(&mut stream, &mut raw, 3).await;
    let data: Vec<Value> = sse_data(&body).iter().map(|d| serde_json::from_str(d).unwrap()).collect();
    let texts: Vec<&str> = data.iter().map(|m| m["params"]["data"].as_str().unwrap()).collect();
    assert_eq!(texts, ["n3", "n4", "n5"]);
    // Live again: the next notification arrives on the resumed stream, once.
    server.endpoint.notify_sessions("notifications/message", Some(&note(6)));
    let body = read_events(&mut stream, &mut raw, 4).await;
    let texts: Vec<String> = sse_data(&body)
        .iter()
        .map(|d| serde_json::from_str::<Value>(d).unwrap()["params"]["data"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["n3", "n4", "n5", "n6"]);
    // A second standalone stream is refused while this one is open.
    let second =
        send(server.addr, "GET", &[("Accept", "text/event-stream"), ("Mcp-Session-Id", sid.as_str())], "").await;
    assert_eq!(second.status, 409);
}

/// Sends a POST on a new connection and leaves it open, for the caller to read (or drop).
/// Resumes `sid`'s stream after `last` (an event id) and reads the replay to its end.
async fn resume(addr: SocketAddr, sid: &str, last: &str) -> Reply {
    let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", sid), ("Last-Event-ID", last)];
    send(addr, "GET", &headers, "").await
}

#[tokio::test]
async fn answers_delivered_whole_are_kept_for_a_resume_only_while_recent_and_broken_ones_are_kept() {
    let server = start(|config| config.event_limits.max_delivered_streams = 2).await;
    let sid = open_session(server.addr).await;
    let headers = [JSON, BOTH, ("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let call = |id: u32, name: &str| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":{"text":format!("t{id}")}}})
            .to_string()
    };
    // A slow call whose connection breaks after the priming event: its answer comes later.
    let mut stream = post_kept_open(server.addr, &headers, &call(1, "slow")).await;
    let mut raw = Vec::new();
    let primed = read_events(&mut stream, &mut raw, 0).await;
    let broken = sse_ids(&primed)[0].clone();
    drop(stream);
    wait_for(&server, |app| app.deferred.len() == 1).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let sessions = server.endpoint.session_ids();
    let answered = server.endpoint.with_engine(sessions[0], |engine, app| {
        // The handler learned which engine holds the call.
        assert_eq!(app.served_by.pop(), Some(Some(mcp_sansio_http::Serving::Session(sessions[0]))));
        assert_eq!(mcp_sansio_http::serving(), Some(mcp_sansio_http::Serving::Session(sessions[0])));
        let deferred = app.deferred.pop().unwrap();
        engine.reply_tool(&deferred).map(|reply| reply.text("later").finish()).is_ok()
    });
    assert_eq!(answered, Some(true));
    // Three answers delivered whole, each on its own stream.
    let mut primings = Vec::new();
    for id in 2..=4 {
        let reply = send(server.addr, "POST", &headers, &call(id, "echo")).await;
        assert_eq!(reply.events()[0]["result"]["content"][0]["text"], format!("t{id}"));
        primings.push(sse_ids(&reply.body)[0].clone());
    }
    let text = |reply: &Reply| reply.events().first().map(|m| m["result"]["content"][0]["text"].clone());
    // The oldest delivered one is gone; the two most recent replay; the broken one replays.
    assert_eq!(text(&resume(server.addr, &sid, &primings[0]).await), None);
    assert_eq!(text(&resume(server.addr, &sid, &primings[1]).await), Some(json!("t3")));
    assert_eq!(text(&resume(server.addr, &sid, &primings[2]).await), Some(json!("t4")));
    assert_eq!(text(&resume(server.addr, &sid, &broken).await), Some(json!("later")));
}

#[tokio::test]
async fn legacy_answers_given_at_once_and_alone_are_json_bodies_when_configured_and_others_stream() {
    let server = start(|config| config.legacy_json_answers = true).await;
    let reply = send(server.addr, "POST", &[JSON, BOTH], &initialize()).await;
    assert_eq!((reply.status, reply.header("content-type")), (200, Some("application/json")));
    assert_eq!(reply.json()["result"]["protocolVersion"], "2025-11-25");
    let sid = reply.header("mcp-session-id").expect("a session id").to_owned();
    let headers = [JSON, BOTH, ("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let call = |id: u32, name: &str| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":{"text":format!("t{id}")}}})
            .to_string()
    };
    let reply = send(server.addr, "POST", &headers, &call(1, "echo")).await;
    assert_eq!((reply.status, reply.header("content-type")), (200, Some("application/json")));
    assert_eq!(reply.json()["result"]["content"][0]["text"], "t1");
    assert_eq!(server.endpoint.suspended_session_count(), 1, "answered: nothing but the session left");
    // An error answer alone is a JSON body too, with the legacy status (200).
    let unknown = json!({"jsonrpc":"2.0","id":2,"method":"no/such"}).to_string();
    let reply = send(server.addr, "POST", &headers, &unknown).await;
    assert_eq!((reply.status, reply.header("content-type")), (200, Some("application/json")));
    assert_eq!(reply.json()["error"]["code"], -32601);
    // A client that takes only SSE gets SSE.
    let mut sse_only = headers;
    sse_only[1] = ("Accept", "text/event-stream");
    let reply = send(server.addr, "POST", &sse_only, &call(3, "echo")).await;
    assert_eq!((reply.status, reply.header("content-type")), (200, Some("text/event-stream")));
    assert_eq!(reply.events()[0]["result"]["content"][0]["text"], "t3");
    // An answer given later streams: the priming event now, the answer when it is given.
    let mut stream = post_kept_open(server.addr, &headers, &call(4, "slow")).await;
    let mut raw = Vec::new();
    let primed = read_events(&mut stream, &mut raw, 0).await;
    assert!(String::from_utf8_lossy(&primed).contains("retry: 1000\ndata:\n\n"));
    wait_for(&server, |app| app.deferred.len() == 1).await;
    let session = server.endpoint.session_ids()[0];
    let answered = server.endpoint.with_engine(session, |engine, app| {
        let deferred = app.deferred.pop().unwrap();
        engine.reply_tool(&deferred).map(|reply| reply.text("later").finish()).is_ok()
    });
    assert_eq!(answered, Some(true));
    let body = read_events(&mut stream, &mut raw, 1).await;
    assert!(String::from_utf8_lossy(&raw).contains("content-type: text/event-stream"));
    let events: Vec<Value> = sse_data(&body).iter().map(|d| serde_json::from_str(d).unwrap()).collect();
    assert_eq!(events[0]["result"]["content"][0]["text"], "later");
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed_after_the_head_timeout() {
    let server = start(|c| c.header_read_timeout = Duration::from_millis(300)).await;
    let mut stream = post_kept_open(server.addr, &MODERN, &modern_call(1, "a")).await;
    let mut buf = [0u8; 4096];
    let n = stream.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
    // Kept alive, then idle: closed by the server within the timeout (plus slack), not left open.
    let started = std::time::Instant::now();
    let closed = tokio::time::timeout(Duration::from_secs(3), async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the idle connection stayed open");
    assert!(started.elapsed() >= Duration::from_millis(250));
}

/// Reads one response with a `Content-Length` body from a kept-alive connection.
async fn read_response(stream: &mut TcpStream) -> Reply {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let length = parse(&raw).header("content-length").map_or(0, |v| v.parse::<usize>().unwrap());
            if raw.len() >= split + 4 + length {
                return parse(&raw);
            }
        }
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf)).await.unwrap().unwrap();
        assert!(n > 0, "closed before the whole response: {:?}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&buf[..n]);
    }
}

#[tokio::test]
async fn a_request_served_past_the_head_timeout_is_answered_and_the_next_head_gets_its_own() {
    let server = start(|c| c.header_read_timeout = Duration::from_millis(300)).await;
    let mut stream = post_kept_open(server.addr, &MODERN, &modern_call(1, "a")).await;
    assert_eq!(read_response(&mut stream).await.status, 200);
    // A second request on the connection, answered after twice the head timeout: not cut.
    let mut request = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\n", server.addr);
    for (name, value) in SLOW {
        request += &format!("{name}: {value}\r\n");
    }
    let body = slow_call(2);
    request += &format!("Content-Length: {}\r\n\r\n{body}", body.len());
    stream.write_all(request.as_bytes()).await.unwrap();
    wait_for(&server, |app| app.deferred.len() == 1).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(mcp_sansio_http::serving(), None, "outside a handler call");
    let answered = server.endpoint.with_engine(mcp_sansio_http::Serving::Stateless(0), |engine, app| {
        assert_eq!(app.served_by.pop(), Some(Some(mcp_sansio_http::Serving::Stateless(0))));
        let deferred = app.deferred.pop().unwrap();
        engine.reply_tool(&deferred).map(|reply| reply.text("later").finish()).is_ok()
    });
    assert_eq!(answered, Some(true));
    let reply = read_response(&mut stream).await;
    assert_eq!((reply.status, reply.json()["result"]["content"][0]["text"].clone()), (200, json!("later")));
    // Then idle: closed once the next head is awaited for the timeout, counted from the answer.
    let started = std::time::Instant::now();
    let mut buf = [0u8; 256];
    let closed = tokio::time::timeout(Duration::from_secs(3), async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "the idle connection stayed open");
    assert!(started.elapsed() >= Duration::from_millis(250), "closed after {:?}", started.elapsed());
}

#[tokio::test]
async fn shutdown_closes_idle_kept_alive_connections_and_serve_returns_before_the_grace_period() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = HttpConfig::new(Config::new("loopback", "1.0.0"), addr);
    assert!(config.shutdown_grace >= Duration::from_secs(5));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(serve(listener, McpHttp::new(Echo::default(), config), async move {
        let _ = stopped.await;
    }));
    // Two kept-alive connections, answered once each, then idle.
    let mut idle = Vec::new();
    for id in 1..=2 {
        let mut stream = post_kept_open(addr, &MODERN, &modern_call(id, "a")).await;
        assert_eq!(read_response(&mut stream).await.status, 200);
        idle.push(stream);
    }
    let started = std::time::Instant::now();
    stop.send(()).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(4), served).await;
    assert!(matches!(result, Ok(Ok(Ok(())))), "serve did not return: {result:?}");
    assert!(started.elapsed() < Duration::from_secs(2), "returned after {:?}", started.elapsed());
    for stream in &mut idle {
        let mut buf = [0u8; 64];
        let read = tokio::time::timeout(Duration::from_secs(2), stream.read(&mut buf)).await;
        assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "an idle connection was left open: {read:?}");
    }
}

#[tokio::test]
async fn a_body_not_received_in_time_gets_408() {
    let server = start(|c| c.body_read_timeout = Duration::from_millis(200)).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let mut request = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n", server.addr);
    for (name, value) in MODERN {
        request += &format!("{name}: {value}\r\n");
    }
    request += "Content-Length: 100\r\n\r\n{\"jsonrpc\":";
    stream.write_all(request.as_bytes()).await.unwrap();
    let started = std::time::Instant::now();
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(3), stream.read_to_end(&mut raw)).await;
    assert_eq!(parse(&raw).status, 408);
    assert!(started.elapsed() >= Duration::from_millis(150), "answered after {:?}", started.elapsed());
}

/// Writes a POST of `body` with `headers` on a kept-alive connection.
async fn post_on(stream: &mut TcpStream, addr: SocketAddr, headers: &[(&str, &str)], body: &str) {
    let mut request = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nX-Extra: 1\r\n");
    for (name, value) in headers {
        request += &format!("{name}: {value}\r\n");
    }
    request += &format!("Content-Length: {}\r\n\r\n{body}", body.len());
    stream.write_all(request.as_bytes()).await.unwrap();
}

/// The names of a response's header fields, sorted.
fn header_names(reply: &Reply) -> Vec<&str> {
    let mut names: Vec<&str> = reply.headers.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    names
}

#[tokio::test]
async fn responses_on_a_kept_alive_connection_carry_only_their_own_headers() {
    let server = start(|_| {}).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let notification = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99,
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})
    .to_string();
    let notify = [JSON, BOTH, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "notifications/cancelled")];
    post_on(&mut stream, server.addr, &MODERN, &modern_call(1, "a")).await;
    for id in 1..=3 {
        let reply = read_response(&mut stream).await;
        assert_eq!((reply.status, reply.json()["id"].clone()), (200, json!(id)));
        assert_eq!(header_names(&reply), ["content-length", "content-type", "date"], "response {id}");
        assert_eq!(reply.header("content-type"), Some("application/json"));
        post_on(&mut stream, server.addr, &notify, &notification).await;
        let accepted = read_response(&mut stream).await;
        assert_eq!(accepted.status, 202);
        assert!(header_names(&accepted).iter().all(|n| ["content-length", "date"].contains(n)), "{accepted:?}");
        post_on(&mut stream, server.addr, &MODERN, &modern_call(id + 1, "b")).await;
    }
}

/// A request in the legacy session `sid`: `tools/call` of `echo` with `text`.
async fn legacy_echo(addr: SocketAddr, sid: &str, text: &str) -> Reply {
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":text}}});
    let headers = [JSON, BOTH, ("Mcp-Session-Id", sid), ("MCP-Protocol-Version", "2025-11-25")];
    send(addr, "POST", &headers, &call.to_string()).await
}

/// Opens `sid`'s standalone stream and keeps reading it (the connection stays open).
async fn listening(addr: SocketAddr, sid: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\
         MCP-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 64];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut head)).await.unwrap().unwrap();
    assert!(head[..n].starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&head[..n]));
    stream
}

#[tokio::test]
async fn a_full_session_table_ends_the_idlest_session_and_refuses_only_when_every_one_is_read() {
    let server = start(|c| c.max_sessions = 2).await;
    let addr = server.addr;
    let first = open_session(addr).await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    let second = open_session(addr).await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    // Full: the new session ends the one unused the longest, whose next request gets 404 (its
    // client initializes again).
    let third = open_session(addr).await;
    assert_eq!(server.endpoint.session_count(), 2);
    assert_eq!(legacy_echo(addr, &first, "a").await.status, 404);
    assert_eq!(legacy_echo(addr, &second, "b").await.status, 200);
    // A session whose stream a client reads is not ended: with every one read, a new one is refused.
    let _second_reads = listening(addr, &second).await;
    let _third_reads = listening(addr, &third).await;
    let refused = send(addr, "POST", &[JSON, BOTH], &initialize()).await;
    assert_eq!(refused.status, 503);
    assert_eq!(refused.header("retry-after"), Some("1"), "when to try again");
    assert_eq!(send(addr, "DELETE", &[("Mcp-Session-Id", third.as_str())], "").await.status, 204);
    open_session(addr).await;
}

#[tokio::test]
async fn a_flood_of_initialize_requests_does_not_lock_other_clients_out() {
    // Defaults: 256 sessions, 30 min of idle time before a session ends by itself.
    let server = start(|_| {}).await;
    let addr = server.addr;
    // One attacker: 1,000 sessions opened and never used again.
    for _ in 0..10 {
        futures_join(100, |_| async move { open_session(addr).await }).await;
    }
    assert_eq!(server.endpoint.session_count(), 256);
    // Then 100 clients at once, each opening its session and using it: all are served.
    let served = futures_join(100, |i| async move {
        let sid = open_session(addr).await;
        let reply = legacy_echo(addr, &sid, &format!("client {i}")).await;
        (reply.status, reply.events().first().map(|e| e["result"]["content"][0]["text"].clone()))
    })
    .await;
    for (i, (status, text)) in served.into_iter().enumerate() {
        assert_eq!((status, text), (200, Some(json!(format!("client {i}")))), "client {i}");
    }
}

fn slow_call(id: u32) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"slow",
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})
    .to_string()
}

const SLOW: [(&str, &str); 5] =
    [JSON, BOTH, ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "slow")];

async fn wait_for(server: &Server, what: impl Fn(&mut Echo) -> bool) {
    for _ in 0..200 {
        if server.endpoint.with_handler(&what) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("condition not reached in time");
}

#[tokio::test]
async fn a_deferred_answer_is_completed_later_and_a_closed_stream_cancels_its_request() {
    let server = start(|_| {}).await;
    // Answered later through `with_engine`, while the client waits for its JSON body.
    let addr = server.addr;
    let waiting = tokio::spawn(async move { send(addr, "POST", &SLOW, &slow_call(1)).await });
    wait_for(&server, |app| app.deferred.len() == 1).await;
    let answered = server.endpoint.with_engine(mcp_sansio_http::Serving::Stateless(0), |engine, app| {
        let deferred = app.deferred.pop().unwrap();
        engine.reply_tool(&deferred).map(|reply| reply.text("later").finish()).is_ok()
    });
    assert_eq!(answered, Some(true));
    let reply = waiting.await.unwrap();
    assert_eq!((reply.status, reply.json()["result"]["content"][0]["text"].clone()), (200, json!("later")));

    // A client that gives up closes the stream: the request is cancelled.
    let stream = post_kept_open(server.addr, &SLOW, &slow_call(2)).await;
    wait_for(&server, |app| app.deferred.len() == 1).await;
    assert_eq!(server.endpoint.with_handler(|app| app.cancelled), 0);
    drop(stream);
    wait_for(&server, |app| app.cancelled == 1).await;
    let late = server.endpoint.with_engine(mcp_sansio_http::Serving::Stateless(0), |engine, app| {
        let deferred = app.deferred.pop().unwrap();
        engine.reply_tool(&deferred).err()
    });
    assert_eq!(late, Some(Some(mcp_sansio::server::ReplyError::Cancelled)));
}

#[tokio::test]
async fn the_deprecated_http_sse_transport_answers_on_its_stream() {
    let server = start(|c| c.legacy_sse = Some(mcp_sansio::http::SsePaths::DEFAULT)).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let get = format!("GET /sse HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n", server.addr);
    stream.write_all(get.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let body = read_events(&mut stream, &mut raw, 1).await;
    let text = String::from_utf8_lossy(&body).into_owned();
    let endpoint =
        text.strip_prefix("event: endpoint\ndata: ").and_then(|t| t.strip_suffix("\n\n")).unwrap().to_owned();
    assert!(endpoint.starts_with("/messages?sessionId="), "{endpoint}");

    let post = |body: String| {
        let endpoint = endpoint.clone();
        let addr = server.addr;
        async move {
            let mut s = TcpStream::connect(addr).await.unwrap();
            let request = format!(
                "POST {endpoint} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            s.write_all(request.as_bytes()).await.unwrap();
            let mut raw = Vec::new();
            s.read_to_end(&mut raw).await.unwrap();
            parse(&raw).status
        }
    };
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},
        "clientInfo":{"name":"old","version":"1"}}});
    assert_eq!(post(init.to_string()).await, 202);
    let call =
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"old"}}});
    assert_eq!(post(call.to_string()).await, 202);
    let body = read_events(&mut stream, &mut raw, 3).await;
    let messages: Vec<Value> =
        sse_data(&body).iter().filter(|d| d.starts_with('{')).map(|d| serde_json::from_str(d).unwrap()).collect();
    assert_eq!(messages[0]["result"]["protocolVersion"], "2024-11-05");
    assert_eq!(messages[1]["result"]["content"][0]["text"], "old");
    assert_eq!(server.endpoint.session_count(), 1);
    // The session ends with its stream.
    drop(stream);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(post(call.to_string()).await, 404);
    assert_eq!(server.endpoint.session_count(), 0);
}

#[tokio::test]
async fn bearer_tokens_are_required_when_configured_and_challenges_name_the_metadata() {
    use mcp_sansio_http::{BearerAuth, TokenRejection};
    let metadata = r#"{"resource":"http://127.0.0.1/mcp","authorization_servers":["https://as.example"]}"#;
    let server = start(|c| {
        c.auth = Some(BearerAuth {
            validate: std::sync::Arc::new(|token: &str| match token {
                "good" => Ok(mcp_sansio_http::TokenGrant::subject("alice")),
                "narrow" => Err(TokenRejection::InsufficientScope("tools:call".into())),
                _ => Err(TokenRejection::Invalid),
            }),
            resource_metadata_url: "http://127.0.0.1/.well-known/oauth-protected-resource/mcp".into(),
            resource_metadata: metadata.into(),
            verify_proof: None,
        })
    })
    .await;
    let call = modern_call(1, "secret");
    let missing = send(server.addr, "POST", &MODERN, &call).await;
    assert_eq!(missing.status, 401);
    assert_eq!(
        missing.header("www-authenticate"),
        Some(r#"Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp""#)
    );
    let with = |token: &'static str| {
        let mut headers = MODERN.to_vec();
        headers.push(("Authorization", token));
        headers
    };
    assert_eq!(send(server.addr, "POST", &with("Bearer bad"), &call).await.status, 401);
    let narrow = send(server.addr, "POST", &with("Bearer narrow"), &call).await;
    assert_eq!(narrow.status, 403);
    assert!(narrow.header("www-authenticate").unwrap().contains(r#"error="insufficient_scope", scope="tools:call""#));
    let good = send(server.addr, "POST", &with("Bearer good"), &call).await;
    assert_eq!((good.status, good.json()["result"]["content"][0]["text"].clone()), (200, json!("secret")));
    // The metadata document is public, at both paths.
    for path in ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"] {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", server.addr);
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.unwrap();
        let reply = parse(&raw);
        assert_eq!(
            (reply.status, reply.json()["authorization_servers"][0].clone()),
            (200, json!("https://as.example"))
        );
    }
}

/// The resident memory of this test process, in KiB.
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn a_thousand_concurrent_legacy_sessions_are_served_in_bounded_memory() {
    const SESSIONS: usize = 1000;
    let server = start(|c| c.max_sessions = SESSIONS).await;
    let before = resident_kib();
    let addr = server.addr;
    let opened: Vec<String> = futures_join(SESSIONS, |_| async move { open_session(addr).await }).await;
    let mut unique = opened.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), SESSIONS, "every session has its own id");
    // Each session is used at once, concurrently, and answers its own request.
    let answers = futures_join(SESSIONS, |i| {
        let sid = opened[i].clone();
        async move {
            let call = json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":"echo","arguments":{"text":format!("s{i}")}}});
            let headers = [JSON, BOTH, ("Mcp-Session-Id", sid.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
            send(addr, "POST", &headers, &call.to_string()).await
        }
    })
    .await;
    for (i, reply) in answers.iter().enumerate() {
        assert_eq!(reply.status, 200, "session {i}");
        assert_eq!(reply.events()[0]["result"]["content"][0]["text"], format!("s{i}"), "session {i}");
    }
    let grown = resident_kib().saturating_sub(before);
    println!(
        "{SESSIONS} legacy sessions: resident memory grew by {grown} KiB ({} B per session)",
        grown * 1024 / SESSIONS as u64
    );
    // Buffers are reserved per session but only touched as far as answers reach: bounded well below
    // the reserved size (256 KiB + 32 KiB per session by default).
    assert!(grown < 256 * 1024, "{grown} KiB for {SESSIONS} sessions");
}

#[tokio::test]
async fn two_hundred_slow_connections_do_not_stop_other_clients() {
    let server = start(|c| c.header_read_timeout = Duration::from_secs(2)).await;
    // 200 clients that send half a request head and then nothing.
    let mut slow = Vec::new();
    for _ in 0..200 {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty").await.unwrap();
        slow.push(stream);
    }
    // Meanwhile another client is served at once.
    let started = std::time::Instant::now();
    let reply = send(server.addr, "POST", &MODERN, &modern_call(1, "fast")).await;
    assert_eq!(reply.status, 200);
    assert!(started.elapsed() < Duration::from_secs(2), "served in {:?}", started.elapsed());
    // And the slow ones are closed by the head timeout, not kept for ever.
    for stream in &mut slow {
        let mut buf = [0u8; 256];
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf)).await;
        assert!(matches!(read, Ok(Ok(_)) | Ok(Err(_))), "a slow connection was not closed");
    }
}

/// Runs `n` futures made by `make` concurrently and collects their outputs in order.
async fn futures_join<F, T>(n: usize, make: impl Fn(usize) -> F) -> Vec<T>
where
    F: std::future::Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let tasks: Vec<_> = (0..n).map(|i| tokio::spawn(make(i))).collect();
    let mut out = Vec::with_capacity(n);
    for task in tasks {
        out.push(task.await.unwrap());
    }
    out
}

#[tokio::test]
async fn connections_that_spin_before_waiting_serve_kept_alive_requests_in_order() {
    let server = start(|c| c.spin_before_wait = Duration::from_micros(500)).await;
    let addr = server.addr;
    // A blocking client on a thread of its own, so that it writes while the server spins.
    let client = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = vec![0u8; 8192];
        for id in 1..=20u32 {
            // Every other request after a pause longer than the spin: the reactor reads those.
            if id % 2 == 0 {
                std::thread::sleep(Duration::from_millis(2));
            }
            let body = modern_call(id, &format!("call {id}"));
            let mut request = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\n", body.len());
            for (name, value) in MODERN {
                request += &format!("{name}: {value}\r\n");
            }
            request += "\r\n";
            request += &body;
            stream.write_all(request.as_bytes()).unwrap();
            let mut raw = Vec::new();
            let reply = loop {
                let n = stream.read(&mut buf).expect("an answer in time");
                assert!(n > 0, "connection closed after {id} calls");
                raw.extend_from_slice(&buf[..n]);
                if let Some(head) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                    let reply = parse(&raw);
                    let length: usize = reply.header("content-length").map_or(0, |l| l.parse().unwrap());
                    if raw.len() >= head + 4 + length {
                        break reply;
                    }
                }
            };
            assert_eq!(reply.status, 200);
            let answer = reply.json();
            assert_eq!(answer["id"], id);
            assert_eq!(answer["result"]["content"][0]["text"], format!("call {id}"));
        }
    });
    client.await.unwrap();
}
