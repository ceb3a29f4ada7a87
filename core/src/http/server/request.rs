//! Planning one HTTP request to the MCP endpoint: what its head allows ([`plan_head`]) and, for a
//! POST, which era serves its body and how the answer is framed ([`plan_post`]).

use super::origin::HostPolicy;
use super::sse::{SsePaths, query_session};
use super::status::Rejection;
use crate::endpoint::Framing;
use crate::frame::EventId;
use crate::http::header::{self, HeaderValueError, Headers, name};
use crate::http::media::{accepted, accepts, media_type_is};
use crate::http::session::SessionId;
use crate::http::standard::{StandardHeaders, standard_header_values};
use crate::json::{self, Kind, Value};
use crate::jsonrpc::{Id, Message, ParsedMessage, classify, code};
use crate::version::{Era, ProtocolVersion};

/// The path of the MCP endpoint unless configured otherwise.
pub const DEFAULT_PATH: &str = "/mcp";
/// The largest request body accepted unless configured otherwise (4 MiB).
pub const DEFAULT_MAX_BODY: usize = 4 << 20;
/// JSON nesting the planner reads a body with (the engine applies its own limit after).
const PLAN_DEPTH: usize = 64;

/// The request method, as far as the endpoint cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum HttpMethod {
    /// `GET`: a legacy session's standalone stream, or a resumption.
    Get,
    /// `POST`: one JSON-RPC message.
    Post,
    /// `DELETE`: ends a legacy session.
    Delete,
    /// Anything else.
    Other,
}

impl HttpMethod {
    /// The method for a request line's token.
    pub fn from_token(token: &[u8]) -> Self {
        match token {
            b"GET" => HttpMethod::Get,
            b"POST" => HttpMethod::Post,
            b"DELETE" => HttpMethod::Delete,
            _ => HttpMethod::Other,
        }
    }
}

/// What the endpoint accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy<'a> {
    /// The endpoint's path ([`DEFAULT_PATH`]); other paths get 404.
    pub path: &'a str,
    /// `Host`/`Origin` validation ([`HostPolicy::LOOPBACK`] for loopback binds).
    pub hosts: HostPolicy<'a>,
    /// Largest body accepted ([`DEFAULT_MAX_BODY`]); larger ones get 413.
    pub max_body: usize,
    /// The deprecated 2024-11-05 HTTP+SSE transport's two endpoints, if served (off by default).
    pub sse: Option<SsePaths<'a>>,
}

impl Default for Policy<'static> {
    fn default() -> Self {
        Policy { path: DEFAULT_PATH, hosts: HostPolicy::LOOPBACK, max_body: DEFAULT_MAX_BODY, sse: None }
    }
}

/// What a request's head allows, once [`plan_head`] accepted it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeadPlan {
    /// A POST: read the body (at most [`Policy::max_body`] bytes) and [`plan_post`] it. `session`
    /// is the `Mcp-Session-Id` it names, if any (look it up: unknown ones get
    /// [`Rejection::unknown_session`]).
    Post {
        /// The session named.
        session: Option<SessionId>,
    },
    /// A GET with a session: open its standalone stream, or resume the stream `last_event`
    /// names, replaying the events after it.
    OpenStream {
        /// The session.
        session: SessionId,
        /// `Last-Event-ID`, if given.
        last_event: Option<EventId>,
    },
    /// A DELETE: end the session.
    EndSession {
        /// The session.
        session: SessionId,
    },
    /// A GET of the HTTP+SSE stream (2024-11-05): open a session whose every message goes on this
    /// stream, and send the endpoint event ([`write_endpoint_event`](super::write_endpoint_event)) first.
    OpenSseSession,
    /// A POST to the HTTP+SSE message endpoint: read the body and serve it in `session`, whose
    /// answers go on its stream; the POST itself is answered 202.
    SseMessage {
        /// The session named by the `sessionId` query parameter.
        session: SessionId,
    },
}

/// The POST body checks every endpoint shares: media types and declared length.
fn check_post_head<H: Headers + ?Sized>(policy: &Policy<'_>, headers: &H) -> Result<(), Rejection<'static>> {
    let content_type = headers.get(name::CONTENT_TYPE).unwrap_or(b"");
    if !media_type_is(content_type, b"application/json") {
        return Err(Rejection::error(
            415,
            code::INVALID_REQUEST,
            "Unsupported Media Type: Content-Type must be application/json",
        ));
    }
    let accept = accepted(headers.get(name::ACCEPT));
    if !accept.json && !accept.sse {
        return Err(Rejection::error(
            406,
            code::INVALID_REQUEST,
            "Not Acceptable: Accept must allow application/json and text/event-stream",
        ));
    }
    match headers.get(name::CONTENT_LENGTH).map(|v| parse_length(header::trim_ows(v))) {
        Some(None) => Err(Rejection::error(400, code::INVALID_REQUEST, "Bad Request: bad Content-Length")),
        Some(Some(len)) if len > policy.max_body as u64 => Err(Rejection::too_large()),
        _ => Ok(()),
    }
}

/// Checks a request's head: path, DNS rebinding, method, media types, body framing, session id.
pub fn plan_head<H: Headers + ?Sized>(
    policy: &Policy<'_>,
    method: HttpMethod,
    path: &[u8],
    headers: &H,
) -> Result<HeadPlan, Rejection<'static>> {
    let target = path;
    let path = path.split(|&b| b == b'?').next().unwrap_or(&[]);
    let sse = policy.sse.filter(|p| path == p.stream.as_bytes() || path == p.messages.as_bytes());
    if path != policy.path.as_bytes() && sse.is_none() {
        return Err(Rejection::status(404, "Not Found"));
    }
    if !policy.hosts.allows(headers.get(name::HOST), headers.get(name::ORIGIN)) {
        return Err(Rejection::error(403, code::INVALID_REQUEST, "Forbidden: Host or Origin not allowed"));
    }
    if headers.get(name::TRANSFER_ENCODING).is_some() && headers.get(name::CONTENT_LENGTH).is_some() {
        return Err(Rejection::error(400, code::INVALID_REQUEST, "Bad Request: Content-Length with Transfer-Encoding"));
    }
    if let Some(sse) = sse {
        return if path == sse.stream.as_bytes() {
            match method {
                HttpMethod::Get if accepts(headers.get(name::ACCEPT), b"text/event-stream") => {
                    Ok(HeadPlan::OpenSseSession)
                }
                HttpMethod::Get => {
                    Err(Rejection::error(406, code::INVALID_REQUEST, "Not Acceptable: the stream is text/event-stream"))
                }
                _ => Err(Rejection::method_not_allowed()),
            }
        } else {
            if method != HttpMethod::Post {
                return Err(Rejection::method_not_allowed());
            }
            check_post_head(policy, headers)?;
            match query_session(target) {
                Some(session) => Ok(HeadPlan::SseMessage { session }),
                None => Err(Rejection::error(400, code::INVALID_REQUEST, "Bad Request: sessionId is required")),
            }
        };
    }
    let session = match headers.get(name::SESSION_ID) {
        None => None,
        // A malformed id names no session this server has.
        Some(value) => Some(SessionId::parse(value).ok_or_else(Rejection::unknown_session)?),
    };
    match method {
        HttpMethod::Post => {
            check_post_head(policy, headers)?;
            Ok(HeadPlan::Post { session })
        }
        HttpMethod::Get => {
            let Some(session) = session else {
                // 2026-07-28 has no GET stream, and a legacy client opens one only inside a session.
                return Err(Rejection::method_not_allowed());
            };
            if !accepts(headers.get(name::ACCEPT), b"text/event-stream") {
                return Err(Rejection::error(
                    406,
                    code::INVALID_REQUEST,
                    "Not Acceptable: GET needs text/event-stream",
                ));
            }
            let last_event = match headers.get(name::LAST_EVENT_ID) {
                None => None,
                Some(value) => Some(EventId::parse(header::trim_ows(value)).map_err(|_| {
                    Rejection::error(400, code::INVALID_REQUEST, "Bad Request: Last-Event-ID not issued by this server")
                })?),
            };
            Ok(HeadPlan::OpenStream { session, last_event })
        }
        HttpMethod::Delete => match session {
            Some(session) => Ok(HeadPlan::EndSession { session }),
            None => Err(Rejection::method_not_allowed()),
        },
        HttpMethod::Other => Err(Rejection::method_not_allowed()),
    }
}

/// Who serves a POST's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Serve {
    /// The stateless engine (2026-07-28, or a body no era claims: the engine answers its error).
    Stateless,
    /// A new legacy session: `initialize` without modern `_meta`.
    NewSession,
    /// The legacy session the request named.
    Session,
}

/// How to serve a POST body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PostPlan {
    /// Which engine.
    pub serve: Serve,
    /// How its answer is framed: [`Framing::Body`] (`application/json`) or [`Framing::Sse`].
    pub framing: Framing,
    /// The body is a request (answered), not a notification or response (202).
    pub is_request: bool,
    /// The client's `Accept` allows `application/json` (no `Accept`: everything is): an answer
    /// planned as [`Framing::Sse`] that turns out to be all there is may go as a JSON body
    /// instead (the HTTP adapter's `legacy_json_answers`).
    pub json_accepted: bool,
}

/// Routes a POST body by era and checks the headers the era requires. `session` says whether the
/// request named a session that exists.
///
/// Legacy: a session, or `initialize` without modern `_meta`; without a session any other body is
/// refused with 400. Modern (`_meta` with `io.modelcontextprotocol/…` fields, or an
/// `MCP-Protocol-Version` that is not a legacy version), in this order: the version header must be
/// present (-32020); `_meta` must hold `protocolVersion` and `clientCapabilities` (-32602); the
/// version header, `Mcp-Method` and `Mcp-Name` must match the body (-32020). All with 400.
pub fn plan_post<'b, H: Headers + ?Sized>(
    headers: &H,
    body: &'b [u8],
    session: bool,
) -> Result<PostPlan, Rejection<'b>> {
    plan_post_parsed(headers, &ParsedMessage::parse(body, PLAN_DEPTH), session)
}

/// [`plan_post`] of a body validated already, so that the engine serving it
/// ([`Engine::handle_parsed`](crate::server::Engine::handle_parsed)) need not validate it again:
/// validate it with the engine's depth limit ([`Limits::max_depth`](crate::server::Limits::max_depth));
/// the plan is the same whatever the limit (with another limit than [`plan_post`]'s, 64, the body
/// is validated again here).
pub fn plan_post_parsed<'b, H: Headers + ?Sized>(
    headers: &H,
    body: &ParsedMessage<'b>,
    session: bool,
) -> Result<PostPlan, Rejection<'b>> {
    if body.max_depth() != PLAN_DEPTH {
        return plan_post_parsed(headers, &ParsedMessage::parse(body.bytes(), PLAN_DEPTH), session);
    }
    let accept = accepted(headers.get(name::ACCEPT));
    let version_header = headers.get(name::PROTOCOL_VERSION).map(header::trim_ows);
    // Matched as bytes: a value that equals a version's name is UTF-8 (no check of its own needed).
    let header_version =
        version_header.and_then(|v| ProtocolVersion::ALL.into_iter().find(|known| known.as_str().as_bytes() == v));
    // Walked by reading the validator's record of its shallow members (see `json::Spans`).
    let Ok(value) = body.value() else {
        // Unparsable: the engine answers it (-32700 / -32600).
        let serve = if session { Serve::Session } else { Serve::Stateless };
        return Ok(PostPlan { serve, framing: Framing::Body, is_request: true, json_accepted: accept.json });
    };
    let spans = body.spans();
    let message = body.message().and_then(Result::ok);
    let (id, method, params) = match message {
        Some(Message::Request { id, method, params }) => (Some(id), Some(method), params),
        Some(Message::Notification { method, params }) => (None, Some(method), params),
        _ => (None, None, None),
    };
    let is_request = id.is_some() || message.is_none();
    // The method is compared several times: whether it has an escape is looked up once.
    let plain = method.is_some_and(|m| !m.has_escape());
    // What the engine reads of `params` and `_meta` was found once, when the body was validated.
    let picked = body.picked();
    let meta = match picked {
        Some(p) => p.params.get("_meta"),
        None => params.and_then(|p| {
            let [meta] = p.members_spanned(spans).find_all(["_meta"]);
            meta
        }),
    };
    let meta = meta.filter(|m| m.kind() == Kind::Object);
    let modern_meta =
        meta.is_some_and(|m| m.members_spanned(spans).any(|(k, _)| k.raw().starts_with(b"io.modelcontextprotocol/")));
    let modern_header = version_header.is_some() && header_version.is_none_or(|v| v.era() == Era::Modern);
    let legacy_framing = if is_request && accept.sse { Framing::Sse } else { Framing::Body };

    if session && !modern_meta {
        if version_header.is_some() && header_version.is_none_or(|v| v.era() != Era::Legacy) {
            return Err(Rejection::with_id(
                400,
                code::INVALID_REQUEST,
                "Bad Request: unsupported MCP-Protocol-Version",
                id,
            ));
        }
        return Ok(PostPlan { serve: Serve::Session, framing: legacy_framing, is_request, json_accepted: accept.json });
    }
    if !modern_meta && !modern_header {
        if value.kind() == Kind::Array {
            return Err(Rejection::error(400, code::INVALID_REQUEST, "Bad Request: batches need a session"));
        }
        if method.is_some_and(|m| m.is(plain, "initialize")) && id.is_some() {
            return Ok(PostPlan {
                serve: Serve::NewSession,
                framing: legacy_framing,
                is_request,
                json_accepted: accept.json,
            });
        }
        return Err(Rejection::with_id(
            400,
            code::INVALID_REQUEST,
            "Bad Request: Mcp-Session-Id header is required",
            id,
        ));
    }
    // Modern.
    if version_header.is_none() {
        return Err(Rejection::with_id(
            400,
            code::HEADER_MISMATCH,
            "Header mismatch: MCP-Protocol-Version is required",
            id,
        ));
    }
    // What the body says the standard headers must say: the values a client writes them with.
    let expected = standard_header_values(body);
    let [meta_capabilities, progress_token, log_level] = match picked {
        Some(p) => [p.meta.client_capabilities, p.meta.progress_token, p.meta.log_level],
        None => meta.map_or([None; 3], |m| {
            m.members_spanned(spans).find_all([
                "io.modelcontextprotocol/clientCapabilities",
                "progressToken",
                "io.modelcontextprotocol/logLevel",
            ])
        }),
    };
    if is_request
        && (expected.protocol_version.is_none_or(|v| v.kind() != Kind::String)
            || meta_capabilities.is_none_or(|c| c.kind() != Kind::Object))
    {
        return Err(Rejection::with_id(
            400,
            code::INVALID_PARAMS,
            "Invalid params: _meta must hold io.modelcontextprotocol/protocolVersion and clientCapabilities",
            id,
        ));
    }
    check_standard_headers(headers, &expected, plain, id)?;
    let streams =
        progress_token.is_some() || log_level.is_some() || method.is_some_and(|m| m.is(plain, "subscriptions/listen"));
    let framing = if accept.sse && (streams || !accept.json) { Framing::Sse } else { Framing::Body };
    Ok(PostPlan { serve: Serve::Stateless, framing, is_request, json_accepted: accept.json })
}

const BAD_VALUE: &str = "Header mismatch: invalid header value";

/// Checks the 2026-07-28 standard headers a request sent against what its body says they must say
/// (`expected`; `plain`: its method has no escape): each one the body gives a value must be there
/// once, decode, and match it (-32020 otherwise). A `tools/call`, `prompts/get` or
/// `resources/read` without its parameter has no `Mcp-Name` to check: the engine answers the
/// missing parameter.
fn check_standard_headers<'b, H: Headers + ?Sized>(
    headers: &H,
    expected: &StandardHeaders<'b>,
    plain: bool,
    id: Option<Id<'b>>,
) -> Result<(), Rejection<'b>> {
    let mismatch = |what| Rejection::with_id(400, code::HEADER_MISMATCH, what, id);
    if let Some(version) = expected.protocol_version
        && !header_matches(headers, name::PROTOCOL_VERSION, version).map_err(|_| mismatch(BAD_VALUE))?
    {
        return Err(mismatch("Header mismatch: MCP-Protocol-Version differs from _meta"));
    }
    if let Some(method) = expected.method {
        let mut scratch = None;
        let got = header_text(headers, name::METHOD, &mut scratch).map_err(|_| mismatch(BAD_VALUE))?;
        if !got.is_some_and(|got| if plain { method.raw() == got } else { method.eq_bytes(got) }) {
            return Err(mismatch("Header mismatch: Mcp-Method differs from the body's method"));
        }
        if let Some(named) = expected.name
            && !header_matches(headers, name::NAME, named).map_err(|_| mismatch(BAD_VALUE))?
        {
            return Err(mismatch("Header mismatch: Mcp-Name differs from the body"));
        }
    }
    Ok(())
}

/// The decoded text of header `name`, as bytes (`None` if absent; a repeated header is an error).
pub(super) fn header_text<'o, H: Headers + ?Sized>(
    headers: &'o H,
    name: &str,
    scratch: &'o mut header::Scratch,
) -> Result<Option<&'o [u8]>, HeaderValueError> {
    match headers.get_unique(name) {
        Ok(value) => value.map(|v| header::decode_bytes(v, scratch)).transpose(),
        Err(_) => Err(HeaderValueError::InvalidCharacter),
    }
}

fn header_matches<H: Headers + ?Sized>(headers: &H, name: &str, value: Value<'_>) -> Result<bool, HeaderValueError> {
    let mut scratch = None;
    Ok(header_text(headers, name, &mut scratch)?.is_some_and(|text| header::matches_bytes(text, value)))
}

fn parse_length(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(digits.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')))
}

/// The id of a request body, for answering a refusal of it.
pub fn request_id(body: &[u8]) -> Option<Id<'_>> {
    let value = json::parse(body, PLAN_DEPTH).ok()?;
    match classify(value).ok()? {
        Message::Request { id, .. } => Some(id),
        _ => None,
    }
}
