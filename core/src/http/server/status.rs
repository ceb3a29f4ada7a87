//! HTTP statuses: of refusals the endpoint writes itself ([`Rejection`]), and of the engine's
//! answers ([`response_status`]); and reading the engine's SSE output back as events.

use crate::endpoint::Framing;
use crate::frame::EventId;
use crate::json::{self, JsonWriter, MAX_DEPTH_LIMIT};
use crate::jsonrpc::{ErrorMessage, Id, NullId, WriteId, code, write_error_head};
use crate::version::Era;

/// A request refused before any engine saw it: the status, and the JSON-RPC error of the body (none
/// for a bare status like 404 on another path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejection<'b> {
    /// The HTTP status.
    pub status: u16,
    /// The JSON-RPC error code of the body, if it has one.
    pub code: Option<i32>,
    /// The error message (or the reason phrase).
    pub message: &'static str,
    /// The id of the refused request, when it could be read.
    pub id: Option<Id<'b>>,
}

impl Rejection<'static> {
    /// A bare status with no body.
    pub const fn status(status: u16, message: &'static str) -> Self {
        Rejection { status, code: None, message, id: None }
    }

    /// A status with a JSON-RPC error body without an id.
    pub const fn error(status: u16, code: i32, message: &'static str) -> Self {
        Rejection { status, code: Some(code), message, id: None }
    }

    /// 404 for a session id that names no live session (unknown, ended or expired): the client must
    /// `initialize` again.
    pub const fn unknown_session() -> Self {
        Rejection::error(404, SESSION_NOT_FOUND, "Session not found")
    }

    /// 405 (GET and DELETE without a session, other methods). Send `Allow: GET, POST, DELETE`.
    pub const fn method_not_allowed() -> Self {
        Rejection::error(405, code::INVALID_REQUEST, "Method Not Allowed")
    }

    /// 413 for a body over the limit.
    pub const fn too_large() -> Self {
        Rejection::error(413, code::INVALID_REQUEST, "Payload Too Large")
    }

    /// 503 when no session can be added (the session limit is reached).
    pub const fn too_many_sessions() -> Self {
        Rejection::error(503, code::INTERNAL_ERROR, "Service Unavailable: too many sessions")
    }

    /// 503: the store that keeps the sessions (shared by a server's replicas) did not answer in
    /// time or failed; the request may be sent again.
    pub const fn session_store_unavailable() -> Self {
        Rejection::error(503, code::INTERNAL_ERROR, "Service Unavailable: the session store is unavailable")
    }
}

/// The JSON-RPC code of the 404 body for an unknown session (implementation-defined legacy range,
/// as the TypeScript SDK uses: a 2026-07-28 client must not read it as a modern error).
pub const SESSION_NOT_FOUND: i32 = -32001;

impl<'b> Rejection<'b> {
    /// A status with a JSON-RPC error body answering `id`.
    pub const fn with_id(status: u16, code: i32, message: &'static str, id: Option<Id<'b>>) -> Self {
        Rejection { status, code: Some(code), message, id }
    }

    /// Writes the body (`application/json`) into `out`; returns its length (0: no body, or `out`
    /// too small, which needs no more than 64 bytes plus the message and id).
    pub fn write_body(&self, out: &mut [u8]) -> usize {
        let Some(code) = self.code else { return 0 };
        let mut w = JsonWriter::new(out);
        // An id too long for `out` (ids are not bounded on the wire) gives way to `null`, as the
        // engine drops an id its answer cannot hold: the error itself is still said.
        for id in [self.id.as_ref(), None] {
            w.truncate(0);
            let id: &dyn WriteId = match id {
                Some(id) => id,
                None => &NullId,
            };
            write_error_head(&mut w, Some(id), code, ErrorMessage::Whole(format_args!("{}", self.message)));
            w.raw(b"}}");
            if !w.is_overflowed() {
                return w.len();
            }
        }
        0
    }
}

/// The HTTP status of an engine answer `message` (one JSON-RPC message) in `era`.
///
/// 2026-07-28: a result is 200; header, capability and version errors (-32020, -32021, -32022),
/// parse errors and invalid requests are 400; an unknown method is 404 with its -32601 body (which
/// tells a modern client from a legacy 404); other errors (-32602 for an unknown tool or resource,
/// internal errors) are 200, since clients read them from the body. Legacy: 400 for parse errors
/// and invalid requests, 200 otherwise.
///
/// Most answers are results, 200 without being parsed: one that opens as the engine writes a
/// result (`{"jsonrpc":"2.0","id":…,"result":`), or has no member named `error` (such a name
/// shows `"error"` as is or, escaped, a backslash).
pub fn response_status(era: Era, message: &[u8]) -> u16 {
    if opens_as_result(message) || !may_name_error(message) {
        return 200;
    }
    parsed_status(era, message)
}

/// Whether `message` opens as the engine writes a result: `jsonrpc`, an integer id or one
/// without escapes, then `result`.
fn opens_as_result(message: &[u8]) -> bool {
    let Some(id) = message.strip_prefix(br#"{"jsonrpc":"2.0","id":"#) else { return false };
    let id_len = match id {
        [b'"', text @ ..] => match crate::swar::unquoted_len(text) {
            len if text.get(len) == Some(&b'"') => len + 2,
            _ => return false,
        },
        _ => id.iter().take_while(|&&b| b == b'-' || b.is_ascii_digit()).count(),
    };
    id_len > 0 && id.get(id_len..).is_some_and(|rest| rest.starts_with(br#","result":"#))
}

/// [`response_status`], always reading the message.
fn parsed_status(era: Era, message: &[u8]) -> u16 {
    let code = json::parse(message, MAX_DEPTH_LIMIT)
        .ok()
        .and_then(|v| v.get("error"))
        .and_then(|e| e.get("code"))
        .and_then(|c| c.as_i64());
    match (era, code) {
        (_, None) => 200,
        (_, Some(c)) if c == i64::from(code::PARSE_ERROR) || c == i64::from(code::INVALID_REQUEST) => 400,
        (Era::Modern, Some(c))
            if c == i64::from(code::HEADER_MISMATCH)
                || c == i64::from(code::MISSING_CLIENT_CAPABILITY)
                || c == i64::from(code::UNSUPPORTED_PROTOCOL_VERSION) =>
        {
            400
        }
        (Era::Modern, Some(c)) if c == i64::from(code::METHOD_NOT_FOUND) => 404,
        _ => 200,
    }
}

/// The status of a stream whose first output is `bytes` in `framing`, if that output is the
/// whole answer (`end_of_stream`): the answer's own status ([`response_status`]). A stream that
/// starts with anything else (a notification before the answer) is 200.
///
/// The output is not searched for an `error` member first: [`response_status`] reads the one
/// event's message (or the body) at most once, and most answers open as results.
pub fn first_transmit_status(era: Era, framing: Framing, bytes: &[u8], end_of_stream: bool) -> u16 {
    if !end_of_stream {
        return 200;
    }
    match framing {
        Framing::Sse => {
            let mut events = sse_events(bytes);
            match (events.next(), events.next()) {
                (Some(only), None) => sse_output_status(era, Some(&only), true),
                _ => 200,
            }
        }
        _ => response_status(era, bytes),
    }
}

/// [`first_transmit_status`] of SSE output already split by [`sse_events`] (for an event store):
/// `only` is its event if it had exactly one, `None` if it had none or more.
pub fn sse_output_status(era: Era, only: Option<&OutputEvent<'_>>, end_of_stream: bool) -> u16 {
    match only {
        Some(event) if end_of_stream => response_status(era, event.data),
        _ => 200,
    }
}

/// Whether `bytes` may hold a JSON member named `error`: they hold the token `"error"`, or a
/// backslash (an escaped name). `false` proves there is none.
fn may_name_error(bytes: &[u8]) -> bool {
    // From quote to quote (eight bytes a step): the name would be the token `"error"`.
    let mut rest = bytes;
    loop {
        match rest.get(crate::swar::unquoted_len(rest)..) {
            Some([b'"', tail @ ..]) if tail.starts_with(b"error\"") => return true,
            Some([b'"', tail @ ..]) => rest = tail,
            Some([b'\\', ..]) => return true,
            _ => return false,
        }
    }
}

/// One event of the engine's SSE output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputEvent<'a> {
    /// Its id, if it has one the engine wrote (`<stream>-<sequence>`).
    pub id: Option<EventId>,
    /// The message (`data`).
    pub data: &'a [u8],
    /// The whole event, framing included, to store for replay.
    pub bytes: &'a [u8],
}

/// Splits the engine's SSE output (whole events, as in a [`Transmit`](crate::endpoint::Transmit))
/// into events. Messages never hold a raw newline, so an event ends at the first blank line.
///
/// Line by line (a word at a time between line breaks): the event's lines are read as they are
/// found, and its end is the first line break right after another.
pub fn sse_events(bytes: &[u8]) -> impl Iterator<Item = OutputEvent<'_>> {
    let mut rest = bytes;
    core::iter::from_fn(move || {
        let mut id = None;
        let mut data: &[u8] = &[];
        // Where the current line starts; a line break ends it (none left: no whole event).
        let mut start = 0;
        loop {
            let tail = rest.get(start..)?;
            let len = crate::swar::newline_free_len(tail);
            let line = tail.get(..len).filter(|_| len < tail.len())?;
            if line.is_empty() && start > 0 {
                let (event, after) = (rest.get(..=start)?, rest.get(start + 1..)?);
                rest = after;
                return Some(OutputEvent { id, data, bytes: event });
            }
            if let Some(value) = line.strip_prefix(b"id: ") {
                id = EventId::parse(value).ok();
            } else if let Some(value) = line.strip_prefix(b"data: ") {
                data = value;
            }
            start += len + 1;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_without_an_error_member_are_200_unread() {
        let messages: [&[u8]; 11] = [
            br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"an error"}]}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32700,"message":"Parse error"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"m"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"m"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"m"}}"#,
            br#"{"jsonrpc":"2.0","id":""","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"erro":{"code":-32600},"e":1,"rror":2}"#,
            b"garbage",
            b"",
        ];
        for message in messages {
            for era in [Era::Modern, Era::Legacy] {
                assert_eq!(response_status(era, message), parsed_status(era, message), "{era:?} {message:?}");
                let mut event = b"id: 3-1\ndata: ".to_vec();
                event.extend_from_slice(message);
                event.extend_from_slice(b"\n\n");
                let expected = if message.is_empty() { 200 } else { parsed_status(era, message) };
                assert_eq!(first_transmit_status(era, Framing::Sse, &event, true), expected, "{era:?} {message:?}");
            }
        }
        assert_eq!(response_status(Era::Modern, messages[2]), 404);
        assert_eq!(response_status(Era::Modern, messages[5]), 404);
        assert_eq!(response_status(Era::Legacy, messages[6]), 400);
        assert!(opens_as_result(messages[0]) && opens_as_result(br#"{"jsonrpc":"2.0","id":"a-1","result":{}}"#));
        assert!(!opens_as_result(messages[2]) && !opens_as_result(br#"{"jsonrpc":"2.0","id":"a\"","result":{}}"#));
        assert!(!opens_as_result(br#"{"jsonrpc":"2.0","id":,"result":{}}"#) && !opens_as_result(b"{"));
        // The opening decides: a result is not read for an `error` after it (the engine writes one
        // or the other).
        let both = br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":-32700,"message":"m"}}"#;
        assert_eq!((response_status(Era::Legacy, both), parsed_status(Era::Legacy, both)), (200, 400));
        assert!(!may_name_error(messages[8]) && !may_name_error(br#""eeee" "errr" "rror" "xerror""#));
        assert!(may_name_error(br#"{"error""#) && may_name_error(br#"x"error""#) && may_name_error(b"\\"));
        assert!(!may_name_error(br#""erro"#) && !may_name_error(br#"error""#) && !may_name_error(b""));
    }

    #[test]
    fn statuses_follow_the_era() {
        let err = |c: i32| std::format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{c},"message":"m"}}}}"#);
        assert_eq!(response_status(Era::Modern, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), 200);
        assert_eq!(response_status(Era::Modern, err(-32601).as_bytes()), 404);
        for c in [-32020, -32021, -32022, -32700, -32600] {
            assert_eq!(response_status(Era::Modern, err(c).as_bytes()), 400, "{c}");
        }
        assert_eq!(response_status(Era::Modern, err(-32602).as_bytes()), 200);
        assert_eq!(response_status(Era::Legacy, err(-32601).as_bytes()), 200);
        assert_eq!(response_status(Era::Legacy, err(-32700).as_bytes()), 400);
        assert_eq!(response_status(Era::Legacy, b"garbage"), 200);
    }

    #[test]
    fn an_sse_answer_alone_carries_its_status() {
        let one = b"id: 3-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32022,\"message\":\"m\"}}\n\n";
        assert_eq!(first_transmit_status(Era::Modern, Framing::Sse, one, true), 400);
        assert_eq!(first_transmit_status(Era::Modern, Framing::Sse, one, false), 200);
        let two = [&b"id: 3-1\ndata: {}\n\n"[..], one].concat();
        assert_eq!(first_transmit_status(Era::Modern, Framing::Sse, &two, true), 200);
        for (bytes, end) in [(&one[..], true), (&one[..], false), (&two[..], true), (b"", true)] {
            let events: std::vec::Vec<_> = sse_events(bytes).collect();
            let only = events.first().filter(|_| events.len() == 1);
            let status = first_transmit_status(Era::Modern, Framing::Sse, bytes, end);
            assert_eq!(sse_output_status(Era::Modern, only, end), status);
        }
        let events: std::vec::Vec<_> = sse_events(&two).collect();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].id, Some(EventId::new(3, 1)));
        assert_eq!(events[0].data, b"{}");
        assert_eq!(events[1].bytes, &one[..]);
    }

    /// The split before it searched line by line: the first `\n\n` ends an event.
    fn reference_events(bytes: &[u8]) -> std::vec::Vec<OutputEvent<'_>> {
        let mut rest = bytes;
        core::iter::from_fn(move || {
            let end = rest.windows(2).position(|w| w == b"\n\n")? + 2;
            let (event, tail) = rest.split_at(end);
            rest = tail;
            let mut id = None;
            let mut data: &[u8] = &[];
            for line in event.split(|&b| b == b'\n') {
                if let Some(value) = line.strip_prefix(b"id: ") {
                    id = EventId::parse(value).ok();
                } else if let Some(value) = line.strip_prefix(b"data: ") {
                    data = value;
                }
            }
            Some(OutputEvent { id, data, bytes: event })
        })
        .collect()
    }

    #[test]
    fn sse_events_split_as_the_first_blank_line_says() {
        let parts: [&[u8]; 8] =
            [b"\n", b"\n\n", b"id: 3-1", b"data: {\"a\":1}", b"data: ", b"id: x", b"retry: 5", b"ab"];
        // Every sequence of up to four parts, and a long data line.
        let mut inputs: std::vec::Vec<std::vec::Vec<u8>> = std::vec![std::vec::Vec::new()];
        for _ in 0..4 {
            let longer: std::vec::Vec<_> =
                inputs.iter().flat_map(|input| parts.iter().map(move |part| [&input[..], part].concat())).collect();
            inputs.extend(longer);
            inputs.dedup();
        }
        inputs.push([&b"id: 2-7\ndata: "[..], &[b'x'; 300], b"\n\nid: 2-8\ndata: y\n\n\n"].concat());
        for input in &inputs {
            let events: std::vec::Vec<_> = sse_events(input).collect();
            assert_eq!(events, reference_events(input), "{:?}", core::str::from_utf8(input));
        }
    }

    #[test]
    fn rejection_bodies_are_json_rpc_errors() {
        let mut out = [0u8; 256];
        let n = Rejection::with_id(400, -32020, "Header mismatch", Some(Id::Number(7))).write_body(&mut out);
        let v: serde_json::Value = serde_json::from_slice(&out[..n]).unwrap();
        assert_eq!(v, serde_json::json!({"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch"}}));
        assert_eq!(Rejection::status(404, "Not Found").write_body(&mut out), 0);
        assert_eq!(Rejection::unknown_session().write_body(&mut [0u8; 8]), 0, "too small: nothing");
        // An id too long for the buffer gives way to null; the error is still written.
        let long = std::format!("\"{}\"", "i".repeat(600));
        let long_id = crate::json::parse(long.as_bytes(), 0).ok().and_then(Id::from_value);
        let rejection = Rejection::with_id(400, -32600, "Bad Request: no", long_id);
        let n = rejection.write_body(&mut out);
        assert_eq!(&out[..n], br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: no"}}"#);
        let unknown = Rejection::unknown_session();
        let n = unknown.write_body(&mut out);
        let v: serde_json::Value = serde_json::from_slice(&out[..n]).unwrap();
        assert_eq!((unknown.status, &v["error"]["code"]), (404, &serde_json::json!(-32001)));
    }
}
