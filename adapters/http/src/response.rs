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
    /// The fields the core's rules read, found in one pass over the map: each of the dozen lookups
    /// of a request is then a comparison, not a search (`HeaderMap`'s lookup by `&str` parses and
    /// hashes the name each time). Other names (`Mcp-Param-*`) are looked up in the map.
    index: rules::HeaderIndex<'a>,
}

impl<'a> HeaderView<'a> {
    pub(crate) fn new(map: &'a HeaderMap) -> Self {
        let mut index = rules::HeaderIndex::new();
        for (name, value) in map {
            index.insert(name.as_str().as_bytes(), value.as_bytes());
        }
        HeaderView { map, index }
    }
}

impl rules::Headers for HeaderView<'_> {
    #[inline]
    fn get(&self, name: &str) -> Option<&[u8]> {
        debug_assert!(!name.bytes().any(|b| b.is_ascii_uppercase()), "header name {name:?} not in lower case");
        match self.index.lookup(name) {
            Some((value, _)) => value,
            None => self.map.get(name).map(HeaderValue::as_bytes),
        }
    }
    #[inline]
    fn count(&self, name: &str) -> usize {
        debug_assert!(!name.bytes().any(|b| b.is_ascii_uppercase()), "header name {name:?} not in lower case");
        match self.index.lookup(name) {
            Some((_, count)) => count,
            None => self.map.get_all(name).iter().count(),
        }
    }
    #[inline]
    fn get_unique(&self, name: &str) -> Result<Option<&[u8]>, usize> {
        match self.index.lookup(name) {
            Some((_, count)) if count > 1 => Err(count),
            Some((value, _)) => Ok(value),
            None => match self.count(name) {
                n if n > 1 => Err(n),
                _ => Ok(self.get(name)),
            },
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
    if status == StatusCode::SERVICE_UNAVAILABLE {
        // Every 503 of the endpoint (a full session table, an unavailable session store) passes.
        response.headers_mut().insert(hyper::header::RETRY_AFTER, HeaderValue::from_static("1"));
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
    sse_response_in(HeaderMap::new(), status, first, rest, rx, keep_alive)
}

/// [`sse_response`] with its head written in `headers` (cleared): a POST's request map, which
/// then needs no allocation (see `json_answer`).
pub(crate) fn sse_response_in(
    mut headers: HeaderMap,
    status: u16,
    first: Option<Bytes>,
    rest: VecDeque<Bytes>,
    rx: Option<tokio::sync::mpsc::Receiver<Bytes>>,
    keep_alive: Option<std::time::Duration>,
) -> Response<ResponseBody> {
    headers.clear();
    let keep_alive = keep_alive.map(|period| {
        let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        interval
    });
    let mut response = Response::new(ResponseBody::stream(first, rest, rx, keep_alive));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    headers.insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(hyper::header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(X_ACCEL_BUFFERING, HeaderValue::from_static("no"));
    *response.headers_mut() = headers;
    response
}

/// Checks the access token of a `method` request to `path`: the request's authorization context
/// (see [`TokenGrant::owner`]) and its DPoP proof if it has one, or the 401 or 403 with its
/// challenge if it is refused ([`refused`]). A bearer token must not be bound to a key; a DPoP one
/// (RFC 9449 §7.1) must be, to the key of the request's valid proof ([`BearerAuth::verify_proof`]).
///
/// [`TokenGrant::owner`]: crate::config::TokenGrant
/// [`BearerAuth::verify_proof`]: crate::config::BearerAuth
pub(crate) fn authorize(
    auth: &crate::config::BearerAuth,
    method: &str,
    path: &str,
    headers: &HeaderMap,
) -> Result<(u64, Option<crate::config::VerifiedProof>), Box<Response<ResponseBody>>> {
    use crate::config::{ProofRequest, TokenRejection};
    use mcp_sansio::http::TokenScheme;
    let view = HeaderView::new(headers);
    let presented = rules::access_token(&view);
    let verdict = match presented {
        None => Err(None),
        Some((scheme, token)) => (auth.validate)(token).map_err(Some).and_then(|grant| {
            let bound = match (scheme, &auth.verify_proof) {
                (TokenScheme::Bearer, _) => None,
                (TokenScheme::Dpop, None) => return Err(Some(TokenRejection::Invalid)),
                (TokenScheme::Dpop, Some(verify)) => {
                    let proof = rules::dpop_proof(&view).ok_or(Some(TokenRejection::Invalid))?;
                    let request = ProofRequest { proof, method, path, access_token: token };
                    Some(verify(&request).map_err(Some)?)
                }
            };
            // RFC 9449 §7.1 and §7.2: a bound token only with a proof by its key; a proof only
            // for a bound token.
            match bound.as_ref().map(|proof| &proof.jkt) == grant.dpop_jkt.as_ref() {
                true => Ok((grant.owner(token), bound)),
                false => Err(Some(TokenRejection::Invalid)),
            }
        }),
    };
    verdict.map_err(|rejection| refused(auth, rejection))
}

/// The 401 or 403 refusing a request's token (`None`: none presented), with its challenges.
pub(crate) fn refused(
    auth: &crate::config::BearerAuth,
    rejection: Option<crate::config::TokenRejection>,
) -> Box<Response<ResponseBody>> {
    use crate::config::TokenRejection;
    let status = match rejection {
        Some(TokenRejection::InsufficientScope(_)) => StatusCode::FORBIDDEN,
        _ => StatusCode::UNAUTHORIZED,
    };
    let mut response = status_only(status);
    match challenge(auth, rejection.as_ref()).map(HeaderValue::try_from) {
        Some(Ok(value)) => {
            response.headers_mut().insert(hyper::header::WWW_AUTHENTICATE, value);
        }
        _ => tracing::warn!("the WWW-Authenticate challenge could not be written"),
    }
    let quotable = !auth.resource_metadata_url.contains(['"', '\\']);
    if auth.verify_proof.is_some() && status == StatusCode::UNAUTHORIZED && quotable {
        // Either scheme may be used: a `DPoP` challenge too (RFC 9449 §7.1), with the same error.
        let error = if rejection.is_some() { r#" error="invalid_token","# } else { "" };
        let dpop = format!("DPoP{error} resource_metadata=\"{}\"", auth.resource_metadata_url);
        if let Ok(value) = HeaderValue::try_from(dpop) {
            response.headers_mut().append(hyper::header::WWW_AUTHENTICATE, value);
        }
    }
    tracing::debug!(status = status.as_u16(), "request not authorized");
    Box::new(response)
}

/// The `WWW-Authenticate` value for a refused request (RFC 6750 §3, RFC 9728 §5.1): `error` when
/// a token was presented (`invalid_token`, or `insufficient_scope` on a 403), `scope` (the
/// scopes the 403 names; on a 401, the metadata document's `scopes_supported`, which MCP
/// clients request), and `resource_metadata`. `None` if a value would hold `"`, `\` or a line
/// break.
fn challenge(auth: &crate::config::BearerAuth, rejection: Option<&crate::config::TokenRejection>) -> Option<String> {
    use crate::config::TokenRejection;
    let (error, scope) = match rejection {
        None => (None, scopes_supported(&auth.resource_metadata)),
        Some(TokenRejection::InsufficientScope(scope)) => (Some("insufficient_scope"), Some(scope.clone())),
        Some(_) => (Some("invalid_token"), scopes_supported(&auth.resource_metadata)),
    };
    let safe = |s: &str| !s.bytes().any(|b| matches!(b, b'"' | b'\\' | b'\r' | b'\n'));
    let scope = scope.filter(|s| !s.is_empty());
    if !safe(&auth.resource_metadata_url) || !scope.as_deref().is_none_or(safe) {
        return None;
    }
    // A 403 names the scope before the metadata (the order the core's challenges use); a 401 after.
    let forbidden = matches!(rejection, Some(TokenRejection::InsufficientScope(_)));
    let mut params = Vec::with_capacity(3);
    params.extend(error.map(|error| format!("error=\"{error}\"")));
    let scope = scope.map(|scope| format!("scope=\"{scope}\""));
    if forbidden {
        params.extend(scope.clone());
    }
    params.push(format!("resource_metadata=\"{}\"", auth.resource_metadata_url));
    if !forbidden {
        params.extend(scope);
    }
    Some(format!("Bearer {}", params.join(", ")))
}

/// The `scopes_supported` of a metadata document, space-separated (`None` if it has none).
fn scopes_supported(document: &str) -> Option<String> {
    let document = mcp_sansio::json::parse(document.as_bytes(), 8).ok()?;
    let scopes: Vec<&str> =
        document.get("scopes_supported")?.elements().filter_map(|scope| scope.as_str()?.as_plain()).collect();
    (!scopes.is_empty()).then(|| scopes.join(" "))
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
        // Heads of a few fields and of more than the 16 the view once listed.
        for padding in [0, 17] {
            let mut map = HeaderMap::new();
            map.append("accept", HeaderValue::from_static("application/json"));
            map.append("mcp-method", HeaderValue::from_static("tools/call"));
            map.append("Accept", HeaderValue::from_static("text/event-stream"));
            map.append("mcp-param-region", HeaderValue::from_static("eu"));
            for i in 0..padding {
                map.append(
                    hyper::header::HeaderName::try_from(format!("x-pad-{i}")).unwrap(),
                    HeaderValue::from_static("1"),
                );
            }
            let view = HeaderView::new(&map);
            assert_eq!(view.get("accept"), Some(&b"application/json"[..]), "{padding}");
            assert_eq!(view.count("accept"), 2);
            assert_eq!(
                (view.get_unique("accept"), view.get_unique("mcp-method")),
                (Err(2), Ok(Some(&b"tools/call"[..])))
            );
            assert_eq!(
                (view.get_unique("origin"), view.get_unique("mcp-param-region")),
                (Ok(None), Ok(Some(&b"eu"[..])))
            );
            assert_eq!(view.get("mcp-method"), Some(&b"tools/call"[..]));
            assert_eq!(view.count("mcp-method"), 1);
            assert_eq!((view.get("origin"), view.count("origin")), (None, 0));
            // Names the core's index does not hold are looked up in the map.
            assert_eq!((view.get("mcp-param-region"), view.count("mcp-param-region")), (Some(&b"eu"[..]), 1));
            assert_eq!((view.get("mcp-param-n"), view.count("mcp-param-n")), (None, 0));
        }
    }
}
