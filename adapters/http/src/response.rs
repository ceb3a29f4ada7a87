//! Building responses: refusals, SSE heads, challenges, priming events; and reading hyper heads.

use std::collections::VecDeque;

use bytes::Bytes;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Response, StatusCode};
use mcp_sansio::frame::{EventId, sse};
use mcp_sansio::http::{self as rules, HttpMethod, Rejection, SessionId};

use crate::body::ResponseBody;

/// hyper's `HeaderMap` as the core reads headers.
pub(crate) struct HeaderView<'a> {
    map: &'a HeaderMap,
    /// The fields, names in lower case as `HeaderMap` keeps them, in its order (so the first of a
    /// name is `HeaderMap::get`'s); `None` for a head of more than [`SCANNED_FIELDS`].
    fields: Option<([Field<'a>; SCANNED_FIELDS], usize)>,
}

/// A field of a head: its name in lower case and its value.
type Field<'a> = (&'a str, &'a [u8]);

/// Heads with at most this many fields are listed once and searched field by field: the core asks
/// for a dozen names per request, and comparing a few short names costs less than `HeaderMap`'s
/// lookup by `&str` (which parses and hashes the name each time). Larger heads are looked up.
const SCANNED_FIELDS: usize = 16;

impl<'a> HeaderView<'a> {
    pub(crate) fn new(map: &'a HeaderMap) -> Self {
        if map.len() > SCANNED_FIELDS {
            return HeaderView { map, fields: None };
        }
        let mut fields = [("", &b""[..]); SCANNED_FIELDS];
        let mut len = 0;
        for ((name, value), slot) in map.iter().zip(&mut fields) {
            *slot = (name.as_str(), value.as_bytes());
            len += 1;
        }
        HeaderView { map, fields: Some((fields, len)) }
    }

    fn listed(&self) -> Option<&[Field<'a>]> {
        self.fields.as_ref().map(|(fields, len)| &fields[..*len])
    }
}

impl rules::Headers for HeaderView<'_> {
    fn get(&self, name: &str) -> Option<&[u8]> {
        debug_assert!(!name.bytes().any(|b| b.is_ascii_uppercase()), "header name {name:?} not in lower case");
        match self.listed() {
            // `name` is given in lower case (the trait's contract), as the names listed are.
            Some(fields) => fields.iter().find(|(field, _)| *field == name).map(|(_, value)| *value),
            None => self.map.get(name).map(HeaderValue::as_bytes),
        }
    }
    fn count(&self, name: &str) -> usize {
        debug_assert!(!name.bytes().any(|b| b.is_ascii_uppercase()), "header name {name:?} not in lower case");
        match self.listed() {
            Some(fields) => fields.iter().filter(|(field, _)| *field == name).count(),
            None => self.map.get_all(name).iter().count(),
        }
    }
}

pub(crate) fn method_of(method: &hyper::Method) -> HttpMethod {
    HttpMethod::from_token(method.as_str().as_bytes())
}

pub(crate) fn rejection_response(rejection: &Rejection<'_>) -> Response<ResponseBody> {
    let mut body = vec![0u8; 256 + rejection.message.len() + mcp_sansio::jsonrpc::MAX_ID_LEN * 6];
    let len = rejection.write_body(&mut body);
    body.truncate(len);
    let status = StatusCode::from_u16(rejection.status).unwrap_or(StatusCode::BAD_REQUEST);
    let mut response = Response::new(ResponseBody::full(Bytes::from(body)));
    *response.status_mut() = status;
    if len > 0 {
        response.headers_mut().insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    if status == StatusCode::METHOD_NOT_ALLOWED {
        response.headers_mut().insert(hyper::header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
    }
    response
}

/// The `x-accel-buffering` header (a name of its own, so inserting it copies nothing).
const X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");
/// The `mcp-session-id` header.
const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// An SSE response: `first` (if any), then `rest`, then what `rx` brings.
pub(crate) fn sse_response(
    status: u16,
    first: Option<Bytes>,
    rest: VecDeque<Bytes>,
    rx: Option<tokio::sync::mpsc::Receiver<Bytes>>,
    keep_alive: Option<std::time::Duration>,
) -> Response<ResponseBody> {
    let keep_alive = keep_alive.map(|period| {
        let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        interval
    });
    let mut response = Response::new(ResponseBody::stream(first, rest, rx, keep_alive));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    let headers = response.headers_mut();
    headers.insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(hyper::header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    response
}

/// Checks the bearer token; the 401 or 403 with its challenge if it is refused.
pub(crate) fn authorize(
    auth: &crate::config::BearerAuth,
    headers: &HeaderMap,
) -> Result<(), Box<Response<ResponseBody>>> {
    let verdict = match rules::bearer_token(&HeaderView::new(headers)) {
        None => Err(crate::config::TokenRejection::Invalid),
        Some(token) => (auth.validate)(token),
    };
    let (status, scope) = match &verdict {
        Ok(()) => return Ok(()),
        Err(crate::config::TokenRejection::InsufficientScope(scope)) => (StatusCode::FORBIDDEN, Some(scope.as_str())),
        Err(_) => (StatusCode::UNAUTHORIZED, None),
    };
    let mut challenge = vec![0u8; auth.resource_metadata_url.len() + scope.map_or(0, str::len) + 96];
    let mut response = status_only(status);
    match rules::write_challenge(&auth.resource_metadata_url, scope, &mut challenge).map(HeaderValue::from_str) {
        Some(Ok(value)) => {
            response.headers_mut().insert(hyper::header::WWW_AUTHENTICATE, value);
        }
        _ => tracing::warn!("the WWW-Authenticate challenge could not be written"),
    }
    tracing::debug!(status = status.as_u16(), "request not authorized");
    Err(Box::new(response))
}

pub(crate) fn status_only(status: StatusCode) -> Response<ResponseBody> {
    let mut response = Response::new(ResponseBody::empty());
    *response.status_mut() = status;
    response
}

pub(crate) fn set_session_header(response: &mut Response<ResponseBody>, session: SessionId) {
    if let Ok(value) = HeaderValue::from_str(session.as_str()) {
        response.headers_mut().insert(MCP_SESSION_ID, value);
    }
}

/// A priming event (2025-11-25): an id naming the stream before anything was sent on it, so a
/// client can resume it even if the first message never arrives, and the reconnection delay.
pub(crate) fn priming(stream: u32, retry_ms: Option<u64>) -> Option<Bytes> {
    let mut out = [0u8; 96];
    let len = sse::write_priming(EventId::new(stream, 0), retry_ms, &mut out).ok()?;
    Some(Bytes::copy_from_slice(out.get(..len)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_sansio::http::Headers;

    #[test]
    fn scanned_and_looked_up_heads_read_alike() {
        for padding in [0, SCANNED_FIELDS] {
            let mut map = HeaderMap::new();
            map.append("accept", HeaderValue::from_static("application/json"));
            map.append("mcp-method", HeaderValue::from_static("tools/call"));
            map.append("Accept", HeaderValue::from_static("text/event-stream"));
            for i in 0..padding {
                map.append(
                    hyper::header::HeaderName::try_from(format!("x-pad-{i}")).unwrap(),
                    HeaderValue::from_static("1"),
                );
            }
            let view = HeaderView::new(&map);
            assert_eq!(view.get("accept"), Some(&b"application/json"[..]), "{padding}");
            assert_eq!(view.count("accept"), 2);
            assert_eq!(view.get("mcp-method"), Some(&b"tools/call"[..]));
            assert_eq!(view.count("mcp-method"), 1);
            assert_eq!((view.get("origin"), view.count("origin")), (None, 0));
        }
    }
}
