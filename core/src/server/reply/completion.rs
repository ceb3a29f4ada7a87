//! The answer to `completion/complete`.

use crate::jsonrpc::ErrorMessage;
use crate::server::Engine;
use crate::server::reply::{DeferError, Deferred, Outgoing, ReplyError, ReplyKind};
use crate::text::Plain;
use crate::version::ProtocolVersion;

/// Most values one completion result carries (the spec's limit).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// The answer to `completion/complete`: suggested values for the argument, best first.
///
/// Offer as many values as match: the first [`MAX_COMPLETION_VALUES`] are sent, the rest are counted
/// into `total` and set `hasMore`.
#[must_use = "a reply is sent by finishing it (`finish`, `fail` or `defer`); dropped, it answers with an internal error"]
pub struct CompletionReply<'a> {
    out: Outgoing<'a>,
    values: usize,
    total: Option<u64>,
    has_more: Option<bool>,
}

impl<'a> CompletionReply<'a> {
    pub(crate) fn new(mut out: Outgoing<'a>) -> Self {
        out.field("completion");
        out.writer().raw(b"{\"values\":[");
        CompletionReply { out, values: 0, total: None, has_more: None }
    }

    /// The protocol version the answer is written for.
    pub fn version(&self) -> ProtocolVersion {
        self.out.version()
    }

    /// Offers a value.
    pub fn value(mut self, value: &str) -> Self {
        if self.values < MAX_COMPLETION_VALUES {
            let w = self.out.writer();
            if self.values > 0 {
                w.byte(b',');
            }
            w.string(value);
        }
        self.values += 1;
        self
    }

    /// Offers each of `values`.
    pub fn values<'v>(self, values: impl IntoIterator<Item = &'v str>) -> Self {
        values.into_iter().fold(self, CompletionReply::value)
    }

    /// The number of matching values in all, when more exist than were offered.
    pub fn total(mut self, total: u64) -> Self {
        self.total = Some(total);
        self
    }

    /// Says whether more values exist than were offered (sent as `hasMore`; without it, `hasMore`
    /// is sent only when values beyond the limit were left out).
    pub fn has_more(mut self, has_more: bool) -> Self {
        self.has_more = Some(has_more);
        self
    }

    /// Sends the result.
    pub fn finish(mut self) {
        let overflow = self.values > MAX_COMPLETION_VALUES;
        let total = match (self.total, overflow) {
            (Some(total), _) => Some(total.max(self.values as u64)),
            (None, true) => Some(self.values as u64),
            (None, false) => None,
        };
        let w = self.out.writer();
        w.byte(b']');
        if let Some(total) = total {
            w.member("total");
            w.u64(total);
        }
        match (self.has_more, overflow) {
            (Some(true), _) | (None, true) | (Some(false), true) => w.raw(b",\"hasMore\":true"),
            (Some(false), false) => w.raw(b",\"hasMore\":false"),
            (None, false) => {}
        }
        w.byte(b'}');
        self.out.finish(None);
        self.out.answered();
    }

    /// Answers with a JSON-RPC error (e.g. `-32602` for an unknown argument).
    pub fn fail(mut self, code: i32, message: &str) {
        self.out.fail(code, ErrorMessage::Whole(format_args!("{message}", message = Plain(message))), None);
        self.out.answered();
    }

    /// Keeps the request open to answer it later with `Server::reply_completion` (values looked up
    /// elsewhere: a database, a directory). On error the request has been answered with an internal
    /// error already.
    pub fn defer(mut self) -> Result<Deferred, DeferError> {
        self.out.defer(ReplyKind::Completion)
    }
}

impl<const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'_, IN_FLIGHT, OUTBOUND> {
    /// Starts the answer to a deferred `completion/complete` ([`CompletionReply::defer`]); see
    /// [`Engine::reply_tool`]. (Beside its reply rather than with the other `reply_*` methods, to
    /// keep `engine.rs` short.)
    pub fn reply_completion(&mut self, deferred: &Deferred) -> Result<CompletionReply<'_>, ReplyError> {
        self.reopen(deferred, ReplyKind::Completion).map(CompletionReply::new)
    }
}

#[cfg(all(test, feature = "alloc", feature = "full"))]
mod tests {
    use std::vec::Vec;

    use crate::connection::Connection;
    use crate::server::{Buffers, Config, Deferred, Registry, ReplyError, Server, TemplateInfo};

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn feed(server: &mut Server<'_, Registry>, line: &str) -> Vec<serde_json::Value> {
        let input = std::format!("{line}\n");
        assert_eq!(server.handle_input(crate::time::Instant::ZERO, input.as_bytes()), input.len());
        let mut out = Vec::new();
        while let Some(bytes) = server.poll_transmit() {
            out.extend_from_slice(bytes);
            let n = bytes.len();
            server.transmit_done(crate::time::Instant::ZERO, n);
        }
        out.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
    }

    fn complete(id: u32) -> std::string::String {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"completion/complete","params":{{"ref":{{"type":"ref/resource","uri":"mem://{{key}}"}},"argument":{{"name":"key","value":"k"}},{META}}}}}"#
        )
    }

    #[test]
    fn a_completion_can_be_deferred_answered_later_or_cancelled() {
        let deferred = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Deferred>::new()));
        let kept = deferred.clone();
        let mut registry = Registry::new();
        registry.add_template(TemplateInfo::new("mem://{key}", "memory"), |read, reply| {
            reply.text(read.uri, None, "x").finish()
        });
        registry.set_completion(move |_, reply| kept.lock().unwrap().push(reply.defer().unwrap()));
        let (mut rx, mut tx) = ([0u8; 2048], [0u8; 2048]);
        let mut server: Server<'_, Registry> =
            Server::new(registry, Config::new("dyn", "1"), Buffers { rx: &mut rx, tx: &mut tx });

        assert!(feed(&mut server, &complete(1)).is_empty(), "deferred: no answer yet");
        assert_eq!(server.in_flight(), 1);
        let first = deferred.lock().unwrap().pop().unwrap();
        assert!(matches!(server.reply_tool(&first), Err(ReplyError::Unknown)), "a completion, not a tool call");
        server.reply_completion(&first).unwrap().values(["kiwi", "kale"]).has_more(true).finish();
        let out = feed(&mut server, "");
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["id"], 1);
        assert_eq!(out[0]["result"]["completion"], serde_json::json!({"values":["kiwi","kale"],"hasMore":true}));
        assert_eq!(out[0]["result"]["resultType"], "complete");
        assert!(matches!(server.reply_completion(&first), Err(ReplyError::Unknown)), "answered once");

        assert!(feed(&mut server, &complete(2)).is_empty());
        let second = deferred.lock().unwrap().pop().unwrap();
        let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        assert!(feed(&mut server, cancel).is_empty());
        assert!(matches!(server.reply_completion(&second), Err(ReplyError::Cancelled)));
        assert_eq!(server.in_flight(), 0);
        assert!(feed(&mut server, "").is_empty(), "a cancelled request is never answered");
    }
}
