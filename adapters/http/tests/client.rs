//! `client::connect`: the client engine over Streamable HTTP against the server of this crate
//! serving the example device, in both eras, behind a recording front that can also play a server
//! without `server/discover` (404 with an empty body).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use mcp_example_device::{Device, FixedBoard};
use mcp_sansio::client::{self, EraPolicy, InputAnswer};
use mcp_sansio::http::SsePaths;
use mcp_sansio::mcp::ClientCapabilities;
use mcp_sansio::mcp::input::ReceivedInput;
use mcp_sansio::server::{Config, Deferred, Event, Handler, Tool, ToolCall, ToolReply};
use mcp_sansio::time::Instant;
use mcp_sansio::version::ProtocolVersion;
use mcp_sansio_driver::host::{CancelHandle, Host, RequestError};
use mcp_sansio_http::client::connect;
use mcp_sansio_http::{HttpConfig, McpHttp};
use serde_json::Value as Json;

/// One request the server got: method, lower-case headers, body, and the status it answered.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    /// The path and query.
    path: String,
    headers: Vec<(String, String)>,
    body: String,
    status: u16,
    /// The client's port: its HTTP connection.
    peer: u16,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Json {
        serde_json::from_str(&self.body).unwrap_or(Json::Null)
    }
    fn mcp_method(&self) -> Option<String> {
        self.json()["method"].as_str().map(str::to_owned)
    }
}

struct Server<H = Device<FixedBoard>> {
    url: String,
    endpoint: McpHttp<H>,
    seen: Arc<Mutex<Vec<Seen>>>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl<H> Server<H> {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// The example device's endpoint behind a front that records each request; with
/// `without_discover`, `server/discover` gets 404 with an empty body (as from a legacy server).
async fn start(without_discover: bool) -> Server {
    start_with(Device::new(FixedBoard), without_discover).await
}

async fn start_with<H: Handler + Send + 'static>(handler: H, without_discover: bool) -> Server<H> {
    start_configured(handler, without_discover, |_| {}).await
}

async fn start_configured<H: Handler + Send + 'static>(
    handler: H,
    without_discover: bool,
    configure: impl FnOnce(&mut HttpConfig),
) -> Server<H> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let mut config = HttpConfig::new(Config::new("mcp-device", "0.1.0"), addr);
    configure(&mut config);
    let endpoint = McpHttp::new(handler, config);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let (front, record) = (endpoint.clone(), seen.clone());
    tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => accepted.unwrap(),
                _ = &mut stopped => return,
            };
            let (stream, peer) = stream;
            let (front, record) = (front.clone(), record.clone());
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let (mut front, record) = (front.clone(), record.clone());
                async move {
                    let (parts, body) = request.into_parts();
                    let body = body.collect().await.unwrap().to_bytes();
                    let mut seen = Seen {
                        method: parts.method.to_string(),
                        path: parts.uri.to_string(),
                        headers: parts
                            .headers
                            .iter()
                            .map(|(n, v)| (n.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
                            .collect(),
                        body: String::from_utf8_lossy(&body).into_owned(),
                        status: 0,
                        peer: peer.port(),
                    };
                    let response: Response<UnsyncBoxBody<Bytes, Box<dyn std::error::Error + Send + Sync>>> =
                        if without_discover && seen.mcp_method().as_deref() == Some("server/discover") {
                            let mut response = Response::new(Empty::new().map_err(|e| match e {}).boxed_unsync());
                            *response.status_mut() = StatusCode::NOT_FOUND;
                            response
                        } else {
                            let request = Request::from_parts(parts, Full::new(body));
                            let response = tower_service::Service::call(&mut front, request).await.unwrap();
                            response.map(|b| b.map_err(Into::into).boxed_unsync())
                        };
                    seen.status = response.status().as_u16();
                    record.lock().unwrap().push(seen);
                    Ok::<_, Infallible>(response)
                }
            });
            tokio::spawn(async move {
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    Server { url: format!("http://{addr}/mcp"), endpoint, seen, _stop: stop }
}

fn config(era: EraPolicy) -> client::Config<'static> {
    let capabilities = ClientCapabilities::NONE.with_elicitation_form();
    client::Config::new("http-client-test", "1.0.0").with_era(era).with_capabilities(capabilities)
}

/// Confirms every form, counting them.
fn confirming_host(asked: Arc<Mutex<usize>>) -> Host {
    Host::new().with_input(Box::new(move |input, result| match input {
        ReceivedInput::ElicitForm { .. } => {
            *asked.lock().unwrap() += 1;
            result.raw(br#"{"action":"accept","content":{"confirm":true}}"#);
            InputAnswer::Written
        }
        _ => InputAnswer::Refused,
    }))
}

fn parse(bytes: &[u8]) -> Json {
    serde_json::from_slice(bytes).unwrap()
}

async fn tools_and_echo(client: &mcp_sansio_http::client::HttpClient) {
    let tools = client.list_tools().await.unwrap();
    let names: Vec<String> = tools.iter().map(|t| parse(t)["name"].as_str().unwrap().to_owned()).collect();
    assert!(names.contains(&"echo".to_owned()) && names.contains(&"factory_reset".to_owned()), "{names:?}");
    let echoed = parse(&client.call_tool("echo", r#"{"message":"hello über http"}"#).await.unwrap());
    assert_eq!(echoed["content"][0]["text"], "hello über http");
}

#[tokio::test]
async fn auto_finds_the_modern_era_and_sends_the_standard_headers() {
    let server = start(false).await;
    let client = connect(&server.url, config(EraPolicy::Auto), Host::new()).unwrap();
    let connected = client.connect().await.unwrap();
    assert_eq!(connected.version, ProtocolVersion::V2026_07_28);
    assert_eq!(connected.server_name.as_deref(), Some("mcp-device"));
    tools_and_echo(&client).await;
    // Several requests in flight at once, each on its own POST.
    let (a, b, c) = tokio::join!(
        client.call_tool("echo", r#"{"message":"a"}"#),
        client.call_tool("echo", r#"{"message":"b"}"#),
        client.list_prompts()
    );
    assert_eq!(parse(&a.unwrap())["content"][0]["text"], "a");
    assert_eq!(parse(&b.unwrap())["content"][0]["text"], "b");
    assert!(!c.unwrap().is_empty());
    let missing = client.request("no/such_method", None).await;
    assert!(matches!(missing, Err(RequestError::Server { code: -32601, .. })), "{missing:?}");
    client.ping().await.unwrap();
    assert_eq!(client.session_id(), None);
    client.close().await.unwrap();

    let seen = server.seen();
    assert!(seen.iter().all(|s| s.method == "POST"), "no DELETE without a session");
    let call = seen.iter().find(|s| s.mcp_method().as_deref() == Some("tools/call")).unwrap();
    assert_eq!(call.status, 200);
    assert_eq!(call.header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(call.header("mcp-method"), Some("tools/call"));
    assert_eq!(call.header("mcp-name"), Some("echo"));
    assert_eq!(call.header("content-type"), Some("application/json"));
    assert_eq!(call.header("accept"), Some("application/json, text/event-stream"));
    assert_eq!(call.header("mcp-session-id"), None);
    let unknown = seen.iter().find(|s| s.mcp_method().as_deref() == Some("no/such_method")).unwrap();
    assert_eq!(unknown.status, 404, "a 404 with a JSON-RPC body is that answer");
    assert_eq!(seen[0].mcp_method().as_deref(), Some("server/discover"));
    let mut connections: Vec<u16> = seen.iter().map(|s| s.peer).collect();
    connections.sort_unstable();
    connections.dedup();
    assert!(connections.len() < seen.len() / 2, "connections are reused: {} for {}", connections.len(), seen.len());
}

#[tokio::test]
async fn legacy_uses_the_session_and_deletes_it_on_close() {
    let server = start(false).await;
    let client = connect(&server.url, config(EraPolicy::Legacy), Host::new()).unwrap();
    let connected = client.connect().await.unwrap();
    assert_eq!(connected.version, ProtocolVersion::V2025_11_25);
    let session = client.session_id().expect("the server named a session");
    tools_and_echo(&client).await;
    assert_eq!(server.endpoint.session_count(), 1);
    client.close().await.unwrap();
    assert_eq!(server.endpoint.session_count(), 0, "DELETE ended the session");

    let seen = server.seen();
    assert_eq!(seen[0].mcp_method().as_deref(), Some("initialize"));
    assert_eq!(seen[0].header("mcp-session-id"), None);
    for later in &seen[1..] {
        assert_eq!(later.header("mcp-session-id"), Some(session.as_str()), "{later:?}");
        assert_eq!(later.header("mcp-protocol-version"), Some("2025-11-25"), "{later:?}");
        assert_eq!(later.header("mcp-method"), None, "{later:?}");
    }
    assert!(seen.iter().any(|s| s.mcp_method().as_deref() == Some("notifications/initialized") && s.status == 202));
    let last = seen.last().unwrap();
    assert_eq!((last.method.as_str(), last.status), ("DELETE", 204), "{last:?}");
}

#[tokio::test]
async fn modern_pinned_connects_and_calls() {
    let server = start(false).await;
    let client = connect(&server.url, config(EraPolicy::Modern), Host::new()).unwrap();
    assert_eq!(client.connect().await.unwrap().version, ProtocolVersion::V2026_07_28);
    tools_and_echo(&client).await;
    let resources = client.list_resources().await.unwrap();
    let uri = parse(&resources[0])["uri"].as_str().unwrap().to_owned();
    assert!(parse(&client.read_resource(&uri).await.unwrap())["contents"].is_array());
    client.close().await.unwrap();
    let seen = server.seen();
    let read = seen.iter().find(|s| s.mcp_method().as_deref() == Some("resources/read")).unwrap();
    assert_eq!(read.header("mcp-name"), Some(uri.as_str()));
}

#[tokio::test]
async fn elicitation_is_answered_in_both_eras() {
    for era in [EraPolicy::Legacy, EraPolicy::Modern] {
        let server = start(false).await;
        let asked = Arc::new(Mutex::new(0));
        let client = connect(&server.url, config(era), confirming_host(asked.clone())).unwrap();
        client.connect().await.unwrap();
        let reset = parse(&client.call_tool("factory_reset", "{}").await.unwrap());
        assert_ne!(reset["isError"], true, "{era:?}: {reset}");
        assert_eq!(reset["content"][0]["text"], "factory settings restored", "{era:?}");
        assert_eq!(*asked.lock().unwrap(), 1, "{era:?}");
        client.close().await.unwrap();
        let seen = server.seen();
        let calls: Vec<&Seen> = seen.iter().filter(|s| s.mcp_method().as_deref() == Some("tools/call")).collect();
        if era == EraPolicy::Legacy {
            // `elicitation/create` came on the call's stream; its answer was POSTed to the session.
            assert_eq!(calls.len(), 1);
            let answer = seen.iter().find(|s| s.json()["result"]["action"] == "accept").expect("the answer was POSTed");
            assert_eq!(answer.status, 202);
            assert!(answer.header("mcp-session-id").is_some());
        } else {
            // `input_required`, then the call again with the answer.
            assert_eq!(calls.len(), 2, "{calls:?}");
            assert!(calls[1].json()["params"]["inputResponses"].is_object(), "{:?}", calls[1]);
        }
    }
}

#[tokio::test]
async fn auto_falls_back_when_discover_gets_an_empty_404() {
    let server = start(true).await;
    let client = connect(&server.url, config(EraPolicy::Auto), Host::new()).unwrap();
    assert_eq!(client.connect().await.unwrap().version, ProtocolVersion::V2025_11_25);
    assert!(client.session_id().is_some());
    tools_and_echo(&client).await;
    client.close().await.unwrap();
    let seen = server.seen();
    assert_eq!((seen[0].mcp_method().as_deref(), seen[0].status), (Some("server/discover"), 404));
    assert_eq!(seen[1].mcp_method().as_deref(), Some("initialize"));
}

#[tokio::test]
async fn no_server_fails_the_connection() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let client = connect(&format!("http://{addr}/mcp"), config(EraPolicy::Auto), Host::new()).unwrap();
    let failed = client.connect().await;
    assert!(matches!(failed, Err(RequestError::Connect(_))), "{failed:?}");
    assert!(!client.reached_server(), "no HTTP response came");
    client.close().await.unwrap();
    // `https` needs the `tls` feature (tests/tls.rs).
    let https = connect("https://example.com/mcp", config(EraPolicy::Auto), Host::new());
    assert_eq!(https.is_ok(), cfg!(feature = "tls"));
    assert!(connect("ftp://example.com/mcp", config(EraPolicy::Auto), Host::new()).is_err());
}

#[tokio::test]
async fn an_error_without_an_id_is_the_answer_of_the_request_it_refused() {
    // A legacy-only server as the TypeScript SDK's: a request that is not `initialize` and has no
    // session gets 400 with `{"jsonrpc":"2.0","error":{…},"id":null}`.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            let service = hyper::service::service_fn(|_request: Request<Incoming>| async {
                let body = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}"#;
                let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
                *response.status_mut() = StatusCode::BAD_REQUEST;
                response.headers_mut().insert("content-type", "application/json".parse().unwrap());
                Ok::<_, Infallible>(response)
            });
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tcp), service).await;
            });
        }
    });
    let client = connect(&url, config(EraPolicy::Modern), Host::new()).unwrap();
    let refused = client.connect().await;
    assert!(
        matches!(refused, Err(RequestError::Connect(client::ConnectError::Refused { code: -32000 }))),
        "{refused:?}"
    );
    assert!(client.reached_server());
    // The server's own text, not the transport's `HTTP 400`: a legacy client's request.
    let legacy = connect(&url, config(EraPolicy::Legacy), Host::new()).unwrap();
    assert!(matches!(
        legacy.connect().await,
        Err(RequestError::Connect(client::ConnectError::Refused { code: -32000 }))
    ));
}

static HEADER_TOOLS: [Tool<'static>; 2] = [
    Tool::new(
        "lookup",
        "Names two headers",
        r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"priority":{"type":"integer","x-mcp-header":"Priority"},"note":{"type":"string"}}}"#,
    ),
    Tool::new(
        "bad",
        "An annotation on an object",
        r#"{"type":"object","properties":{"data":{"type":"object","x-mcp-header":"Data"}}}"#,
    ),
];

/// Answers every call; the endpoint checks the `Mcp-Param-*` headers against `HEADER_TOOLS`.
struct Headed;

impl Handler for Headed {
    const TOOLS: &'static [Tool<'static>] = &HEADER_TOOLS;
    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        reply.text(call.name).finish();
    }
}

#[tokio::test]
async fn x_mcp_header_tools_are_checked_and_their_calls_mirror_the_arguments() {
    let server = start_with(Headed, false).await;
    let client = connect(&server.url, config(EraPolicy::Modern), Host::new()).unwrap();
    client.connect().await.unwrap();
    let names: Vec<String> =
        client.list_tools().await.unwrap().iter().map(|t| parse(t)["name"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["lookup"], "the tool with an invalid annotation is dropped");
    let called = parse(&client.call_tool("lookup", r#"{"region":" Zürich","priority":3,"note":"n"}"#).await.unwrap());
    assert_eq!(called["content"][0]["text"], "lookup", "{called}");
    client.close().await.unwrap();
    let seen = server.seen();
    let call = seen.iter().find(|s| s.mcp_method().as_deref() == Some("tools/call")).unwrap();
    assert_eq!(call.status, 200, "the server's checks of the headers passed");
    let mut decoded = [0u8; 64];
    let region = call.header("mcp-param-region").unwrap();
    assert_eq!(mcp_sansio::http::decode_value(region.as_bytes(), &mut decoded), Ok(" Zürich"));
    assert_eq!(call.header("mcp-param-priority"), Some("3"));
    assert_eq!(call.headers.iter().filter(|(n, _)| n.starts_with("mcp-param-")).count(), 2, "note is not mirrored");
}

static SLOW_TOOLS: [Tool<'static>; 1] = [Tool::new("slow", "Never answered", r#"{"type":"object"}"#)];

/// Defers every call and never answers; counts cancellations.
#[derive(Default)]
struct Slow {
    deferred: Vec<Deferred>,
    cancelled: usize,
}

impl Handler for Slow {
    const TOOLS: &'static [Tool<'static>] = &SLOW_TOOLS;
    fn call_tool(&mut self, _call: ToolCall<'_>, reply: ToolReply<'_>) {
        if let Ok(deferred) = reply.defer() {
            self.deferred.push(deferred);
        }
    }
    fn on_event(&mut self, _now: Instant, event: Event<'_>) {
        if matches!(event, Event::Cancelled { .. }) {
            self.cancelled += 1;
        }
    }
}

#[tokio::test]
async fn cancelled_requests_reach_the_server_in_both_eras() {
    for era in [EraPolicy::Modern, EraPolicy::Legacy] {
        let server = start_with(Slow::default(), false).await;
        let config = config(era).with_request_timeout(Some(mcp_sansio::time::Duration::from_millis(150)));
        let client = connect(&server.url, config, Host::new()).unwrap();
        client.connect().await.unwrap();
        // A dropped future cancels its request; a request without an answer times out (and is
        // cancelled too).
        let dropped = tokio::time::timeout(std::time::Duration::from_millis(50), client.call_tool("slow", "{}")).await;
        assert!(dropped.is_err());
        assert_eq!(client.call_tool("slow", "{}").await, Err(RequestError::TimedOut), "{era:?}");
        let mut cancelled = 0;
        for _ in 0..100 {
            cancelled = server.endpoint.with_handler(|h| h.cancelled);
            if cancelled == 2 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert_eq!(cancelled, 2, "{era:?}: the server saw both cancellations");
        // Still usable.
        client.ping().await.unwrap();
        client.close().await.unwrap();
        let posted_cancel = server.seen().iter().any(|s| s.mcp_method().as_deref() == Some("notifications/cancelled"));
        // 2026-07-28 closes the response stream; legacy sends the notification.
        assert_eq!(posted_cancel, era == EraPolicy::Legacy, "{era:?}");
    }
}

#[tokio::test]
async fn a_cancel_handle_cancels_its_requests_on_the_wire_in_both_eras() {
    for era in [EraPolicy::Modern, EraPolicy::Legacy] {
        let server = start_with(Slow::default(), false).await;
        let client = connect(&server.url, config(era), Host::new()).unwrap();
        client.connect().await.unwrap();
        let cancel = CancelHandle::new();
        let turn = client.with_cancel(&cancel);
        let calls = tokio::spawn({
            let turn = turn.clone();
            async move { tokio::join!(turn.call_tool("slow", "{}"), turn.call_tool("slow", "{}")) }
        });
        for _ in 0..150 {
            if server.endpoint.with_handler(|h| h.deferred.len()) == 2 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert_eq!(server.endpoint.with_handler(|h| h.deferred.len()), 2, "{era:?}: both calls reached the server");
        cancel.cancel();
        assert!(cancel.is_cancelled());
        let (first, second) = tokio::time::timeout(std::time::Duration::from_secs(5), calls).await.unwrap().unwrap();
        assert_eq!((first, second), (Err(RequestError::Cancelled), Err(RequestError::Cancelled)), "{era:?}");
        let mut cancelled = 0;
        for _ in 0..100 {
            cancelled = server.endpoint.with_handler(|h| h.cancelled);
            if cancelled == 2 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert_eq!(cancelled, 2, "{era:?}: the server saw both cancellations");
        // A request through the cancelled handle is not sent; through the client it is.
        let posts = server.seen().len();
        assert_eq!(turn.ping().await, Err(RequestError::Cancelled), "{era:?}");
        assert_eq!(server.seen().len(), posts, "{era:?}: nothing sent");
        client.ping().await.unwrap();
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn legacy_listens_on_the_standalone_stream_and_resumes_it() {
    let server = start(false).await;
    let heard = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = heard.clone();
    let host = Host::new().with_notifications(Box::new(move |notification| {
        log.lock().unwrap().push(format!("{notification:?}"));
    }));
    let client = connect(&server.url, config(EraPolicy::Legacy), host).unwrap();
    client.connect().await.unwrap();
    let gets = |server: &Server| server.seen().into_iter().filter(|s| s.method == "GET").collect::<Vec<_>>();
    let wait = async |what: &str, done: &dyn Fn() -> bool| {
        for _ in 0..150 {
            if done() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        panic!("{what}");
    };
    wait("the GET stream opens", &|| !gets(&server).is_empty()).await;
    let first = &gets(&server)[0];
    assert_eq!((first.status, first.header("accept")), (200, Some("text/event-stream")));
    assert_eq!(first.header("mcp-session-id").map(str::to_owned), client.session_id());
    assert_eq!(server.endpoint.notify_sessions("notifications/tools/list_changed", None), 1);
    wait("the notification arrives", &|| heard.lock().unwrap().len() == 1).await;
    // The server ends its streams (as at shutdown); the client reopens after `retry`, resuming.
    server.endpoint.close_streams();
    wait("the GET stream reopens", &|| gets(&server).len() == 2).await;
    let second = &gets(&server)[1];
    assert!(second.header("last-event-id").is_some(), "{second:?}");
    assert_eq!(server.endpoint.notify_sessions("notifications/resources/list_changed", None), 1);
    wait("the second notification arrives", &|| heard.lock().unwrap().len() == 2).await;
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let heard = heard.lock().unwrap().clone();
    assert_eq!(heard.len(), 2, "nothing replayed twice: {heard:?}");
    assert_ne!(heard[0], heard[1], "{heard:?}");
    client.close().await.unwrap();
    assert_eq!(server.endpoint.session_count(), 0);
}

/// One request a scripted server got: method, `Last-Event-ID`, `Mcp-Session-Id`, when.
type Got = (String, Option<String>, Option<String>, std::time::Instant);

/// A legacy server that ends the stream of `tools/call` after a priming event (`id: e-1`,
/// `retry: 300`) and answers it on the `GET` that resumes from `e-1` (SEP-1699 polling); its
/// standalone stream is refused (405 to a `GET` without `Last-Event-ID`), 100 ms late. Records
/// each request as it reaches the server (a POST as `POST "method"`).
async fn polling_server() -> (String, Arc<Mutex<Vec<Got>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let got = Arc::new(Mutex::new(Vec::new()));
    let pending = Arc::new(Mutex::new(None::<Json>));
    let record = got.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (record, pending) = (record.clone(), pending.clone());
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let (record, pending) = (record.clone(), pending.clone());
                async move {
                    let header = |name: &str| request.headers().get(name).map(|v| v.to_str().unwrap().to_owned());
                    let (last, session) = (header("last-event-id"), header("mcp-session-id"));
                    let method = request.method().to_string();
                    let body = request.into_body().collect().await.unwrap().to_bytes();
                    let what = match method.as_str() {
                        "POST" => format!("POST {}", serde_json::from_slice::<Json>(&body).unwrap()["method"]),
                        // The standalone stream's `GET` is slow to reach the server.
                        "GET" if last.is_none() => {
                            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                            method.clone()
                        }
                        _ => method.clone(),
                    };
                    record.lock().unwrap().push((what, last.clone(), session, std::time::Instant::now()));
                    let reply = |status: u16, kind: &str, body: String| {
                        let mut response = Response::new(Full::new(Bytes::from(body)));
                        *response.status_mut() = StatusCode::from_u16(status).unwrap();
                        if !kind.is_empty() {
                            response.headers_mut().insert("content-type", kind.parse().unwrap());
                        }
                        response.headers_mut().insert("mcp-session-id", "s-1".parse().unwrap());
                        Ok::<_, Infallible>(response)
                    };
                    match (method.as_str(), last.as_deref()) {
                        ("GET", Some("e-1")) => {
                            let id = pending.lock().unwrap().take().unwrap_or(Json::Null);
                            let answer = serde_json::json!({"jsonrpc":"2.0","id":id,"result":{"content":[{"type":"text","text":"resumed"}]}});
                            reply(200, "text/event-stream", format!("id: e-2\nevent: message\ndata: {answer}\n\n"))
                        }
                        ("GET", _) => reply(405, "", String::new()),
                        ("DELETE", _) => reply(200, "", String::new()),
                        _ => {
                            let message: Json = serde_json::from_slice(&body).unwrap();
                            match message["method"].as_str() {
                                Some("initialize") => reply(
                                    200,
                                    "application/json",
                                    serde_json::json!({"jsonrpc":"2.0","id":message["id"],"result":{"protocolVersion":"2025-11-25",
                                        "capabilities":{"tools":{}},"serverInfo":{"name":"polling","version":"1"}}})
                                    .to_string(),
                                ),
                                Some("tools/call") => {
                                    *pending.lock().unwrap() = Some(message["id"].clone());
                                    reply(200, "text/event-stream", "id: e-1\nretry: 300\ndata: \n\n".to_owned())
                                }
                                _ => reply(202, "", String::new()),
                            }
                        }
                    }
                }
            });
            tokio::spawn(async move {
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    (url, got)
}

#[tokio::test]
async fn a_legacy_request_stream_that_ends_before_the_answer_is_resumed_after_retry() {
    let (url, got) = polling_server().await;
    let client = connect(&url, config(EraPolicy::Legacy), Host::new()).unwrap();
    client.connect().await.unwrap();
    let started = std::time::Instant::now();
    let result = parse(&client.call_tool("poll", "{}").await.unwrap());
    assert_eq!(result["content"][0]["text"], "resumed");
    client.close().await.unwrap();
    let got = got.lock().unwrap().clone();
    let resumed: Vec<&Got> = got.iter().filter(|(method, last, ..)| method == "GET" && last.is_some()).collect();
    assert_eq!(resumed.len(), 1, "{got:?}");
    // The standalone stream's `GET` reached the server before the call (the client waited for its
    // answer): the server cannot take it for the resumption of the call's stream.
    let at = |what: &str, last: bool| got.iter().position(|(m, l, ..)| m == what && l.is_some() == last);
    assert!(at("GET", false).unwrap() < at("POST \"tools/call\"", false).unwrap(), "{got:?}");
    let (_, last, session, at) = resumed[0];
    assert_eq!((last.as_deref(), session.as_deref()), (Some("e-1"), Some("s-1")));
    // The client's clock counts whole milliseconds: the 300 ms it waits can be up to 1 ms short.
    assert!(at.duration_since(started) >= std::time::Duration::from_millis(299), "after the server's retry");
}

/// Ends `session` on the server as another client could: `DELETE` with its id.
async fn delete_session(url: &str, session: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authority = url.trim_start_matches("http://").split('/').next().unwrap().to_owned();
    let mut stream = tokio::net::TcpStream::connect(&authority).await.unwrap();
    let request = format!(
        "DELETE /mcp HTTP/1.1\r\nhost: {authority}\r\nmcp-session-id: {session}\r\n\
         mcp-protocol-version: 2025-11-25\r\nconnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let head = String::from_utf8_lossy(&response);
    head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

#[tokio::test]
async fn a_session_the_server_ended_is_replaced_by_a_new_initialize() {
    let server = start(false).await;
    let client = connect(&server.url, config(EraPolicy::Legacy), Host::new()).unwrap();
    client.connect().await.unwrap();
    let first = client.session_id().expect("a session");
    tools_and_echo(&client).await;
    assert_eq!(delete_session(&server.url, &first).await, 204);
    assert_eq!(server.endpoint.session_count(), 0);

    // The next requests meet the 404 (on a POST, or on the standalone stream first): the request
    // that met it fails with it, and the client initializes again without the old session; the
    // ones after go to the new session.
    let mut failures = Vec::new();
    let mut answered = false;
    for _ in 0..20 {
        match client.call_tool("echo", r#"{"message":"again"}"#).await {
            Ok(result) => {
                assert_eq!(parse(&result)["content"][0]["text"], "again");
                answered = true;
                break;
            }
            Err(error) => failures.push(error.to_string()),
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(answered, "never answered again: {failures:?}");
    assert!(failures.len() <= 1, "only the request that met the 404 fails: {failures:?}");
    // The server's answer to the ended session (this crate's server: -32001 with `id: null`).
    assert!(failures.iter().all(|f| f.contains("Session not found")), "{failures:?}");
    let second = client.session_id().expect("a new session");
    assert_ne!(second, first);
    assert_eq!(server.endpoint.session_count(), 1);

    let seen = server.seen();
    let initializes: Vec<&Seen> = seen.iter().filter(|s| s.mcp_method().as_deref() == Some("initialize")).collect();
    assert_eq!(initializes.len(), 2, "{seen:?}");
    assert_eq!(initializes[1].header("mcp-session-id"), None, "a new session is asked for without the old one");
    let after = seen.iter().position(|s| std::ptr::eq(s, initializes[1])).unwrap();
    assert!(
        seen[after + 1..].iter().all(|s| s.header("mcp-session-id") != Some(first.as_str())),
        "nothing sent to the old session after the new initialize"
    );
    assert!(
        seen.iter().any(|s| s.method == "GET" && s.header("mcp-session-id") == Some(second.as_str())),
        "listening again"
    );
    client.close().await.unwrap();
    assert_eq!(server.endpoint.session_count(), 0, "the new session is deleted on close");
}

#[tokio::test]
async fn a_2024_11_05_server_is_reached_through_the_http_sse_fallback() {
    for era in [EraPolicy::Legacy, EraPolicy::Auto] {
        let server = start_configured(Device::new(FixedBoard), false, |config| {
            config.legacy_sse = Some(SsePaths::DEFAULT);
        })
        .await;
        let url = server.url.replace("/mcp", "/sse");
        let asked = Arc::new(Mutex::new(0));
        let client = connect(&url, config(era), confirming_host(asked.clone())).unwrap();
        let connected = client.connect().await.unwrap();
        assert_eq!(connected.version, ProtocolVersion::V2025_11_25, "{era:?}");
        tools_and_echo(&client).await;
        // A request of the server (elicitation) comes on the stream, its answer is POSTed.
        let reset = parse(&client.call_tool("factory_reset", "{}").await.unwrap());
        assert_eq!(reset["content"][0]["text"], "factory settings restored", "{reset}");
        assert_eq!(*asked.lock().unwrap(), 1);
        assert_eq!(client.session_id(), None, "HTTP+SSE has no session header");
        assert_eq!(server.endpoint.session_count(), 1);
        client.close().await.unwrap();

        let seen = server.seen();
        let refused = seen.iter().find(|s| s.mcp_method().as_deref() == Some("initialize")).unwrap();
        assert_eq!((refused.method.as_str(), refused.path.as_str()), ("POST", "/sse"));
        assert!((400..500).contains(&refused.status), "{refused:?}");
        let stream = seen.iter().filter(|s| s.method == "GET").collect::<Vec<_>>();
        assert_eq!(stream.len(), 1, "one stream, no standalone stream: {seen:?}");
        assert_eq!((stream[0].path.as_str(), stream[0].status), ("/sse", 200));
        assert_eq!(stream[0].header("accept"), Some("text/event-stream"));
        let posted: Vec<&Seen> = seen.iter().filter(|s| s.path.starts_with("/messages?sessionId=")).collect();
        let methods: Vec<String> = posted.iter().map(|s| s.mcp_method().unwrap_or_else(|| "(answer)".into())).collect();
        assert_eq!(&methods[..2], ["initialize", "notifications/initialized"], "{era:?}");
        assert!(methods.contains(&"(answer)".to_owned()), "the elicitation's answer: {methods:?}");
        assert!(posted.iter().all(|s| s.status == 202), "{posted:?}");
        assert!(seen.iter().all(|s| s.method != "DELETE"), "the stream is the session: nothing to DELETE");
    }
}

#[tokio::test]
async fn a_4xx_without_an_http_sse_stream_fails_the_connection_with_it() {
    // Streamable HTTP only, on /mcp: `initialize` POSTed to /sse gets 404, and so does the GET.
    let server = start(false).await;
    let url = server.url.replace("/mcp", "/sse");
    let client = connect(&url, config(EraPolicy::Legacy), Host::new()).unwrap();
    let error = client.connect().await.unwrap_err();
    assert!(matches!(error, RequestError::Connect(_)), "{error:?}");
    let seen = server.seen();
    assert_eq!(seen.iter().map(|s| s.method.as_str()).collect::<Vec<_>>(), ["POST", "GET"], "{seen:?}");
}

/// An SSE body fed from a channel, after a first chunk.
struct ChannelBody {
    first: Option<Bytes>,
    rx: tokio::sync::mpsc::UnboundedReceiver<Bytes>,
}

impl hyper::body::Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        if let Some(first) = self.first.take() {
            return std::task::Poll::Ready(Some(Ok(hyper::body::Frame::data(first))));
        }
        self.rx.poll_recv(cx).map(|chunk| chunk.map(|c| Ok(hyper::body::Frame::data(c))))
    }
}

/// What a 2024-11-05-only server got: method, path and query, status.
type Hit = (String, String, u16);

/// A server of the 2024-11-05 HTTP+SSE transport only, as the 2024 SDKs served it: `GET /sse`
/// opens the stream (its first event names `/messages?sessionId=1`), POSTs there are answered 202
/// and their answers sent on the stream; a POST to `/sse` gets 405. It speaks 2024-11-05 and has
/// one tool, `echo`.
async fn http_sse_only_server() -> (String, Arc<Mutex<Vec<Hit>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/sse", listener.local_addr().unwrap());
    let hits = Arc::new(Mutex::new(Vec::new()));
    let stream = Arc::new(Mutex::new(None::<tokio::sync::mpsc::UnboundedSender<Bytes>>));
    let record = hits.clone();
    tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            let (record, stream) = (record.clone(), stream.clone());
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let (record, stream) = (record.clone(), stream.clone());
                async move {
                    let (method, path) = (request.method().to_string(), request.uri().to_string());
                    let body = request.into_body().collect().await.unwrap().to_bytes();
                    let status = |code: u16| {
                        let mut response = Response::new(Empty::new().map_err(|e| match e {}).boxed_unsync());
                        *response.status_mut() = StatusCode::from_u16(code).unwrap();
                        response
                    };
                    let response = match (method.as_str(), path.as_str()) {
                        ("GET", "/sse") => {
                            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
                            *stream.lock().unwrap() = Some(tx);
                            let first = Some(Bytes::from_static(b"event: endpoint\ndata: /messages?sessionId=1\n\n"));
                            let mut response = Response::new(ChannelBody { first, rx }.boxed_unsync());
                            response.headers_mut().insert("content-type", "text/event-stream".parse().unwrap());
                            response
                        }
                        ("POST", "/messages?sessionId=1") => {
                            let message: Json = serde_json::from_slice(&body).unwrap();
                            let id = message["id"].clone();
                            let answer = match message["method"].as_str() {
                                _ if id.is_null() => None,
                                Some("initialize") => Some(serde_json::json!({"protocolVersion":"2024-11-05",
                                    "capabilities":{"tools":{}},"serverInfo":{"name":"sse-2024","version":"1"}})),
                                Some("tools/list") => Some(serde_json::json!({"tools":[{"name":"echo",
                                    "inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}]})),
                                Some("tools/call") => Some(serde_json::json!({"content":[{"type":"text",
                                    "text":message["params"]["arguments"]["message"]}]})),
                                _ => Some(serde_json::json!({})),
                            };
                            if let (Some(result), Some(tx)) = (answer, &*stream.lock().unwrap()) {
                                let answer = serde_json::json!({"jsonrpc":"2.0","id":id,"result":result});
                                let _ = tx.send(Bytes::from(format!("event: message\ndata: {answer}\n\n")));
                            }
                            status(202)
                        }
                        ("POST", "/sse") => status(405),
                        _ => status(404),
                    };
                    record.lock().unwrap().push((method, path, response.status().as_u16()));
                    Ok::<_, Infallible>(response)
                }
            });
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tcp), service).await;
            });
        }
    });
    (url, hits)
}

#[tokio::test]
async fn a_2024_11_05_only_server_is_reached_through_the_fallback_in_both_policies() {
    for era in [EraPolicy::Auto, EraPolicy::Legacy] {
        let (url, hits) = http_sse_only_server().await;
        let client = connect(&url, config(era), Host::new()).unwrap();
        let connected = client.connect().await.unwrap();
        assert_eq!(connected.version, ProtocolVersion::V2024_11_05, "{era:?}");
        assert_eq!(connected.server_name.as_deref(), Some("sse-2024"));
        let tools = client.list_tools().await.unwrap();
        assert_eq!(parse(&tools[0])["name"], "echo");
        let echoed = parse(&client.call_tool("echo", r#"{"message":"from 2024"}"#).await.unwrap());
        assert_eq!(echoed["content"][0]["text"], "from 2024");
        client.close().await.unwrap();

        let hits = hits.lock().unwrap().clone();
        let refused = if era == EraPolicy::Auto { 2 } else { 1 }; // `server/discover`, then `initialize`
        let expected_head: Vec<Hit> = std::iter::repeat_n(("POST".into(), "/sse".into(), 405), refused)
            .chain([("GET".into(), "/sse".into(), 200)])
            .collect();
        assert_eq!(hits[..refused + 1], expected_head[..], "{era:?}: {hits:?}");
        let rest = &hits[refused + 1..];
        assert_eq!(rest.len(), 4, "initialize, initialized, tools/list, tools/call: {hits:?}");
        assert!(rest.iter().all(|(m, p, s)| m == "POST" && p == "/messages?sessionId=1" && *s == 202), "{hits:?}");
    }
}
