//! A Streamable HTTP client: the client engine ([`mcp_sansio::client`]) on the driver's
//! [host API](mcp_sansio_driver::host), POSTing each message to one MCP endpoint with hyper.
//!
//! [`connect`] spawns the task that owns the engine and returns an [`HttpClient`], which derefs to
//! the [`ClientHandle`] the application calls (`connect`, `call_tool`, `list_tools`, …). The task
//! only moves messages; every decision is a core rule of [`mcp_sansio::http::client`]:
//!
//! - Each line the engine writes is POSTed on its own, with the headers
//!   [`plan_message`] gives (2026-07-28 standard headers, or the legacy version and
//!   `Mcp-Session-Id`). Requests run concurrently, each on an HTTP/1.1 connection of a small pool.
//! - Each message of the answer (a JSON body, or the `data` of each SSE event) is fed back to the
//!   engine as a line. A legacy server's requests (`elicitation/create`, …) on a POST's stream are
//!   answered by the engine, and its answers POSTed like any message.
//! - An error status whose JSON body [`answers`](mcp_sansio::http::client::answers) the request
//!   (or is an error without an id:
//!   [`write_anonymous_error`](mcp_sansio::http::client::write_anonymous_error)) is fed as that
//!   answer; otherwise, and when the connection fails or a response ends before the answer, the
//!   engine is fed an error answer for the request
//!   ([`write_failure`](mcp_sansio::http::client::write_failure), `-32000`): the request's outcome
//!   is that error, and an era probe (`server/discover`) falls back to `initialize`, as over stdio.
//! - The `Mcp-Session-Id` of the answer to `initialize` goes on every later request;
//!   [`HttpClient::close`] (or dropping the [`HttpClient`]) ends the engine and `DELETE`s the session.
//!   A 404 to a request (or to the standalone stream's `GET`) that carried the session means the
//!   server ended it ([`session_expired`](mcp_sansio::http::client::session_expired)): that request
//!   gets the server's error (or fails with `HTTP 404`), and the client initializes again without
//!   the session ([`host::reinitialize`]); requests made meanwhile wait for the new session.
//! - A legacy POST's SSE stream that ends before the answer, after naming an event id, is resumed
//!   with a `GET` carrying `Last-Event-ID` after the server's `retry` ([`resume_after`](mcp_sansio::http::client::resume_after)), as often
//!   as each attempt brings a new event; the answer is fed from the resumed stream.
//! - In a legacy era the standalone `GET` stream is opened once connected, for the server's
//!   notifications and requests unrelated to a POST, and reopened with `Last-Event-ID` when it
//!   ends ([`reopen_after`](mcp_sansio::http::client::reopen_after)); a 405 means the server offers none.
//!   Messages wait until the server has answered that `GET` (at most [`LISTEN_OPEN_WAIT`]), so
//!   that it reaches the server before the requests made once connected: a server cannot take it
//!   for the resumption of a request's stream.
//! - In 2026-07-28 a cancelled request (a dropped future, a timeout) has its response stream
//!   closed, which is how the server learns of it.
//! - In 2026-07-28 the input schema of each tool a `tools/list` answer names with `x-mcp-header`
//!   annotations is kept (by tool name, the last listing winning; tools whose annotations are
//!   invalid are forgotten), and a `tools/call` of such a tool carries the `Mcp-Param-*` headers
//!   [`param_headers`] gives. A tool never listed is called without them.
//! - A server that answers the POSTed `initialize` with a 4xx may be a 2024-11-05 HTTP+SSE one
//!   ([`falls_back_to_http_sse`](mcp_sansio::http::client::falls_back_to_http_sse)): the client
//!   `GET`s the same URL and, when that opens an SSE stream whose first event names an endpoint
//!   (on the same origin), POSTs `initialize` and every later message there; every message of the
//!   server comes on that stream, and the session ends with it.
//! - The engine's timeouts run on tokio's clock; jobs from the handle on the driver's job queue.
//!
//! # Limits
//! - One message either way: [`BUFFER`] bytes (the engine's buffers, a JSON body, an SSE event).
//! - Idle connections kept for reuse: [`MAX_IDLE_CONNECTIONS`].
//! - Received messages waiting for the engine: [`INPUT_QUEUE`] (then the streams wait).
//! - Waits: for the answer to the standalone stream's `GET` before other messages,
//!   [`LISTEN_OPEN_WAIT`]; for the answer to [`HttpClient::close`]'s `DELETE`, [`DELETE_TIMEOUT`].

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use hyper::Method;
use mcp_sansio::client;
use mcp_sansio::connection::Connection;
use mcp_sansio::http::client::check_param_annotations;
use mcp_sansio::http::client::{
    Failure, Outgoing, PostContext, delete_headers, opens_listen_stream, param_headers, plan_message, to_line,
};
use mcp_sansio::http::name;
use mcp_sansio::json::{self};
use mcp_sansio::jsonrpc::{Message, ParsedMessage};
use mcp_sansio::time::Instant;
use mcp_sansio_driver::host::{self, ClientHandle, Host, HostConnection};
use mcp_sansio_driver::{JobQueue, JobStatus, Jobs};
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinHandle};

/// The rustls this client was built with, to make the TLS client of [`connect_with_tls`].
#[cfg(feature = "tls")]
pub use tokio_rustls::rustls;

mod exchange;
mod http_sse;
#[cfg(feature = "oauth")]
pub mod oauth;
pub(crate) mod target;

use exchange::{Exchange, failure, id_text, listen};
use target::Target;

/// A header of a request: its name (`Mcp-Param-*` names are made at run time) and value.
type Header = (Cow<'static, str>, Vec<u8>);

/// The engine's receive and transmit buffers, and the longest JSON body or SSE event read: the
/// longest message either way.
pub const BUFFER: usize = 1 << 20;
/// Idle HTTP/1.1 connections kept for the next requests.
pub const MAX_IDLE_CONNECTIONS: usize = 8;
/// Messages received by the exchanges and not yet given to the engine; an exchange (or the GET
/// stream) that finds the queue full waits, so a server's flood holds its own streams back.
pub const INPUT_QUEUE: usize = 64;
/// How long [`HttpClient::close`] waits for the answer to its `DELETE`.
pub const DELETE_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest wait for the answer to the standalone stream's `GET` before other messages are sent
/// anyway.
pub const LISTEN_OPEN_WAIT: Duration = Duration::from_secs(1);

/// A connection to an MCP server over Streamable HTTP, and the handle to call it. Derefs to its
/// [`ClientHandle`]; call [`ClientHandle::connect`] first. Dropped without [`HttpClient::close`],
/// it ends on its task as `close` would end it.
#[derive(Debug)]
pub struct HttpClient {
    handle: ClientHandle,
    driver: JoinHandle<()>,
    close: Option<oneshot::Sender<()>>,
    session: Arc<Mutex<Option<String>>>,
    target: Arc<Target>,
}

/// Connects to the MCP endpoint at `url` (`http://host[:port]/path`, or `https://…` with the `tls`
/// feature, checked against Mozilla's root certificates) and drives a client engine for it on a
/// tokio task (call it from a tokio runtime with IO and time enabled). Nothing is sent until
/// [`ClientHandle::connect`]; a URL that cannot be used fails here (`InvalidInput`, or
/// `Unsupported` for `https` without the `tls` feature).
pub fn connect(url: &str, config: client::Config<'static>, host: Host) -> io::Result<HttpClient> {
    start(Target::parse(url, None)?, config, host)
}

/// [`connect`] with the TLS client of `https` URLs: other roots (a private CA, a self-signed
/// certificate), client certificates, other protocol versions. Set its `alpn_protocols` to
/// `http/1.1` (or leave them empty): the client speaks HTTP/1.1.
#[cfg(feature = "tls")]
pub fn connect_with_tls(
    url: &str,
    config: client::Config<'static>,
    host: Host,
    tls: Arc<rustls::ClientConfig>,
) -> io::Result<HttpClient> {
    start(Target::parse(url, Some(tls))?, config, host)
}

/// [`connect`] to an endpoint behind OAuth: a request answered `401` (or `403` for more scopes)
/// runs `oauth`'s authorization flow and is sent again with the token (see [`oauth`]). Give the
/// same `OAuth` to each connection to one server: it keeps the tokens.
#[cfg(feature = "oauth")]
pub fn connect_with_oauth(
    url: &str,
    config: client::Config<'static>,
    host: Host,
    oauth: Arc<oauth::OAuth>,
) -> io::Result<HttpClient> {
    let mut target = Target::parse(url, None)?;
    let resource = format!("{}://{}{}", target.scheme, target.authority, target.path);
    target.auth = Some((oauth, resource));
    start(target, config, host)
}

fn start(target: Target, config: client::Config<'static>, host: Host) -> io::Result<HttpClient> {
    let target = Arc::new(target);
    let (handle, conn, jobs) = host::connection(config, host, BUFFER, BUFFER);
    let (close, closed) = oneshot::channel();
    let session = Arc::new(Mutex::new(None));
    let driver = tokio::spawn(drive(conn, jobs, target.clone(), closed, session.clone()));
    Ok(HttpClient { handle, driver, close: Some(close), session, target })
}

impl HttpClient {
    /// The legacy session the server named (`Mcp-Session-Id`), once `initialize` was answered.
    pub fn session_id(&self) -> Option<String> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Whether an HTTP response came from the server: `false` while every request failed before
    /// one (nothing listens, the name does not resolve, TLS refused), which tells "cannot reach
    /// the server" from "the server refused".
    pub fn reached_server(&self) -> bool {
        self.target.reached.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Ends the connection: requests still waiting get
    /// [`RequestError::Closed`](host::RequestError::Closed), responses still streaming are
    /// dropped, and a legacy session is ended with `DELETE` (waiting at most [`DELETE_TIMEOUT`];
    /// a server that refuses it, with 405, is fine).
    pub async fn close(mut self) -> io::Result<()> {
        if let Some(close) = self.close.take() {
            let _ = close.send(());
        }
        (&mut self.driver).await.map_err(io::Error::other)
    }
}

impl std::ops::Deref for HttpClient {
    type Target = ClientHandle;

    fn deref(&self) -> &ClientHandle {
        &self.handle
    }
}

/// What the exchanges tell the engine's task.
enum Input {
    /// A message received (a line without its `\n`).
    Message(Vec<u8>),
    /// The session named in the answer to `initialize`.
    Session(Vec<u8>),
    /// The server is a 2024-11-05 HTTP+SSE one: messages are POSTed to this path from now on.
    HttpSse(String),
    /// The HTTP+SSE stream ended: so did the session.
    HttpSseEnded,
    /// The server answered 404 to a request that carried this session: it ended.
    SessionEnded(Vec<u8>),
    /// The exchange of the request with this id (its JSON text) is over.
    Finished(Vec<u8>),
}

/// The engine's task: moves each message the engine writes to an exchange, and each message an
/// exchange received to the engine, runs the jobs and the timeouts, until closed.
async fn drive(
    mut conn: HostConnection,
    mut jobs: JobQueue<HostConnection>,
    target: Arc<Target>,
    mut closed: oneshot::Receiver<()>,
    session: Arc<Mutex<Option<String>>>,
) {
    let epoch = std::time::Instant::now();
    let now = || Instant::from_std(epoch, std::time::Instant::now());
    let (inputs, mut received) = mpsc::channel(INPUT_QUEUE);
    let mut out = Outbox {
        target: target.clone(),
        inputs,
        failures: Vec::new(),
        partial: Vec::new(),
        session: None,
        streams: HashMap::new(),
        tool_lists: HashSet::new(),
        schemas: HashMap::new(),
        http_sse: None,
    };
    let mut retry_job = false;
    let mut listening: Option<AbortHandle> = None;
    // The standalone stream's `GET`, until answered (or [`LISTEN_OPEN_WAIT`]): messages wait.
    let mut opening: Option<std::pin::Pin<Box<dyn Future<Output = ()> + Send>>> = None;
    loop {
        if opening.is_none() {
            out.flush(&mut conn, now());
        }
        while let Some(failure) = out.failures.pop() {
            out.feed(&mut conn, failure, now());
        }
        // (An HTTP+SSE session has only its one stream.)
        if listening.is_none() && out.http_sse.is_none() {
            let context = PostContext { version: conn.era(), session_id: out.session.as_deref() };
            if opens_listen_stream(context) {
                let (opened, answered) = oneshot::channel();
                let task = listen(target.clone(), out.inputs.clone(), context.version, out.session.clone(), opened);
                listening = Some(tokio::spawn(task).abort_handle());
                opening = Some(Box::pin(async move {
                    let _ = tokio::time::timeout(LISTEN_OPEN_WAIT, answered).await;
                }));
            }
        }
        if retry_job {
            retry_job = jobs.run(&mut conn, now()) == JobStatus::Retry;
            if opening.is_none() {
                out.flush(&mut conn, now());
            }
        }
        let deadline = conn.poll_timeout();
        let sleep = async {
            match deadline {
                Some(deadline) => {
                    let wait = deadline.saturating_duration_since(now()).as_millis();
                    tokio::time::sleep(Duration::from_millis(wait)).await;
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            _ = &mut closed => break,
            () = async {
                if let Some(opening) = opening.as_mut() {
                    opening.await
                }
            }, if opening.is_some() => opening = None,
            input = received.recv() => match input {
                Some(Input::Message(message)) => out.feed(&mut conn, message, now()),
                Some(Input::Session(id)) => {
                    *session.lock().unwrap_or_else(PoisonError::into_inner) =
                        Some(String::from_utf8_lossy(&id).into_owned());
                    out.session = Some(id);
                }
                Some(Input::SessionEnded(id)) if out.session.as_ref() == Some(&id) => {
                    // A new session: `initialize` without the old one; the standalone stream is
                    // opened again once it is set up. Requests made meanwhile wait for it.
                    tracing::debug!(session = %String::from_utf8_lossy(&id), "session ended; initializing again");
                    *session.lock().unwrap_or_else(PoisonError::into_inner) = None;
                    out.session = None;
                    if let Some(listening) = listening.take() {
                        listening.abort();
                    }
                    if let Err(error) = host::reinitialize(&mut conn, now()) {
                        tracing::warn!(%error, "cannot initialize again");
                    }
                }
                Some(Input::HttpSse(path)) => out.http_sse = Some(path),
                Some(Input::HttpSseEnded) => conn.handle_eof(now()),
                // An older session's end: already replaced.
                Some(Input::SessionEnded(_)) => {}
                Some(Input::Finished(id)) => {
                    out.streams.remove(&id);
                    out.tool_lists.remove(&id);
                }
                // The outbox holds a sender: never closed.
                None => break,
            },
            () = jobs.ready(), if !retry_job => {
                retry_job = jobs.run(&mut conn, now()) == JobStatus::Retry;
            }
            () = sleep => conn.handle_timeout(now()),
        }
    }
    // The requests still waiting end `Closed`; their exchanges are dropped.
    conn.handle_eof(now());
    for (_, stream) in out.streams.drain() {
        stream.abort();
    }
    if let Some(listening) = listening {
        listening.abort();
    }
    drop(jobs);
    let context = PostContext { version: conn.era(), session_id: out.session.as_deref() };
    let mut headers = Vec::new();
    delete_headers(context, &mut |name, value| headers.push((Cow::Borrowed(name), value.to_vec())));
    if !headers.is_empty() {
        match tokio::time::timeout(DELETE_TIMEOUT, target.send(Method::DELETE, &headers, Bytes::new())).await {
            Ok(Ok((response, _))) => tracing::debug!(status = %response.status(), "session deleted"),
            Ok(Err(error)) => tracing::debug!(%error, "DELETE of the session failed"),
            Err(_) => tracing::debug!("no answer to the DELETE of the session"),
        }
    }
}

/// The engine's side of the exchanges.
struct Outbox {
    target: Arc<Target>,
    inputs: mpsc::Sender<Input>,
    /// Failure answers of messages this task could not send, fed to the engine next (this task
    /// consumes the queue, so they wait beside it).
    failures: Vec<Vec<u8>>,
    /// The start of a line whose end the engine has not written yet.
    partial: Vec<u8>,
    session: Option<Vec<u8>>,
    /// The exchanges of requests awaiting answers, by the id's JSON text (to close the stream of a
    /// cancelled 2026-07-28 request).
    streams: HashMap<Vec<u8>, AbortHandle>,
    /// The ids (JSON text) of the 2026-07-28 `tools/list` requests awaiting answers.
    tool_lists: HashSet<Vec<u8>>,
    /// The input schema (JSON text) of each listed tool with valid `x-mcp-header` annotations.
    schemas: HashMap<String, Vec<u8>>,
    /// The path messages are POSTed to in a 2024-11-05 HTTP+SSE session.
    http_sse: Option<String>,
}

impl Outbox {
    /// Takes every line the engine wrote and sends each.
    fn flush(&mut self, conn: &mut HostConnection, now: Instant) {
        while let Some(bytes) = Connection::poll_transmit(conn) {
            let n = bytes.len();
            self.partial.extend_from_slice(bytes);
            Connection::transmit_done(conn, now, n);
            while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.partial.drain(..=end).collect();
                line.pop();
                self.send(conn, line);
            }
        }
    }

    /// Sends one message as the core's rules say.
    fn send(&mut self, conn: &HostConnection, line: Vec<u8>) {
        let parsed = ParsedMessage::parse(&line, json::MAX_DEPTH_LIMIT);
        let context = PostContext { version: conn.era(), session_id: self.session.as_deref() };
        let mut headers: Vec<Header> = Vec::new();
        let planned = plan_message(&parsed, context, &mut |name, value| {
            headers.push((Cow::Borrowed(name), value.to_vec()));
        })
        .and_then(|outgoing| {
            self.param_headers(&parsed, context, &mut headers)?;
            Ok(outgoing)
        });
        match planned {
            Ok(Outgoing::Post(post)) => {
                let request = post.request.map(id_text);
                // A 2026-07-28 `tools/list` (the only kind `plan_message` gives `Mcp-Method`): its
                // answer names the tools' schemas.
                if let (Some(id), Some(Ok(Message::Request { method, .. }))) = (&request, parsed.message())
                    && method.eq_str("tools/list")
                    && headers.iter().any(|(name, _)| name == name::METHOD)
                {
                    self.tool_lists.insert(id.clone());
                }
                let exchange = Exchange {
                    target: self.target.clone(),
                    inputs: self.inputs.clone(),
                    request: request.clone(),
                    opens_session: post.opens_session,
                    version: context.version,
                    session: self.session.clone(),
                    http_sse: self.http_sse.clone(),
                };
                let task = tokio::spawn(exchange.run(headers, Bytes::from(line)));
                if let Some(id) = request {
                    self.streams.insert(id, task.abort_handle());
                }
            }
            Ok(Outgoing::CloseStream { request }) => {
                if let Some(stream) = self.streams.remove(&id_text(request)) {
                    stream.abort();
                }
            }
            Err(error) => {
                tracing::warn!(%error, "message not sent");
                if let Some(Ok(Message::Request { id, .. })) = parsed.message() {
                    self.failures.push(failure(id, Failure::Header));
                }
            }
        }
    }

    /// The `Mcp-Param-*` headers of a 2026-07-28 `tools/call` of a tool listed with `x-mcp-header`
    /// annotations.
    fn param_headers(
        &self,
        parsed: &ParsedMessage<'_>,
        context: PostContext<'_>,
        headers: &mut Vec<Header>,
    ) -> Result<(), mcp_sansio::http::HeaderValueError> {
        let Some(Ok(Message::Request { method, params: Some(params), .. })) = parsed.message() else { return Ok(()) };
        if !method.eq_str("tools/call") || self.schemas.is_empty() {
            return Ok(());
        }
        let Some(name) = params.get("name").and_then(|n| n.as_str()) else { return Ok(()) };
        let Some(schema) = self.schemas.get(&name.chars().collect::<String>()) else { return Ok(()) };
        let Ok(schema) = json::parse(schema, json::MAX_DEPTH_LIMIT) else { return Ok(()) };
        param_headers(parsed, context, schema, &mut |name, value| {
            headers.push((Cow::Owned(format!("Mcp-Param-{name}")), value.to_vec()));
        })
    }

    /// Keeps the input schemas of the tools an answer to a 2026-07-28 `tools/list` names with
    /// `x-mcp-header` annotations (forgetting those whose annotations are invalid).
    fn learn_tools(&mut self, message: &[u8]) {
        if self.tool_lists.is_empty() {
            return;
        }
        let parsed = ParsedMessage::parse(message, json::MAX_DEPTH_LIMIT);
        let (id, result) = match parsed.message() {
            Some(Ok(Message::Response { id, result })) => (id, Some(result)),
            Some(Ok(Message::Error { id: Some(id), .. })) => (id, None),
            _ => return,
        };
        if !self.tool_lists.remove(&id_text(id)) {
            return;
        }
        let tools = result.and_then(|r| r.get("tools"));
        for tool in tools.into_iter().flat_map(|t| t.elements()) {
            let Some(name) = tool.get("name").and_then(|n| n.as_str()) else { continue };
            let name: String = name.chars().collect();
            match tool.get("inputSchema") {
                Some(schema) if check_param_annotations(schema).is_ok_and(|n| n > 0) => {
                    self.schemas.insert(name, schema.as_bytes().to_vec());
                }
                _ => {
                    self.schemas.remove(&name);
                }
            }
        }
    }

    /// Gives `message` to the engine as a line, sending what it writes meanwhile.
    fn feed(&mut self, conn: &mut HostConnection, mut message: Vec<u8>, now: Instant) {
        self.learn_tools(&message);
        to_line(&mut message);
        message.push(b'\n');
        let mut rest = message.as_slice();
        while !rest.is_empty() {
            let taken = conn.handle_input(now, rest);
            rest = rest.get(taken..).unwrap_or_default();
            if taken == 0 {
                // Held back until output is taken; nothing to take: the engine is closed.
                if Connection::poll_transmit(conn).is_none() {
                    break;
                }
                self.flush(conn, now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_the_host_the_port_and_the_path() {
        let parse = |url: &str| Target::parse(url, None);
        let target = parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!(
            (target.authority.as_str(), target.host.as_str(), target.port),
            ("127.0.0.1:8080", "127.0.0.1", 8080)
        );
        assert_eq!(target.path, "/mcp");
        let target = parse("HTTP://example.com").unwrap();
        assert_eq!((target.host.as_str(), target.port, target.path.as_str()), ("example.com", 80, "/"));
        let target = parse("http://[::1]:9/a?b=c#frag").unwrap();
        assert_eq!((target.host.as_str(), target.port, target.path.as_str()), ("::1", 9, "/a?b=c"));
        assert_eq!(target.authority, "[::1]:9");
        let target = parse("http://h?x").unwrap();
        assert_eq!(target.path, "/?x");
        #[cfg(not(feature = "tls"))]
        assert_eq!(parse("https://h/mcp").err().map(|e| e.kind()), Some(io::ErrorKind::Unsupported));
        #[cfg(feature = "tls")]
        {
            let target = parse("HTTPS://example.com/mcp").unwrap();
            assert_eq!((target.scheme, target.port, target.path.as_str()), ("https", 443, "/mcp"));
            assert_eq!(parse("https://[::1]:8443/").unwrap().port, 8443);
        }
        for bad in ["h/mcp", "ftp://h/", "http:///mcp", "http://u@h/", "http://h:x/", "http://[::1/"] {
            assert_eq!(parse(bad).err().map(|e| e.kind()), Some(io::ErrorKind::InvalidInput), "{bad}");
        }
    }
}
