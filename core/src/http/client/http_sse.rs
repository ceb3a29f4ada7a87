//! The client's side of the deprecated 2024-11-05 HTTP+SSE transport, as the fallback of
//! Streamable HTTP's backwards compatibility (2025-03-26 and later, "Backwards Compatibility"):
//!
//! 1. The client POSTs `initialize` to the URL it was given. A 4xx answer without a JSON-RPC
//!    answer ([`falls_back_to_http_sse`]) may be a 2024-11-05 server.
//! 2. It then `GET`s the same URL ([`HTTP_SSE_ACCEPT`]); the server opens an SSE stream whose first
//!    event is `endpoint` ([`endpoint_event`]), naming the URI to POST messages to.
//! 3. From then on every message is POSTed to that URI ([`resolve_endpoint`]: on the same origin;
//!    each is answered 202), and every message of the server (answers, notifications, requests)
//!    comes on the stream. There is no session header, no standalone stream and no `DELETE`: the
//!    stream is the session, and closing it ends the session.

use crate::frame::ReceivedEvent;

/// The `Accept` of the `GET` that opens an HTTP+SSE stream.
pub const HTTP_SSE_ACCEPT: &str = "text/event-stream";
/// Longest endpoint URI [`resolve_endpoint`] takes.
pub const MAX_ENDPOINT_LEN: usize = 2048;

/// Whether the answer `status` to a POSTed `initialize` (one whose body did not answer it) sends the
/// client to the 2024-11-05 HTTP+SSE transport: any 4xx (a server of that transport has no POST
/// on its stream's URL: 404 or 405, or 400 for a POST without its session).
pub fn falls_back_to_http_sse(status: u16) -> bool {
    (400..500).contains(&status)
}

/// The URI an HTTP+SSE stream's `endpoint` event names, if `event` is one (`event: endpoint` with
/// data); the first event of such a stream.
pub fn endpoint_event<'e>(event: &ReceivedEvent<'e>) -> Option<&'e [u8]> {
    (event.event_type() == b"endpoint" && event.is_message()).then(|| event.data())
}

/// Why an `endpoint` event's URI cannot be POSTed to ([`resolve_endpoint`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EndpointError {
    /// Not visible ASCII, empty, or longer than [`MAX_ENDPOINT_LEN`] or the output buffer.
    Invalid,
    /// An absolute URI on another scheme, host or port than the stream's: never followed (a
    /// server must not send the client's messages elsewhere).
    OtherOrigin,
}

impl core::fmt::Display for EndpointError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            EndpointError::Invalid => "the endpoint event's URI is not a usable URI",
            EndpointError::OtherOrigin => "the endpoint event names another origin than the stream's",
        })
    }
}

impl core::error::Error for EndpointError {}

/// Resolves the URI of an `endpoint` event against the stream's URL (`scheme`, `authority` and
/// `path`, its path and query) into `out`: the path and query to POST to, on the stream's origin.
/// Takes an absolute URI of the same origin (scheme and authority compared without case), a
/// network-path reference (`//authority/…`), an absolute path (`/messages?sessionId=…`, what the
/// SDKs send), a query (`?sessionId=…`) or a relative path (resolved against the stream path's
/// directory; dot segments are left to the server). The fragment is dropped. Returns the length
/// written.
pub fn resolve_endpoint(
    scheme: &str,
    authority: &str,
    path: &str,
    uri: &[u8],
    out: &mut [u8],
) -> Result<usize, EndpointError> {
    let uri = crate::http::trim_ows(uri);
    let uri = uri.split(|&b| b == b'#').next().unwrap_or_default();
    if uri.is_empty() || uri.len() > MAX_ENDPOINT_LEN || !uri.iter().all(|b| (0x21..=0x7e).contains(b)) {
        return Err(EndpointError::Invalid);
    }
    let same = |a: &[u8], b: &str| a.eq_ignore_ascii_case(b.as_bytes());
    // An absolute URI: its scheme, then the network-path reference after it.
    let rest = match find(uri, b"://").filter(|&at| is_scheme(&uri[..at])) {
        Some(at) if !same(&uri[..at], scheme) => return Err(EndpointError::OtherOrigin),
        Some(at) => &uri[at + 1..],
        None => uri,
    };
    if let Some(network) = rest.strip_prefix(b"//") {
        let end = network.iter().position(|&b| b == b'/' || b == b'?').unwrap_or(network.len());
        if !same(&network[..end], authority) {
            return Err(EndpointError::OtherOrigin);
        }
        let path = &network[end..];
        let root: &[u8] = if path.first().is_none_or(|&b| b == b'?') { b"/" } else { b"" };
        return write(out, &[root, path]);
    }
    let base = path.split('?').next().unwrap_or_default().as_bytes();
    match rest.first() {
        Some(b'/') => write(out, &[rest]),
        Some(b'?') => write(out, &[if base.is_empty() { b"/" } else { base }, rest]),
        _ => {
            let directory = base.iter().rposition(|&b| b == b'/').map_or(&b"/"[..], |at| &base[..=at]);
            write(out, &[directory, rest])
        }
    }
}

/// RFC 3986 `scheme`: a letter, then letters, digits, `+`, `-` and `.`.
fn is_scheme(s: &[u8]) -> bool {
    s.first().is_some_and(u8::is_ascii_alphabetic)
        && s.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn write(out: &mut [u8], parts: &[&[u8]]) -> Result<usize, EndpointError> {
    let mut len = 0;
    for part in parts {
        let end = len + part.len();
        out.get_mut(len..end).ok_or(EndpointError::Invalid)?.copy_from_slice(part);
        len = end;
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::SseDecoder;

    fn resolve(path: &str, uri: &str) -> Result<std::string::String, EndpointError> {
        let mut out = [0u8; 256];
        let len = resolve_endpoint("http", "127.0.0.1:8080", path, uri.as_bytes(), &mut out)?;
        Ok(std::string::String::from_utf8(out[..len].to_vec()).unwrap())
    }

    #[test]
    fn endpoints_resolve_on_the_streams_origin() {
        let ok = |path: &str, uri: &str, want: &str| assert_eq!(resolve(path, uri).as_deref(), Ok(want), "{uri}");
        ok("/sse", "/messages?sessionId=abc", "/messages?sessionId=abc");
        ok("/sse", " /messages?sessionId=abc#x ", "/messages?sessionId=abc");
        ok("/mcp/sse", "messages?sessionId=1", "/mcp/messages?sessionId=1");
        ok("/sse?token=t", "?sessionId=1", "/sse?sessionId=1");
        ok("/", "m", "/m");
        ok("/sse", "http://127.0.0.1:8080/messages?sessionId=1", "/messages?sessionId=1");
        ok("/sse", "HTTP://127.0.0.1:8080", "/");
        ok("/sse", "//127.0.0.1:8080/m", "/m");
        let err = |uri: &str, want: EndpointError| assert_eq!(resolve("/sse", uri), Err(want), "{uri}");
        err("http://evil.example/messages", EndpointError::OtherOrigin);
        err("https://127.0.0.1:8080/messages", EndpointError::OtherOrigin);
        err("//127.0.0.1:9/m", EndpointError::OtherOrigin);
        err("", EndpointError::Invalid);
        err("/a b", EndpointError::Invalid);
        err("/é", EndpointError::Invalid);
        let mut small = [0u8; 4];
        assert_eq!(resolve_endpoint("http", "h", "/", b"/messages", &mut small), Err(EndpointError::Invalid));
    }

    #[test]
    fn an_endpoint_of_max_endpoint_len_bytes_is_taken_and_a_longer_one_refused() {
        let mut out = [0u8; MAX_ENDPOINT_LEN + 8];
        let uri = |len: usize| std::format!("/m?{}", "s".repeat(len - 3));
        let at = uri(MAX_ENDPOINT_LEN);
        assert_eq!(resolve_endpoint("http", "h", "/sse", at.as_bytes(), &mut out), Ok(MAX_ENDPOINT_LEN));
        assert_eq!(&out[..MAX_ENDPOINT_LEN], at.as_bytes());
        let over = uri(MAX_ENDPOINT_LEN + 1);
        assert_eq!(resolve_endpoint("http", "h", "/sse", over.as_bytes(), &mut out), Err(EndpointError::Invalid));
    }

    #[test]
    fn the_endpoint_event_is_read_from_the_stream() {
        let mut decoder = SseDecoder::new(std::vec![0u8; 512].leak());
        let stream = b"event: endpoint\ndata: /messages?sessionId=9\n\nevent: message\ndata: {}\n\n";
        assert_eq!(decoder.push(stream), stream.len());
        let first = decoder.next_event().unwrap().unwrap();
        assert_eq!(endpoint_event(&first), Some(&b"/messages?sessionId=9"[..]));
        let second = decoder.next_event().unwrap().unwrap();
        assert_eq!(endpoint_event(&second), None);
        assert!(falls_back_to_http_sse(404) && falls_back_to_http_sse(405) && falls_back_to_http_sse(400));
        assert!(!falls_back_to_http_sse(500) && !falls_back_to_http_sse(200));
    }
}
