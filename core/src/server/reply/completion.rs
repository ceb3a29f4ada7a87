//! The answer to `completion/complete`.

use crate::jsonrpc::ErrorMessage;
use crate::server::reply::Outgoing;
use crate::version::ProtocolVersion;

/// Most values one completion result carries (the spec's limit).
pub const MAX_COMPLETION_VALUES: usize = 100;

/// The answer to `completion/complete`: suggested values for the argument, best first.
///
/// Offer as many values as match: the first [`MAX_COMPLETION_VALUES`] are sent, the rest are counted
/// into `total` and set `hasMore`.
#[must_use = "a reply is sent by finishing it (`finish` or `fail`); dropped, it answers with an internal error"]
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
                w.raw(b",");
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
        w.raw(b"]");
        if let Some(total) = total {
            w.raw(b",\"total\":");
            w.u64(total);
        }
        match (self.has_more, overflow) {
            (Some(true), _) | (None, true) | (Some(false), true) => w.raw(b",\"hasMore\":true"),
            (Some(false), false) => w.raw(b",\"hasMore\":false"),
            (None, false) => {}
        }
        w.raw(b"}");
        self.out.finish(None);
    }

    /// Answers with a JSON-RPC error (e.g. `-32602` for an unknown argument).
    pub fn fail(mut self, code: i32, message: &str) {
        self.out.fail(code, ErrorMessage::Whole(format_args!("{message}")), None)
    }
}
