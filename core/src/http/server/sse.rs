//! The deprecated HTTP+SSE transport (2024-11-05), when a server still serves it: its two paths, and
//! the endpoint event that opens its stream.

use crate::http::session::SessionId;

/// The paths of the deprecated HTTP+SSE transport (2024-11-05): a GET stream whose first event
/// names the endpoint to POST messages to, with the session in the query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SsePaths<'a> {
    /// The stream (`/sse`).
    pub stream: &'a str,
    /// Where messages are POSTed (`/messages`), as `<messages>?sessionId=<id>`.
    pub messages: &'a str,
}

impl SsePaths<'static> {
    /// `/sse` and `/messages`, as the 2024-11-05 SDKs serve them.
    pub const DEFAULT: SsePaths<'static> = SsePaths { stream: "/sse", messages: "/messages" };
}

/// Writes the first event of an HTTP+SSE stream: `event: endpoint`, the URI to POST to. Returns its
/// length, or `None` if `out` is too small (it takes `messages.len() + 67` bytes) or `messages` holds a
/// line break.
pub fn write_endpoint_event(messages: &str, session: SessionId, out: &mut [u8]) -> Option<usize> {
    let parts: [&[u8]; 5] =
        [b"event: endpoint\ndata: ", messages.as_bytes(), b"?sessionId=", session.as_str().as_bytes(), b"\n\n"];
    if messages.bytes().any(|b| b == b'\n' || b == b'\r') {
        return None;
    }
    let mut len = 0;
    for part in parts {
        out.get_mut(len..len + part.len())?.copy_from_slice(part);
        len += part.len();
    }
    Some(len)
}

/// The `sessionId` query parameter of a request target.
pub(super) fn query_session(target: &[u8]) -> Option<SessionId> {
    let query = target.splitn(2, |&b| b == b'?').nth(1)?;
    query.split(|&b| b == b'&').find_map(|pair| pair.strip_prefix(b"sessionId=")).and_then(SessionId::parse)
}
