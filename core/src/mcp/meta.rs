//! The `_meta` members of a 2026-07-28 request (SEP-2575: every request carries its protocol
//! version, the client's capabilities and its information; optionally its log level), read by a
//! server and written by a client.

use crate::json::{JsonWriter, Spans, Value};
use crate::mcp::{ClientCapabilities, Implementation, LoggingLevel};
use crate::version::ProtocolVersion;

/// `_meta` key of a 2026-07-28 request's protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities, on every 2026-07-28 request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's `Implementation`, on every 2026-07-28 request.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of a 2026-07-28 request's log level.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The `_meta` key of a notification on a `subscriptions/listen` stream: the listen request's id.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The members of a request's `_meta` the engine reads, found in one walk.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Meta<'a> {
    pub(crate) protocol_version: Option<Value<'a>>,
    pub(crate) client_capabilities: Option<Value<'a>>,
    pub(crate) client_info: Option<Value<'a>>,
    pub(crate) progress_token: Option<Value<'a>>,
    pub(crate) log_level: Option<Value<'a>>,
}

impl<'a> Meta<'a> {
    // Out of line where it reads the modern members: the caller had two copies of it.
    #[cfg_attr(any(feature = "modern", feature = "http"), inline(never))]
    pub(crate) fn new(meta: Option<Value<'a>>, spans: &'a Spans) -> Self {
        let Some(meta) = meta else { return Meta::default() };
        Self::read(meta, spans)
    }

    /// [`Meta::new`] of an object `meta` with a record that does not live as long as it: what it
    /// keeps borrows `meta`, not the record.
    pub(crate) fn recorded(meta: Value<'a>, spans: &Spans) -> Self {
        let read = Meta::read(meta, spans);
        let within = |v: Option<Value<'_>>| v.map(|v| v.within(meta));
        Meta {
            protocol_version: within(read.protocol_version),
            client_capabilities: within(read.client_capabilities),
            client_info: within(read.client_info),
            progress_token: within(read.progress_token),
            log_level: within(read.log_level),
        }
    }

    /// The members, found in one walk of `meta`. A build without the modern era and the HTTP rules
    /// reads only `progressToken`: it serves every request as a legacy one.
    fn read<'b>(meta: Value<'b>, spans: &'b Spans) -> Meta<'b> {
        #[cfg(not(any(feature = "modern", feature = "http")))]
        {
            let [progress_token] = meta.members_spanned(spans).find_all(["progressToken"]);
            Meta { progress_token, ..Meta::default() }
        }
        #[cfg(any(feature = "modern", feature = "http"))]
        {
            let [protocol_version, client_capabilities, client_info, progress_token, log_level] =
                meta.members_spanned(spans).find_all([
                    META_PROTOCOL_VERSION,
                    META_CLIENT_CAPABILITIES,
                    META_CLIENT_INFO,
                    "progressToken",
                    META_LOG_LEVEL,
                ]);
            Meta { protocol_version, client_capabilities, client_info, progress_token, log_level }
        }
    }

    /// Whether the request is a 2026-07-28 one: its `_meta` names a version, capabilities or client.
    pub(crate) fn is_modern(&self) -> bool {
        self.protocol_version.is_some() || self.client_capabilities.is_some() || self.client_info.is_some()
    }
}

/// Writes the `_meta` object of a 2026-07-28 request from a client: `{"io.modelcontextprotocol/protocolVersion":…,
/// "…/clientCapabilities":{…},"…/clientInfo":{…}` with `…/logLevel` when given, and `progressToken`
/// when given, then the closing `}`.
pub fn write_request_meta(
    w: &mut JsonWriter<'_>,
    version: ProtocolVersion,
    capabilities: &ClientCapabilities,
    info: &Implementation<'_>,
    log_level: Option<LoggingLevel>,
    progress_token: Option<i64>,
) {
    w.byte(b'{');
    w.key(META_PROTOCOL_VERSION);
    w.string(version.as_str());
    w.member(META_CLIENT_CAPABILITIES);
    capabilities.write(w);
    w.member(META_CLIENT_INFO);
    info.write(w, version);
    if let Some(level) = log_level {
        w.member(META_LOG_LEVEL);
        w.string(level.as_str());
    }
    if let Some(token) = progress_token {
        w.member("progressToken");
        w.i64(token);
    }
    w.byte(b'}');
}

#[cfg(all(test, feature = "modern"))]
mod tests {
    use super::*;
    use crate::json::parse_spanned;

    #[test]
    fn what_a_client_writes_a_server_reads() {
        let mut buf = [0u8; 512];
        let mut w = JsonWriter::new(&mut buf);
        let info = Implementation::new("host", "1.0").with_title("Host");
        let version = ProtocolVersion::ALL.iter().copied().find(|v| v.era() == crate::version::Era::Modern).unwrap();
        write_request_meta(&mut w, version, &ClientCapabilities::NONE, &info, Some(LoggingLevel::Info), Some(7));
        let len = w.len();
        assert!(!w.is_overflowed());
        let mut spans = Spans::default();
        let value = parse_spanned(&buf[..len], 16, &mut spans).expect("valid JSON");
        let meta = Meta::new(Some(value), &spans);
        assert!(meta.is_modern());
        assert_eq!(meta.protocol_version.and_then(|v| v.as_str()).and_then(|s| s.as_plain()), Some(version.as_str()));
        assert_eq!(ClientCapabilities::from_value(meta.client_capabilities.unwrap()), ClientCapabilities::NONE);
        let client = meta.client_info.unwrap();
        assert_eq!(client.get("name").and_then(|v| v.as_str()).and_then(|s| s.as_plain()), Some("host"));
        assert_eq!(client.get("title").and_then(|v| v.as_str()).and_then(|s| s.as_plain()), Some("Host"));
        assert_eq!(meta.log_level.and_then(|v| v.as_str()).and_then(|s| s.as_plain()), Some("info"));
        assert_eq!(meta.progress_token.and_then(|v| v.as_i64()), Some(7));
        assert!(!Meta::new(None, &spans).is_modern());
    }
}
