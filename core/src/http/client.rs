//! The client's rules of Streamable HTTP, sans-IO: what a client sends with each message it POSTs
//! ([`plan_message`]), how it reads the answer ([`read_response`], [`EventStream`],
//! [`answers`]), what it tells its engine when the HTTP exchange itself failed
//! ([`write_failure`]), and the legacy session it echoes ([`session_id`], [`delete_headers`]).
//!
//! A client engine writes its messages as lines (NDJSON); an HTTP client POSTs each line with the
//! headers [`plan_message`] gives, and feeds each message of the answer back to the engine as a line
//! ([`to_line`]). Every decision is here, so the HTTP client only moves bytes:
//!
//! 1. **Headers.** Every POST: `Content-Type: application/json` and
//!    `Accept: application/json, text/event-stream`. A 2026-07-28 message (one whose `_meta` names
//!    the protocol version, or any message once a 2026-07-28 connection is set up) adds
//!    `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` ([`standard_header_values`]), each value
//!    written as it is or as `=?base64?…?=` ([`encode_value`]). A legacy message after `initialize`
//!    adds the negotiated `MCP-Protocol-Version`, and `Mcp-Session-Id` once the server gave one
//!    ([`PostContext`]).
//! 2. **Cancellation in 2026-07-28** is closing the request's response stream, not a message:
//!    [`plan_message`] turns the engine's `notifications/cancelled` into [`Outgoing::CloseStream`].
//! 3. **The answer** ([`read_response`]): a success with `application/json` is one message; with
//!    `text/event-stream` the messages are the `data` of its events ([`EventStream`], which also
//!    keeps the last event id and `retry`); 202 (or any success without a body type) carries
//!    nothing. An error status whose JSON body [`answers`] the request is that answer (a 2026-07-28
//!    server's JSON-RPC error, such as `-32601` on 404 to `server/discover` from a server without
//!    it), and so is an error without an id ([`write_anonymous_error`]: a server that refused the
//!    message before reading its id); without one, the client answers the request itself with
//!    [`write_failure`] (`-32000`, `HTTP <status>`), so the engine reaches its outcome (and an era
//!    probe falls back) as over stdio.
//! 4. **Sessions** (legacy): the `Mcp-Session-Id` of the answer to `initialize` ([`session_id`])
//!    goes on every later request, and on the `DELETE` that ends the session ([`delete_headers`]).
//!    A 404 to a request that carried the session means the session ended ([`session_expired`]):
//!    the client starts a new one with `initialize`.
//!
//! 5. **The standalone stream** (legacy): once connected the client opens a `GET` stream
//!    ([`opens_listen_stream`], [`listen_headers`]) for the server's notifications and requests,
//!    and reopens it when it ends, resuming with `Last-Event-ID` after the server's `retry`
//!    ([`reopen_after`]); a 405 means the server offers none.
//! 6. **Resuming a request's stream** (legacy, 2025-03-26 and later): a POST's SSE stream that
//!    ends (the server closed it, SEP-1699 polling, or it broke) before the answer, after naming an
//!    event id, is resumed with a `GET` carrying `Last-Event-ID` ([`listen_headers`]) after the
//!    server's `retry` ([`resume_after`]); the answer comes on the resumed stream. A 2026-07-28
//!    stream is not resumable: its request fails.
//! 7. **`x-mcp-header`** (2026-07-28): a tool whose annotations are invalid is dropped
//!    ([`check_param_annotations`]); a `tools/call` of a kept tool mirrors its annotated arguments
//!    into `Mcp-Param-{Name}` headers ([`param_headers`], from the tool's `inputSchema` as listed).
//!
//! 8. **The 2024-11-05 HTTP+SSE transport**, which a client falls back to when `initialize` gets a
//!    4xx: see [`falls_back_to_http_sse`] and the steps there.

mod http_sse;
mod param;

pub use http_sse::{
    EndpointError, HTTP_SSE_ACCEPT, MAX_ENDPOINT_LEN, endpoint_event, falls_back_to_http_sse, resolve_endpoint,
};
pub use param::{InvalidParamAnnotation, MAX_PARAM_NAME_LEN, check_param_annotations, param_headers};

use crate::frame::ReceivedEvent;
use crate::http::{HeaderValueError, MAX_HEADER_VALUE_LEN, encode_value, media_type_is, name, standard_header_values};
use crate::json::{JsonWriter, Kind, Value};
use crate::jsonrpc::{self, ErrorMessage, Id, Message, ParsedMessage};
use crate::num::Decimal;
use crate::time::Duration;
use crate::version::{Era, ProtocolVersion};

/// The `Accept` of every POST: the client takes both answer framings.
pub const ACCEPT: &str = "application/json, text/event-stream";
/// The `Content-Type` of every POST.
pub const CONTENT_TYPE: &str = "application/json";
/// The JSON-RPC error code of the answers [`write_failure`] writes (implementation-defined
/// server error range).
pub const TRANSPORT_ERROR: i32 = -32000;
/// Longest `Mcp-Session-Id` a client keeps ([`session_id`]).
pub const MAX_CLIENT_SESSION_ID_LEN: usize = 256;
/// Longest SSE event id kept to resume with ([`EventStream::last_event_id`]).
pub const MAX_EVENT_ID_LEN: usize = 128;
/// Longest header value [`plan_message`] writes: [`MAX_HEADER_VALUE_LEN`] bytes of text in the
/// `=?base64?…?=` form.
pub const MAX_ENCODED_VALUE_LEN: usize = "=?base64?".len() + MAX_HEADER_VALUE_LEN.div_ceil(3) * 4 + "?=".len();

/// What the client knows of the connection that its requests' headers say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PostContext<'s> {
    /// The protocol version spoken, once the connection is set up (the client engine's `era()`).
    pub version: Option<ProtocolVersion>,
    /// The legacy session the server named in its answer to `initialize` ([`session_id`]).
    pub session_id: Option<&'s [u8]>,
}

/// What to do with one message the client engine wrote ([`plan_message`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outgoing<'b> {
    /// POST it, with the headers given to `put`.
    Post(Post<'b>),
    /// A 2026-07-28 `notifications/cancelled`: not sent; the client closes the response stream of
    /// the request it names, which is how a 2026-07-28 server learns of the cancellation.
    CloseStream {
        /// The id of the cancelled request.
        request: Id<'b>,
    },
}

/// A message to POST.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Post<'b> {
    /// The id of a request: its answer is awaited on the response to this POST (`None` for
    /// notifications and responses, which are answered 202).
    pub request: Option<Id<'b>>,
    /// The message is `initialize`: the answer's `Mcp-Session-Id` names the legacy session.
    pub opens_session: bool,
}

/// What to send for `message`, one line the client engine wrote: calls `put` with the name (in
/// lower case, from [`name`]) and value of each header of its POST, or tells that it is not sent
/// ([`Outgoing::CloseStream`]). Fails with [`HeaderValueError::TooLong`] when a standard header's
/// text is longer than [`MAX_HEADER_VALUE_LEN`] bytes (the request cannot be sent).
pub fn plan_message<'b>(
    message: &ParsedMessage<'b>,
    context: PostContext<'_>,
    put: &mut dyn FnMut(&'static str, &[u8]),
) -> Result<Outgoing<'b>, HeaderValueError> {
    let values = standard_header_values(message);
    let modern = values.protocol_version.is_some() || context.version.is_some_and(|v| v.era() == Era::Modern);
    let (request, method, params) = match message.message() {
        Some(Ok(Message::Request { id, method, params })) => (Some(id), Some(method), params),
        Some(Ok(Message::Notification { method, params })) => (None, Some(method), params),
        _ => (None, None, None),
    };
    if modern
        && let (None, Some(method)) = (request, method)
        && method.eq_str("notifications/cancelled")
        && let Some(cancelled) = params.and_then(|p| p.get("requestId")).and_then(Id::from_value)
    {
        return Ok(Outgoing::CloseStream { request: cancelled });
    }
    put(name::CONTENT_TYPE, CONTENT_TYPE.as_bytes());
    put(name::ACCEPT, ACCEPT.as_bytes());
    if modern {
        match values.protocol_version {
            Some(version) => put_value(name::PROTOCOL_VERSION, version, put)?,
            None => {
                if let Some(version) = context.version {
                    put(name::PROTOCOL_VERSION, version.as_str().as_bytes());
                }
            }
        }
        if let Some(method) = values.method {
            let mut text = [0u8; MAX_HEADER_VALUE_LEN];
            let text = method.unescape_into(&mut text).ok_or(HeaderValueError::TooLong)?;
            put_text(name::METHOD, text, put)?;
        }
        if let Some(value) = values.name {
            put_value(name::NAME, value, put)?;
        }
    } else {
        if let Some(version) = context.version {
            put(name::PROTOCOL_VERSION, version.as_str().as_bytes());
        }
        if let Some(session) = context.session_id {
            put(name::SESSION_ID, session);
        }
    }
    let opens_session = !modern && request.is_some() && method.is_some_and(|m| m.eq_str("initialize"));
    Ok(Outgoing::Post(Post { request, opens_session }))
}

/// Whether the answer `status` to a request sent in `context` says that the legacy session ended:
/// 404 to a request that carried `Mcp-Session-Id`. The client then MUST start a new session, with
/// `initialize` and without the old session
/// ([`Engine::reinitialize`](crate::client::Engine::reinitialize)); the request that got the 404
/// is answered by the server's error ([`write_anonymous_error`]) or fails ([`Failure::Status`]).
pub fn session_expired(status: u16, context: PostContext<'_>) -> bool {
    let legacy = !context.version.is_some_and(|v| v.era() == Era::Modern);
    status == 404 && legacy && context.session_id.is_some()
}

/// The headers of the `DELETE` that ends a legacy session (none without a session: there is
/// nothing to end).
pub fn delete_headers(context: PostContext<'_>, put: &mut dyn FnMut(&'static str, &[u8])) {
    let Some(session) = context.session_id else { return };
    put(name::SESSION_ID, session);
    if let Some(version) = context.version {
        put(name::PROTOCOL_VERSION, version.as_str().as_bytes());
    }
}

/// Puts a header saying the JSON value `value`: a string's text, a number's or a boolean's as
/// written; other kinds say nothing (the header is omitted).
fn put_value(
    header: &'static str,
    value: Value<'_>,
    put: &mut dyn FnMut(&'static str, &[u8]),
) -> Result<(), HeaderValueError> {
    let mut text = [0u8; MAX_HEADER_VALUE_LEN];
    let text = match value.kind() {
        Kind::String => value.as_str().and_then(|s| s.unescape_into(&mut text)).ok_or(HeaderValueError::TooLong)?,
        Kind::Number | Kind::True | Kind::False => {
            core::str::from_utf8(value.as_bytes()).map_err(|_| HeaderValueError::InvalidCharacter)?
        }
        _ => return Ok(()),
    };
    put_text(header, text, put)
}

/// Puts `text` encoded as a header value ([`encode_value`]).
fn put_text(
    header: &'static str,
    text: &str,
    put: &mut dyn FnMut(&'static str, &[u8]),
) -> Result<(), HeaderValueError> {
    if text.len() > MAX_HEADER_VALUE_LEN {
        return Err(HeaderValueError::TooLong);
    }
    let mut out = [0u8; MAX_ENCODED_VALUE_LEN];
    put(header, encode_value(text, &mut out)?);
    Ok(())
}

/// How long a client waits before reopening a standalone stream whose server sent no `retry`.
pub const DEFAULT_REOPEN_DELAY: Duration = Duration::from_millis(1000);
/// Attempts in a row to (re)open a standalone stream that fail before the client gives up.
pub const MAX_LISTEN_FAILURES: u32 = 3;

/// Whether a client opens the standalone `GET` stream, on which a legacy server sends
/// notifications and requests unrelated to a POST: once a legacy era (2025-03-26 or later) was
/// negotiated. A 2026-07-28 endpoint is POST only.
pub fn opens_listen_stream(context: PostContext<'_>) -> bool {
    context.version.is_some_and(|v| v.era() == Era::Legacy && v != ProtocolVersion::V2024_11_05)
}

/// The headers of the `GET` that opens the standalone stream or, with `last_event_id` (from its
/// [`EventStream`]), resumes it: `Accept: text/event-stream`, the negotiated version, the session
/// and `Last-Event-ID`.
pub fn listen_headers(
    context: PostContext<'_>,
    last_event_id: Option<&[u8]>,
    put: &mut dyn FnMut(&'static str, &[u8]),
) {
    put(name::ACCEPT, b"text/event-stream");
    if let Some(version) = context.version {
        put(name::PROTOCOL_VERSION, version.as_str().as_bytes());
    }
    if let Some(session) = context.session_id {
        put(name::SESSION_ID, session);
    }
    if let Some(id) = last_event_id {
        put(name::LAST_EVENT_ID, id);
    }
}

/// How a standalone stream's `GET` ended ([`reopen_after`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListenEnd {
    /// The server answered with this status and no stream (405: it offers none).
    Status(u16),
    /// The stream was open and ended (the server closed it, or it broke).
    Ended,
    /// No answer: the connection failed.
    Connection,
}

/// Whether to open the standalone stream again after `end`, and after how long: after a stream
/// that ended, the server's last `retry` (else [`DEFAULT_REOPEN_DELAY`]), resuming from its last
/// event id; after a failed connection the same, up to [`MAX_LISTEN_FAILURES`] `failures` in a
/// row; never after an error status (405: no stream; 404: the session is gone; others: refused).
pub fn reopen_after(end: ListenEnd, stream: &EventStream, failures: u32) -> Option<Duration> {
    let delay = stream.retry_ms().map_or(DEFAULT_REOPEN_DELAY, Duration::from_millis);
    match end {
        ListenEnd::Status(_) => None,
        ListenEnd::Ended => Some(delay),
        ListenEnd::Connection => (failures < MAX_LISTEN_FAILURES).then_some(delay),
    }
}

/// Whether to resume the SSE stream of a request that ended before its answer, and after how long
/// ([`ListenEnd`] says how the last attempt ended): only in a legacy era that has resumability
/// (2025-03-26 and later, as [`opens_listen_stream`]) and only once the stream named an event id
/// to resume from; after the server's last `retry` (else [`DEFAULT_REOPEN_DELAY`]). `failures`
/// counts the attempts in a row that brought no event (a connection that failed, a stream that
/// ended empty): at [`MAX_LISTEN_FAILURES`] the client gives up (the request fails). An error
/// status (404, 405, …) ends it at once. Resume with a `GET` carrying [`listen_headers`] with the
/// stream's [`EventStream::last_event_id`].
pub fn resume_after(context: PostContext<'_>, end: ListenEnd, stream: &EventStream, failures: u32) -> Option<Duration> {
    if !opens_listen_stream(context) || stream.last_event_id().is_none() || failures >= MAX_LISTEN_FAILURES {
        return None;
    }
    match end {
        ListenEnd::Status(_) => None,
        ListenEnd::Ended | ListenEnd::Connection => {
            Some(stream.retry_ms().map_or(DEFAULT_REOPEN_DELAY, Duration::from_millis))
        }
    }
}

/// How to read the answer to a POST ([`read_response`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseBody {
    /// `application/json`: the body is one message.
    Json,
    /// `text/event-stream`: the messages are the data of its events ([`EventStream`]).
    EventStream,
    /// Nothing to read: 202 Accepted (a notification or a response was taken), 204, or a success
    /// without a body type.
    Empty,
    /// A success in a media type that carries no MCP message: a request's answer will not come
    /// ([`Failure::ContentType`]).
    Unusable,
    /// An error status. A JSON body that [`answers`] the request is its answer; otherwise the
    /// request failed ([`Failure::Status`]).
    Failed {
        /// The status code.
        status: u16,
        /// The body is `application/json` (worth reading).
        json: bool,
    },
}

/// How to read the answer to a POST, from its status and `Content-Type`.
pub fn read_response(status: u16, content_type: Option<&[u8]>) -> ResponseBody {
    let json = content_type.is_some_and(|t| media_type_is(t, b"application/json"));
    if !(200..300).contains(&status) {
        return ResponseBody::Failed { status, json };
    }
    match content_type {
        _ if status == 202 || status == 204 => ResponseBody::Empty,
        None => ResponseBody::Empty,
        Some(_) if json => ResponseBody::Json,
        Some(t) if media_type_is(t, b"text/event-stream") => ResponseBody::EventStream,
        Some(_) => ResponseBody::Unusable,
    }
}

/// Whether `message` is the answer (a result or an error) to the request `request`: what decides
/// whether an error status's body is fed to the engine, and whether a stream that ended had
/// answered its request.
pub fn answers(message: &ParsedMessage<'_>, request: Id<'_>) -> bool {
    match message.message() {
        Some(Ok(Message::Response { id, .. } | Message::Error { id: Some(id), .. })) => same_id(id, request),
        _ => false,
    }
}

fn same_id(a: Id<'_>, b: Id<'_>) -> bool {
    match (a, b) {
        (Id::Number(a), Id::Number(b)) => a == b,
        (Id::String(a), Id::String(b)) => a.chars().eq(b.chars()),
        _ => false,
    }
}

/// Why an HTTP exchange left a request without its answer ([`write_failure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// An error status without a body that answers the request.
    Status(u16),
    /// A success in a media type that carries no message ([`ResponseBody::Unusable`]).
    ContentType,
    /// The response ended (or broke) before the answer came.
    Ended,
    /// The request could not be sent, or no response head came.
    Connection,
    /// A standard header could not be written ([`plan_message`] failed).
    Header,
}

/// Writes the answer a client gives itself for `request` when the HTTP exchange failed
/// (`{"jsonrpc":"2.0","id":…,"error":{"code":-32000,"message":"HTTP 404"}}`, [`TRANSPORT_ERROR`]),
/// to feed to its engine as if the server had sent it: the request's outcome is that error, and
/// an era probe answered so falls back to `initialize`.
pub fn write_failure(w: &mut JsonWriter<'_>, request: Id<'_>, failure: Failure) {
    let text = match failure {
        Failure::Status(status) => {
            let message = ErrorMessage::Whole(format_args!("HTTP {}", Decimal(u64::from(status))));
            return jsonrpc_failure(w, request, message);
        }
        Failure::ContentType => "HTTP answer of a media type without messages",
        Failure::Ended => "HTTP response ended before the answer",
        Failure::Connection => "HTTP request failed",
        Failure::Header => "a header value is too long to send",
    };
    jsonrpc_failure(w, request, ErrorMessage::Whole(format_args!("{text}")));
}

fn jsonrpc_failure(w: &mut JsonWriter<'_>, request: Id<'_>, message: ErrorMessage<'_>) {
    jsonrpc::write_error_head(w, Some(&request), TRANSPORT_ERROR, message);
    w.raw(b"}}");
}

/// Writes the answer to `request` that an error status's JSON body gives when it is a JSON-RPC
/// error with `"id": null`, from a server that refused the POSTed message without naming its id
/// (a legacy server refusing a 2026-07-28 request: 400, `-32000`, "Bad Request: Server not
/// initialized"). A POST carries one message, so the error is that request's: written with its id
/// (the server's code, message and data), to feed the engine in place of the body. `false`, and
/// nothing written, when `message` is not such an error.
pub fn write_anonymous_error(w: &mut JsonWriter<'_>, message: &ParsedMessage<'_>, request: Id<'_>) -> bool {
    let Some(Ok(Message::Error { id: None, error })) = message.message() else { return false };
    let code = error.get("code").and_then(|c| c.as_i64()).and_then(|c| i32::try_from(c).ok());
    let (Some(code), Some(text)) = (code, error.get("message").and_then(|m| m.as_str())) else { return false };
    jsonrpc::write_error_head(w, Some(&request), code, ErrorMessage::Whole(format_args!("{text}")));
    if let Some(data) = error.get("data") {
        w.member("data");
        w.raw(data.as_bytes());
    }
    w.raw(b"}}");
    true
}

/// The session a legacy server named in its answer to `initialize`: the `Mcp-Session-Id` value
/// (OWS trimmed) if it is visible ASCII (`0x21`–`0x7E`), not empty and at most
/// [`MAX_CLIENT_SESSION_ID_LEN`] bytes; `None` otherwise (the client goes on without a session).
pub fn session_id(value: &[u8]) -> Option<&[u8]> {
    let value = crate::http::trim_ows(value);
    let valid = !value.is_empty()
        && value.len() <= MAX_CLIENT_SESSION_ID_LEN
        && value.iter().all(|b| (0x21..=0x7e).contains(b));
    valid.then_some(value)
}

/// Makes one received message a line for the engine's `handle_input`: a message may span lines
/// (pretty-printed JSON, or SSE `data` fields joined with LF), and CR and LF can only be
/// whitespace in JSON (never inside a string), so each becomes a space. Append `\n` after it.
pub fn to_line(message: &mut [u8]) {
    for byte in message.iter_mut().filter(|b| matches!(b, b'\n' | b'\r')) {
        *byte = b' ';
    }
}

/// The state of one `text/event-stream` answer: the messages of its events, and what a client
/// needs to resume it (the last event id and the reconnection delay).
#[derive(Clone, Debug, Default)]
pub struct EventStream {
    last_event_id: Option<heapless::Vec<u8, MAX_EVENT_ID_LEN>>,
    retry_ms: Option<u64>,
}

impl EventStream {
    /// A stream with no event read yet.
    pub fn new() -> Self {
        EventStream::default()
    }

    /// Reads one event ([`SseDecoder::next_event`](crate::frame::SseDecoder::next_event)): keeps
    /// its id and `retry`, and returns the message it carries (the data of a `message` event that
    /// has data; a priming event, with empty data, carries none).
    pub fn read<'e>(&mut self, event: &ReceivedEvent<'e>) -> Option<&'e [u8]> {
        if let Some(id) = event.id() {
            // An id too long to keep cannot be resumed from: forget the older one too.
            self.last_event_id = (!id.is_empty()).then(|| heapless::Vec::from_slice(id).ok()).flatten();
        }
        if let Some(retry) = event.retry() {
            self.retry_ms = Some(retry);
        }
        (event.is_message() && event.event_type() == b"message").then(|| event.data())
    }

    /// The id of the last event that had one: the `Last-Event-ID` to resume with. `None` when
    /// none had one, the last was empty (a reset), or it was longer than [`MAX_EVENT_ID_LEN`].
    pub fn last_event_id(&self) -> Option<&[u8]> {
        self.last_event_id.as_deref()
    }

    /// The last `retry` the server sent: how long to wait before resuming, in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }
}

#[cfg(test)]
mod tests {
    use std::string::String;
    use std::vec::Vec;

    use super::*;
    use crate::frame::SseDecoder;
    use crate::http::{HeaderList, decode_value, plan_post};

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn plan(
        line: &str,
        context: PostContext<'_>,
    ) -> (Result<Outgoing<'static>, HeaderValueError>, Vec<(&'static str, String)>) {
        let line: &'static str = std::boxed::Box::leak(String::from(line).into_boxed_str());
        let parsed = ParsedMessage::parse(line.as_bytes(), 32);
        let mut headers = Vec::new();
        let outgoing = plan_message(&parsed, context, &mut |name, value| {
            headers.push((name, String::from_utf8(value.to_vec()).unwrap()));
        });
        (outgoing, headers)
    }

    fn get<'h>(headers: &'h [(&'static str, String)], name: &str) -> Option<&'h str> {
        headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn a_modern_request_carries_the_standard_headers_a_server_accepts() {
        let body =
            std::format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"caf\u00e9",{META}}}}}"#);
        let (outgoing, headers) = plan(&body, PostContext::default());
        assert_eq!(outgoing, Ok(Outgoing::Post(Post { request: Some(Id::Number(7)), opens_session: false })));
        assert_eq!(get(&headers, "content-type"), Some("application/json"));
        assert_eq!(get(&headers, "accept"), Some("application/json, text/event-stream"));
        assert_eq!(get(&headers, "mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(get(&headers, "mcp-method"), Some("tools/call"));
        let mut out = [0u8; 64];
        assert_eq!(decode_value(get(&headers, "mcp-name").unwrap().as_bytes(), &mut out), Ok("caf\u{e9}"));
        assert_eq!(get(&headers, "mcp-session-id"), None, "no session in 2026-07-28");
        // The server's own rules accept them.
        let pairs: Vec<(&str, &[u8])> = headers.iter().map(|(n, v)| (*n, v.as_bytes())).collect();
        assert!(plan_post(&HeaderList(&pairs), body.as_bytes(), false).is_ok());
        // Even with a session given (a host that switched eras), a modern message names none.
        let (_, headers) = plan(&body, PostContext { session_id: Some(b"abc"), ..PostContext::default() });
        assert_eq!(get(&headers, "mcp-session-id"), None);
    }

    #[test]
    fn a_name_too_long_for_a_header_cannot_be_sent() {
        let long = "x".repeat(MAX_HEADER_VALUE_LEN + 1);
        let body =
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{long}",{META}}}}}"#);
        assert_eq!(plan(&body, PostContext::default()).0, Err(HeaderValueError::TooLong));
        let fits = "y".repeat(MAX_HEADER_VALUE_LEN);
        let body =
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{fits}",{META}}}}}"#);
        assert!(plan(&body, PostContext::default()).0.is_ok());
    }

    #[test]
    fn legacy_messages_carry_the_negotiated_version_and_the_session() {
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#;
        let (outgoing, headers) = plan(init, PostContext::default());
        assert_eq!(outgoing, Ok(Outgoing::Post(Post { request: Some(Id::Number(1)), opens_session: true })));
        assert_eq!(headers.len(), 2, "only the media types before a version is negotiated: {headers:?}");
        let context = PostContext { version: Some(ProtocolVersion::V2025_11_25), session_id: Some(b"s-1") };
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}"#;
        let (outgoing, headers) = plan(call, context);
        assert_eq!(outgoing, Ok(Outgoing::Post(Post { request: Some(Id::Number(2)), opens_session: false })));
        assert_eq!(get(&headers, "mcp-protocol-version"), Some("2025-11-25"));
        assert_eq!(get(&headers, "mcp-session-id"), Some("s-1"));
        assert_eq!(get(&headers, "mcp-method"), None, "no 2026-07-28 headers in legacy");
        assert_eq!(get(&headers, "mcp-name"), None);
        // Answers to the server's requests and notifications are POSTed alike, and await nothing.
        let answer = r#"{"jsonrpc":"2.0","id":0,"result":{"action":"accept"}}"#;
        let (outgoing, headers) = plan(answer, context);
        assert_eq!(outgoing, Ok(Outgoing::Post(Post { request: None, opens_session: false })));
        assert_eq!(get(&headers, "mcp-session-id"), Some("s-1"));
        let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        assert_eq!(plan(cancel, context).0, Ok(Outgoing::Post(Post { request: None, opens_session: false })));
    }

    #[test]
    fn a_modern_cancellation_closes_the_stream() {
        let context = PostContext { version: Some(ProtocolVersion::V2026_07_28), session_id: None };
        let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#;
        let (outgoing, headers) = plan(cancel, context);
        assert_eq!(outgoing, Ok(Outgoing::CloseStream { request: Id::Number(5) }));
        assert!(headers.is_empty());
        // Another modern notification without `_meta` still says the version and method.
        let other = r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#;
        let (_, headers) = plan(other, context);
        assert_eq!(get(&headers, "mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(get(&headers, "mcp-method"), Some("notifications/roots/list_changed"));
    }

    #[test]
    fn delete_names_the_session() {
        let mut headers = Vec::new();
        delete_headers(PostContext::default(), &mut |n, v| headers.push((n, v.to_vec())));
        assert!(headers.is_empty());
        let context = PostContext { version: Some(ProtocolVersion::V2025_06_18), session_id: Some(b"abc") };
        delete_headers(context, &mut |n, v| headers.push((n, v.to_vec())));
        assert_eq!(headers, [("mcp-session-id", b"abc".to_vec()), ("mcp-protocol-version", b"2025-06-18".to_vec())]);
    }

    #[test]
    fn an_error_without_an_id_answers_the_posted_request() {
        let write = |body: &str| {
            let mut buf = [0u8; 256];
            let mut w = JsonWriter::new(&mut buf);
            let message = ParsedMessage::parse(body.as_bytes(), 8);
            let written = write_anonymous_error(&mut w, &message, Id::Number(7));
            written.then(|| String::from_utf8(w.written().to_vec()).unwrap())
        };
        assert_eq!(
            write(
                r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}"#
            )
            .as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}"#)
        );
        assert_eq!(
            write(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"a\"b","data":{"x":[1]}}}"#)
                .as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"a\"b","data":{"x":[1]}}}"#)
        );
        // An error naming an id, a result, a code out of range, garbage: not this rule's.
        for other in [
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":99999999999,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-1}}"#,
            "not json",
        ] {
            assert_eq!(write(other), None, "{other}");
        }
    }

    #[test]
    fn a_404_to_a_request_with_a_session_ends_the_session() {
        let session = PostContext { version: Some(ProtocolVersion::V2025_06_18), session_id: Some(b"abc") };
        assert!(session_expired(404, session));
        assert!(!session_expired(400, session));
        assert!(!session_expired(200, session));
        // Without a session (a server that named none, or `initialize` itself): no session ended.
        assert!(!session_expired(404, PostContext { session_id: None, ..session }));
        assert!(!session_expired(404, PostContext::default()));
        // 2026-07-28 has no sessions: a 404 there is an answer (`-32601`), not an ending.
        let modern = PostContext { version: Some(ProtocolVersion::V2026_07_28), session_id: Some(b"abc") };
        assert!(!session_expired(404, modern));
    }

    #[test]
    fn legacy_clients_listen_and_reopen_as_the_server_says() {
        let legacy = PostContext { version: Some(ProtocolVersion::V2025_11_25), session_id: Some(b"s") };
        assert!(opens_listen_stream(legacy));
        assert!(!opens_listen_stream(PostContext::default()), "not before the handshake");
        assert!(!opens_listen_stream(PostContext { version: Some(ProtocolVersion::V2026_07_28), session_id: None }));
        let mut headers = Vec::new();
        listen_headers(legacy, Some(b"0-7"), &mut |n, v| headers.push((n, v.to_vec())));
        assert_eq!(
            headers,
            [
                ("accept", b"text/event-stream".to_vec()),
                ("mcp-protocol-version", b"2025-11-25".to_vec()),
                ("mcp-session-id", b"s".to_vec()),
                ("last-event-id", b"0-7".to_vec()),
            ]
        );
        let mut stream = EventStream::new();
        assert_eq!(reopen_after(ListenEnd::Ended, &stream, 0), Some(DEFAULT_REOPEN_DELAY));
        assert_eq!(reopen_after(ListenEnd::Status(405), &stream, 0), None);
        assert_eq!(reopen_after(ListenEnd::Status(404), &stream, 0), None);
        assert_eq!(reopen_after(ListenEnd::Connection, &stream, MAX_LISTEN_FAILURES - 1), Some(DEFAULT_REOPEN_DELAY));
        assert_eq!(reopen_after(ListenEnd::Connection, &stream, MAX_LISTEN_FAILURES), None);
        let mut storage = [0u8; 64];
        let mut decoder = SseDecoder::new(&mut storage);
        assert_eq!(decoder.push(b"retry: 250\ndata:\n\n"), 18);
        stream.read(&decoder.next_event().unwrap().unwrap());
        assert_eq!(reopen_after(ListenEnd::Ended, &stream, 0), Some(Duration::from_millis(250)));
    }

    #[test]
    fn a_legacy_request_stream_is_resumed_from_its_last_event() {
        let legacy = PostContext { version: Some(ProtocolVersion::V2025_11_25), session_id: Some(b"s") };
        let mut stream = EventStream::new();
        assert_eq!(resume_after(legacy, ListenEnd::Ended, &stream, 0), None, "no event id to resume from");
        let mut storage = [0u8; 64];
        let mut decoder = SseDecoder::new(&mut storage);
        assert_eq!(decoder.push(b"id: e-2\nretry: 500\ndata:\n\n"), 26);
        assert_eq!(stream.read(&decoder.next_event().unwrap().unwrap()), None, "a priming event");
        assert_eq!(resume_after(legacy, ListenEnd::Ended, &stream, 0), Some(Duration::from_millis(500)));
        assert_eq!(resume_after(legacy, ListenEnd::Connection, &stream, 2), Some(Duration::from_millis(500)));
        assert_eq!(resume_after(legacy, ListenEnd::Ended, &stream, MAX_LISTEN_FAILURES), None, "gives up");
        assert_eq!(resume_after(legacy, ListenEnd::Status(405), &stream, 0), None);
        let modern = PostContext { version: Some(ProtocolVersion::V2026_07_28), session_id: None };
        assert_eq!(resume_after(modern, ListenEnd::Ended, &stream, 0), None, "2026-07-28 has no resumability");
        let old = PostContext { version: Some(ProtocolVersion::V2024_11_05), session_id: None };
        assert_eq!(resume_after(old, ListenEnd::Ended, &stream, 0), None);
        assert_eq!(resume_after(PostContext::default(), ListenEnd::Ended, &stream, 0), None, "no era yet");
        let mut without_retry = EventStream::new();
        assert_eq!(decoder.push(b"id: e-3\ndata:\n\n"), 15);
        without_retry.read(&decoder.next_event().unwrap().unwrap());
        assert_eq!(resume_after(legacy, ListenEnd::Ended, &without_retry, 0), Some(DEFAULT_REOPEN_DELAY));
    }

    #[test]
    fn responses_are_read_by_status_and_media_type() {
        assert_eq!(read_response(200, Some(b"application/json; charset=utf-8")), ResponseBody::Json);
        assert_eq!(read_response(200, Some(b"Text/Event-Stream")), ResponseBody::EventStream);
        assert_eq!(read_response(202, None), ResponseBody::Empty);
        assert_eq!(read_response(202, Some(b"application/json")), ResponseBody::Empty);
        assert_eq!(read_response(200, None), ResponseBody::Empty);
        assert_eq!(read_response(200, Some(b"text/html")), ResponseBody::Unusable);
        assert_eq!(read_response(404, None), ResponseBody::Failed { status: 404, json: false });
        assert_eq!(read_response(400, Some(b"application/json")), ResponseBody::Failed { status: 400, json: true });
        assert_eq!(read_response(500, Some(b"text/plain")), ResponseBody::Failed { status: 500, json: false });
    }

    #[test]
    fn only_an_answer_with_the_request_id_answers_it() {
        let id = Id::Number(3);
        let answers_text = |text: &str| answers(&ParsedMessage::parse(text.as_bytes(), 32), id);
        assert!(answers_text(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}"#));
        assert!(answers_text(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#));
        assert!(!answers_text(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request"}}"#));
        assert!(!answers_text(r#"{"jsonrpc":"2.0","id":4,"result":{}}"#));
        assert!(!answers_text(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#));
        assert!(!answers_text("not json"));
        assert!(!answers_text(""));
        let string = ParsedMessage::parse(br#"{"jsonrpc":"2.0","id":"a\u0062","result":{}}"#, 32);
        let other = ParsedMessage::parse(br#"{"jsonrpc":"2.0","id":"ab","method":"x"}"#, 32);
        let Some(Ok(Message::Request { id: ab, .. })) = other.message() else { panic!() };
        assert!(answers(&string, ab), "string ids compare unescaped");
    }

    #[test]
    fn a_failure_is_an_error_answer_for_the_request() {
        let mut buf = [0u8; 160];
        for (failure, message) in [
            (Failure::Status(405), "HTTP 405"),
            (Failure::Ended, "HTTP response ended before the answer"),
            (Failure::Connection, "HTTP request failed"),
        ] {
            let mut w = JsonWriter::new(&mut buf);
            write_failure(&mut w, Id::Number(9), failure);
            let text = core::str::from_utf8(w.written()).unwrap();
            assert_eq!(
                text,
                std::format!(r#"{{"jsonrpc":"2.0","id":9,"error":{{"code":-32000,"message":"{message}"}}}}"#)
            );
            assert!(answers(&ParsedMessage::parse(text.as_bytes(), 32), Id::Number(9)));
        }
    }

    #[test]
    fn session_ids_are_visible_ascii() {
        assert_eq!(session_id(b" 1868a90c-x "), Some(&b"1868a90c-x"[..]));
        assert_eq!(session_id(b""), None);
        assert_eq!(session_id(b"a b"), None);
        assert_eq!(session_id("é".as_bytes()), None);
        assert_eq!(session_id(&[b'a'; MAX_CLIENT_SESSION_ID_LEN + 1]), None);
        assert!(session_id(&[b'a'; MAX_CLIENT_SESSION_ID_LEN]).is_some());
    }

    #[test]
    fn event_streams_yield_messages_and_keep_the_last_id_and_retry() {
        let mut storage = [0u8; 256];
        let mut decoder = SseDecoder::new(&mut storage);
        let input = b"id: s-0\nretry: 3000\ndata:\n\n: keep-alive\n\nevent: message\nid: s-1\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":1,\"result\":{}}\n\nevent: endpoint\ndata: /x\n\n";
        assert_eq!(decoder.push(input), input.len());
        let mut stream = EventStream::new();
        let mut messages = Vec::new();
        while let Some(event) = decoder.next_event() {
            if let Some(data) = stream.read(&event.unwrap()) {
                let mut line = data.to_vec();
                to_line(&mut line);
                messages.push(String::from_utf8(line).unwrap());
            }
        }
        assert_eq!(messages, [r#"{"jsonrpc":"2.0", "id":1,"result":{}}"#]);
        assert_eq!(stream.last_event_id(), Some(&b"s-1"[..]));
        assert_eq!(stream.retry_ms(), Some(3000));
        assert!(answers(&ParsedMessage::parse(messages[0].as_bytes(), 32), Id::Number(1)));
        // A reset and an id too long to keep both leave no id to resume from.
        let long = std::format!("id: {}\ndata: x\n\nid\ndata: y\n\n", "z".repeat(MAX_EVENT_ID_LEN + 1));
        assert_eq!(decoder.push(long.as_bytes()), long.len());
        let mut ids = Vec::new();
        while let Some(event) = decoder.next_event() {
            stream.read(&event.unwrap());
            ids.push(stream.last_event_id().map(<[u8]>::to_vec));
        }
        assert_eq!(ids, [None, None]);
    }
}
