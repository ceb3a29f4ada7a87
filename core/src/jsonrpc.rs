//! JSON-RPC 2.0 envelopes: classifying a received message and writing responses.
//!
//! Classification works on a validated [`Value`]: `params`, `result` and `error` stay raw spans until a
//! handler decodes them. Writing goes through [`JsonWriter`], so a message that does not fit leaves the
//! transmit buffer unchanged.

use core::fmt;

use crate::json::{JsonStr, JsonWriter, Kind, ScanError, Value};
use crate::text::Plain;

/// Error codes used on the wire.
pub mod code {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist or is not available in the request's protocol version.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameters (also: missing modern `_meta`, unknown tool or prompt, modern not-found).
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal error.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// Resource not found (legacy era only; 2026-07-28 uses `INVALID_PARAMS` with `data.uri`).
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// HTTP headers disagree with the body (2026-07-28).
    pub const HEADER_MISMATCH: i32 = -32020;
    /// The request needs a client capability it did not declare (2026-07-28).
    pub const MISSING_CLIENT_CAPABILITY: i32 = -32021;
    /// The request's protocol version is not supported (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;

    /// The standard name of an error code (`"Invalid params"`); `"Server error"` for any other.
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    pub const fn name(code: i32) -> &'static str {
        match code {
            PARSE_ERROR => "Parse error",
            INVALID_REQUEST => "Invalid Request",
            METHOD_NOT_FOUND => "Method not found",
            INVALID_PARAMS => "Invalid params",
            INTERNAL_ERROR => "Internal error",
            RESOURCE_NOT_FOUND => "Resource not found",
            HEADER_MISMATCH => "Header mismatch",
            MISSING_CLIENT_CAPABILITY => "Missing client capability",
            UNSUPPORTED_PROTOCOL_VERSION => "Unsupported protocol version",
            _ => "Server error",
        }
    }
}

/// Longest string request id, in bytes after unescaping, that can be kept past the frame it arrived in
/// (deferred answers, cancellation). Longer ids are still echoed in immediate answers.
pub const MAX_ID_LEN: usize = 64;

/// A request id as received: an integer or a string (never null).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Id<'a> {
    /// An integer id.
    Number(i64),
    /// A string id, as it appears on the wire (still escaped).
    String(JsonStr<'a>),
}

impl<'a> Id<'a> {
    /// Reads an id value: an integer or a string. `None` for null, fractions and other kinds.
    pub fn from_value(value: Value<'a>) -> Option<Self> {
        match value.kind() {
            Kind::Number => value.as_i64().map(Id::Number),
            Kind::String => value.as_str().map(Id::String),
            _ => None,
        }
    }

    /// Writes the id as JSON.
    pub fn write(&self, w: &mut JsonWriter<'_>) {
        match self {
            Id::Number(n) => w.i64(*n),
            Id::String(s) => w.json_str(*s),
        }
    }
}

/// A request id kept beyond the frame it arrived in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnedId {
    /// An integer id.
    Number(i64),
    /// A string id, unescaped.
    String(heapless::String<MAX_ID_LEN>),
}

impl OwnedId {
    /// Copies an id; `None` if a string id is longer than [`MAX_ID_LEN`] bytes.
    pub fn from_id(id: Id<'_>) -> Option<Self> {
        match id {
            Id::Number(n) => Some(OwnedId::Number(n)),
            Id::String(s) => {
                let mut out = heapless::String::new();
                for c in s.chars() {
                    out.push(c).ok()?;
                }
                Some(OwnedId::String(out))
            }
        }
    }

    /// Whether this is the same id as `id` (string ids compare unescaped).
    pub fn matches(&self, id: Id<'_>) -> bool {
        match (self, id) {
            (OwnedId::Number(a), Id::Number(b)) => *a == b,
            (OwnedId::String(a), Id::String(b)) => b.eq_str(a),
            _ => false,
        }
    }

    /// Writes the id as JSON.
    pub fn write(&self, w: &mut JsonWriter<'_>) {
        match self {
            OwnedId::Number(n) => w.i64(*n),
            OwnedId::String(s) => w.string(s),
        }
    }
}

impl fmt::Display for OwnedId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OwnedId::Number(n) => write!(f, "{n}"),
            OwnedId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A classified JSON-RPC message. Spans borrow the received frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Message<'a> {
    /// A request: has `method` and `id`.
    Request {
        /// The request id.
        id: Id<'a>,
        /// The method name (still escaped).
        method: JsonStr<'a>,
        /// `params`, if present (any JSON value; checked by the method's handler).
        params: Option<Value<'a>>,
    },
    /// A notification: has `method`, no `id`.
    Notification {
        /// The method name (still escaped).
        method: JsonStr<'a>,
        /// `params`, if present.
        params: Option<Value<'a>>,
    },
    /// A successful response.
    Response {
        /// The id of the request it answers.
        id: Id<'a>,
        /// The `result` value.
        result: Value<'a>,
    },
    /// An error response.
    Error {
        /// The id of the request it answers, absent when the peer could not tell.
        id: Option<Id<'a>>,
        /// The `error` object.
        error: Value<'a>,
    },
}

/// Why a JSON value is not a JSON-RPC message, with the id when it could be recovered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnvelopeError<'a> {
    /// The id, if the message had a valid one (answer with it).
    pub id: Option<Id<'a>>,
    /// What is wrong, for the error message.
    pub reason: &'static str,
}

/// Classifies one JSON-RPC message (not a batch). Unknown members are ignored.
pub fn classify(value: Value<'_>) -> Result<Message<'_>, EnvelopeError<'_>> {
    classify_spanned(value, None)
}

/// [`classify`], reading the members from `spans`, the validator's record of `value`, when it
/// recorded them (and skipping the containers it recorded).
pub(crate) fn classify_spanned<'a>(
    value: Value<'a>,
    spans: Option<&'a crate::json::Spans>,
) -> Result<Message<'a>, EnvelopeError<'a>> {
    let members = match spans {
        Some(spans) => value.members_spanned(spans),
        None => value.members(),
    };
    classify_members(value, members, |member| member)
}

/// [`classify_spanned`] with a record that does not live as long as `value`: what it returns
/// borrows `value`, not the record.
pub(crate) fn classify_recorded<'a>(
    value: Value<'a>,
    spans: &crate::json::Spans,
) -> Result<Message<'a>, EnvelopeError<'a>> {
    classify_members(value, value.members_spanned(spans), |member| member.within(value))
}

/// Classifies `value` from the walk of its `members`; `settle` takes a member value found by
/// the walk to one borrowing `value`.
#[inline(always)]
fn classify_members<'a, 'm>(
    value: Value<'a>,
    mut members: crate::json::Members<'m>,
    settle: impl Fn(Value<'m>) -> Value<'a>,
) -> Result<Message<'a>, EnvelopeError<'a>> {
    if value.kind() != Kind::Object {
        return Err(EnvelopeError { id: None, reason: "a JSON-RPC message must be an object" });
    }
    // One pass over the members (a large `params` is skipped once, not once per lookup); the first
    // occurrence of a key wins, as with `Value::get`. `found` holds the members `NAMES` names, in
    // its order.
    const NAMES: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
    let mut found: [Option<Value<'a>>; 6] = [None; 6];
    while let Some((key, member, plain)) = members.next_entry() {
        // A key without escapes is its raw bytes (no UTF-8 check needed to compare them).
        let raw = key.raw();
        let escaped = !plain && key.has_escape();
        let at = NAMES.iter().position(|name| if escaped { key.eq_str(name) } else { raw == name.as_bytes() });
        if let Some(slot) = at.and_then(|at| found.get_mut(at)) {
            slot.get_or_insert_with(|| settle(member));
        }
    }
    let [jsonrpc, id_value, method, params, result, error] = found;
    let id = id_value.and_then(Id::from_value);
    let fail = |reason| Err(EnvelopeError { id, reason });
    match jsonrpc.and_then(|v| v.as_str()) {
        Some(version) if version.eq_str("2.0") => {}
        _ => return fail("\"jsonrpc\" must be \"2.0\""),
    }
    // `null` is the id of an error answering a message whose id the peer could not read.
    let null_id_error = method.is_none() && error.is_some() && id_value.is_some_and(|v| v.is_null());
    if id_value.is_some() && id.is_none() && !null_id_error {
        return fail("\"id\" must be a string or an integer");
    }
    if let Some(method) = method {
        let Some(method) = method.as_str() else {
            return fail("\"method\" must be a string");
        };
        return Ok(match id {
            Some(id) => Message::Request { id, method, params },
            None => Message::Notification { method, params },
        });
    }
    match (result, error, id) {
        (Some(result), None, Some(id)) => Ok(Message::Response { id, result }),
        (None, Some(error), id) if error.kind() == Kind::Object => Ok(Message::Error { id, error }),
        _ => fail("a message needs \"method\", or \"id\" with exactly one of \"result\" and \"error\""),
    }
}

/// The envelope members of a message, each the first of its name.
impl fmt::Display for EnvelopeError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason)
    }
}

impl core::error::Error for EnvelopeError<'_> {}

/// One message body validated once, with the validator's record of its shallow structure, so that
/// several readers (an HTTP server routing a POST, then the engine serving it) share one validation:
/// [`http::plan_post_parsed`](crate::http::plan_post_parsed) and
/// [`Engine::handle_parsed`](crate::server::Engine::handle_parsed) take it. Each reader reads it as
/// it would have read the bytes, validating them again only if it needs another depth limit than
/// the one the body was validated with.
#[derive(Clone, Debug)]
pub struct ParsedMessage<'a> {
    bytes: &'a [u8],
    max_depth: usize,
    value: Result<Value<'a>, ScanError>,
    spans: crate::json::Spans,
    /// The classification of `value` (when it is a document), made once for every reader.
    message: Option<Result<Message<'a>, EnvelopeError<'a>>>,
    /// What the readers look up in a request's or notification's `params` and `_meta`, found once.
    picked: Option<crate::server::params::Picked<'a>>,
}

impl<'a> ParsedMessage<'a> {
    /// Validates `bytes` (nested at most `max_depth` levels, as [`json::parse`](crate::json::parse)).
    pub fn parse(bytes: &'a [u8], max_depth: usize) -> Self {
        let mut spans = crate::json::Spans::default();
        let value = crate::json::parse_spanned(bytes, max_depth, &mut spans);
        let message = value.ok().map(|value| classify_recorded(value, &spans));
        let params = match message {
            Some(Ok(Message::Request { params, .. } | Message::Notification { params, .. })) => params,
            _ => None,
        };
        let picked = params.and_then(|params| crate::server::params::Picked::new(params, &spans));
        ParsedMessage { bytes, max_depth, value, spans, message, picked }
    }

    /// The body as received.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The depth limit it was validated with.
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The validated document, or why it is not one.
    pub fn value(&self) -> Result<Value<'a>, ScanError> {
        self.value
    }

    /// The validator's record of the document.
    pub(crate) fn spans(&self) -> &crate::json::Spans {
        &self.spans
    }

    /// The members of the message's `params` (when an object) and `_meta` the readers look up.
    pub(crate) fn picked(&self) -> Option<&crate::server::params::Picked<'a>> {
        self.picked.as_ref()
    }

    /// The document classified as a JSON-RPC message ([`classify`]); `None` if it is not a document.
    pub fn message(&self) -> Option<Result<Message<'a>, EnvelopeError<'a>>> {
        self.message
    }
}

/// The JSON-RPC envelope is written here and nowhere else: every message an endpoint sends starts
/// with one of these heads (`scripts/check-envelope` keeps it so).
///
/// Writes `{"jsonrpc":"2.0","id":<id>,"method":` (the caller writes the method name, the optional
/// `,"params":…` and the closing `}`).
pub(crate) fn write_request_head(w: &mut JsonWriter<'_>, id: &dyn WriteId) {
    write_id_head(w, id, "method");
}

/// What every message starts with.
const VERSION_HEAD: &[u8] = b"{\"jsonrpc\":\"2.0\",";

/// Writes `{"jsonrpc":"2.0","id":<id>,"<member>":`, the head of a request, a result or an error
/// object.
#[inline(never)]
fn write_id_head(w: &mut JsonWriter<'_>, id: &dyn WriteId, member: &str) {
    w.raw(VERSION_HEAD);
    w.key("id");
    id.write_id(w);
    w.member(member);
}

/// Writes `{"jsonrpc":"2.0","method":` (the caller writes the method name, the optional
/// `,"params":…` and the closing `}`).
pub(crate) fn write_notification_head(w: &mut JsonWriter<'_>) {
    w.raw(VERSION_HEAD);
    w.key("method");
}

/// Writes `{"jsonrpc":"2.0","method":"<method>","params":{`: a notification up to its params'
/// members (the caller writes them and the closing `}}`).
#[inline(never)]
pub(crate) fn write_notification_params_head(w: &mut JsonWriter<'_>, method: &str) {
    write_notification_head(w);
    w.string(method);
    w.member("params");
    w.byte(b'{');
}

/// Writes a whole request or notification: the head, `method`, `,"params":` and what `params`
/// writes (a JSON object) if given, and the closing `}`. `id: None` makes it a notification.
pub(crate) fn write_call(
    w: &mut JsonWriter<'_>,
    id: Option<&dyn WriteId>,
    method: &str,
    params: Option<&dyn Fn(&mut JsonWriter<'_>)>,
) {
    match id {
        Some(id) => write_request_head(w, id),
        None => write_notification_head(w),
    }
    w.string(method);
    if let Some(params) = params {
        w.member("params");
        params(w);
    }
    w.byte(b'}');
}

/// Writes `{"jsonrpc":"2.0","id":<id>,"result":` (the caller writes the result and the closing `}`).
pub(crate) fn write_result_head(w: &mut JsonWriter<'_>, id: &dyn WriteId) {
    write_id_head(w, id, "result");
}

/// Writes `{"jsonrpc":"2.0","id":<id>,"error":` (an error object the caller has, and `}`, follow).
#[cfg(feature = "tasks")]
pub(crate) fn write_error_object_head(w: &mut JsonWriter<'_>, id: &dyn WriteId) {
    write_id_head(w, id, "error");
}

/// The message of an error the engine writes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ErrorMessage<'a> {
    /// `<the code's name>: <detail>` (`Invalid params: "params" must be an object`): the engine's
    /// own errors, whose names ([`code::name`]) are then kept once.
    Named(fmt::Arguments<'a>),
    /// The whole message (a handler's, or one that does not start with the code's name).
    Whole(fmt::Arguments<'a>),
}

impl ErrorMessage<'_> {
    /// The message's fixed text (a `Named` message's detail), if it has no formatted part.
    pub(crate) fn as_str(&self) -> Option<&'static str> {
        match self {
            ErrorMessage::Named(text) | ErrorMessage::Whole(text) => text.as_str(),
        }
    }
}

/// Writes `{"jsonrpc":"2.0",["id":<id>,]"error":{"code":<code>,"message":<message>` and leaves the error
/// object open so the caller may add `,"data":…`; close it with `}}`.
pub(crate) fn write_error_head(w: &mut JsonWriter<'_>, id: Option<&dyn WriteId>, code: i32, message: ErrorMessage<'_>) {
    w.raw(VERSION_HEAD);
    if let Some(id) = id {
        w.key("id");
        id.write_id(w);
        w.byte(b',');
    }
    w.raw(b"\"error\":{\"code\":");
    w.i64(i64::from(code));
    w.member("message");
    match message {
        ErrorMessage::Named(detail) => w.string_fmt(format_args!("{}: {detail}", Plain(code::name(code)))),
        ErrorMessage::Whole(text) => w.string_fmt(text),
    }
}

/// Writes a whole error response from `w`'s current length: [`write_error_head`], `,"data":…` (the
/// closure) if there is `data`, the end and `suffix` (the framing). An error that does not fit is
/// written again shorter, as the same code with the message "error response too large" and no
/// data, keeping the id if at all possible (an answer without its id answers no request); if even
/// that does not fit, `w` is left overflowed.
pub(crate) fn write_error(
    w: &mut JsonWriter<'_>,
    id: Option<&dyn WriteId>,
    code: i32,
    message: ErrorMessage<'_>,
    data: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    suffix: &[u8],
) {
    let start = w.len();
    write_error_head(w, id, code, message);
    if let Some(data) = data {
        w.member("data");
        data(w);
    }
    w.raw(b"}}");
    w.raw(suffix);
    for fallback_id in [id, None] {
        if w.is_overflowed() {
            w.truncate(start);
            write_error_head(w, fallback_id, code, ErrorMessage::Whole(format_args!("error response too large")));
            w.raw(b"}}");
            w.raw(suffix);
        }
    }
}

/// Anything that can be written as a request id.
pub(crate) trait WriteId {
    fn write_id(&self, w: &mut JsonWriter<'_>);
}

/// An integer id, as an endpoint numbers the requests it sends.
impl WriteId for i64 {
    fn write_id(&self, w: &mut JsonWriter<'_>) {
        w.i64(*self)
    }
}

/// `null`: the id of an error answering a message whose id could not be read, where the id member
/// must be present (an HTTP rejection's body).
#[cfg(feature = "http")]
pub(crate) struct NullId;

#[cfg(feature = "http")]
impl WriteId for NullId {
    fn write_id(&self, w: &mut JsonWriter<'_>) {
        w.null()
    }
}

impl WriteId for Id<'_> {
    fn write_id(&self, w: &mut JsonWriter<'_>) {
        self.write(w)
    }
}

impl WriteId for OwnedId {
    fn write_id(&self, w: &mut JsonWriter<'_>) {
        self.write(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn classify_str(text: &str) -> Result<Message<'_>, EnvelopeError<'_>> {
        classify(parse(text.as_bytes(), 64).expect("valid JSON"))
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        match classify_str(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#) {
            Ok(Message::Request { id: Id::Number(7), method, params: None }) => assert!(method.eq_str("ping")),
            other => panic!("{other:?}"),
        }
        match classify_str(r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}"#) {
            Ok(Message::Notification { method, params: Some(_) }) => {
                assert!(method.eq_str("notifications/initialized"))
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            classify_str(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Ok(Message::Response { id: Id::String(_), .. })
        ));
        assert!(matches!(
            classify_str(r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}"#),
            Ok(Message::Error { id: None, .. })
        ));
        // `"id": null` is how JSON-RPC writes an error about a message whose id was not read.
        assert!(matches!(
            classify_str(r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"x"},"id":null}"#),
            Ok(Message::Error { id: None, .. })
        ));
        // Nothing else has a null id.
        assert!(classify_str(r#"{"jsonrpc":"2.0","id":null,"result":{}}"#).is_err());
    }

    #[test]
    fn invalid_envelopes_keep_a_recoverable_id() {
        let err = classify_str(r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#).unwrap_err();
        assert_eq!(err.id, Some(Id::Number(3)));
        let err = classify_str(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#).unwrap_err();
        assert_eq!(err.id, None);
        let err = classify_str(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#).unwrap_err();
        assert_eq!(err.id, None);
        let err = classify_str(r#"{"jsonrpc":"2.0","id":"x","method":5}"#).unwrap_err();
        assert!(matches!(err.id, Some(Id::String(_))));
        assert!(classify_str(r#"[1]"#).is_err());
        assert!(classify_str(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#).is_err());
        assert!(classify_str(r#"{"jsonrpc":"2.0","id":1}"#).is_err());
        // The first of duplicate keys wins; escaped key names count.
        assert!(matches!(
            classify_str(r#"{"jsonrpc":"2.0","\u0069d":4,"id":5,"method":"ping"}"#),
            Ok(Message::Request { id: Id::Number(4), .. })
        ));
    }

    #[test]
    fn owned_ids_match_escaped_and_plain_spellings() {
        let v = parse(br#""a\u0062c""#, 4).unwrap();
        let id = Id::from_value(v).unwrap();
        let owned = OwnedId::from_id(id).unwrap();
        assert_eq!(owned, OwnedId::String(heapless::String::try_from("abc").unwrap()));
        let plain = Id::from_value(parse(br#""abc""#, 4).unwrap()).unwrap();
        assert!(owned.matches(plain));
        assert!(!owned.matches(Id::Number(1)));
        let long = std::format!("\"{}\"", "x".repeat(MAX_ID_LEN + 1));
        let id = Id::from_value(parse(long.as_bytes(), 4).unwrap()).unwrap();
        assert_eq!(OwnedId::from_id(id), None);
    }

    #[test]
    fn ids_and_envelope_errors_display() {
        use std::string::ToString;
        assert_eq!(OwnedId::Number(-7).to_string(), "-7");
        assert_eq!(OwnedId::String(heapless::String::try_from("a\"b").unwrap()).to_string(), r#""a\"b""#);
        let err = classify_str(r#"{"jsonrpc":"2.0","id":1,"method":5}"#).unwrap_err();
        assert_eq!(err.to_string(), r#""method" must be a string"#);
    }

    #[test]
    fn an_error_member_must_be_an_object() {
        for text in [r#"{"jsonrpc":"2.0","id":1,"error":5}"#, r#"{"jsonrpc":"2.0","id":1,"error":"x"}"#] {
            let err = classify_str(text).unwrap_err();
            assert_eq!(err.id, Some(Id::Number(1)), "{text}");
        }
    }

    #[test]
    fn error_heads_omit_unknown_ids() {
        let mut buf = [0u8; 128];
        let mut w = JsonWriter::new(&mut buf);
        write_error_head(&mut w, None, code::PARSE_ERROR, ErrorMessage::Whole(format_args!("Parse error")));
        w.raw(b"}}");
        assert_eq!(w.written(), br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#);
    }

    #[test]
    fn an_error_that_does_not_fit_is_shortened_keeping_its_code_and_if_possible_its_id() {
        let data = |w: &mut JsonWriter<'_>| w.raw(b"{\"detail\":\"a long explanation\"}");
        let write = |size: usize, id: &dyn WriteId| {
            let mut buf = [0u8; 256];
            let mut w = JsonWriter::new(&mut buf[..size]);
            let message = ErrorMessage::Named(format_args!("\"name\" must be a string"));
            write_error(&mut w, Some(id), code::INVALID_PARAMS, message, Some(&data), b"\n");
            (!w.is_overflowed()).then(|| std::string::String::from_utf8(w.written().to_vec()).unwrap())
        };
        let whole = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: \"name\" must be a string","data":{"detail":"a long explanation"}}}"#;
        assert_eq!(write(256, &7).as_deref(), Some(std::format!("{whole}\n").as_str()));
        let short =
            "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"error response too large\"}}\n";
        assert_eq!(write(whole.len(), &7).as_deref(), Some(short));
        assert_eq!(write(short.len(), &7).as_deref(), Some(short));
        // Without the id when even the short one does not fit with it; nothing when nothing fits.
        let without_id = "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32602,\"message\":\"error response too large\"}}\n";
        assert_eq!(write(short.len() - 1, &7).as_deref(), Some(without_id));
        assert_eq!(write(without_id.len() - 1, &7), None);
    }
}
