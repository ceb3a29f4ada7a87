//! The answer to `resources/read`.

use crate::text::Plain;
use core::fmt;

use serde::Serialize;

use crate::json::JsonWriter;
use crate::jsonrpc::{ErrorMessage, code};
use crate::server::reply::{CacheHints, DeferError, Deferred, Outgoing, ReplyKind};
use crate::version::{Era, ProtocolVersion};

/// The answer to `resources/read`: one or more contents.
#[must_use = "a reply is sent by finishing it (`finish`, `fail`, `defer`, …); dropped, it answers with an internal error"]
pub struct ResourceReply<'a> {
    out: Outgoing<'a>,
    cache: CacheHints,
    contents_open: bool,
}

impl<'a> ResourceReply<'a> {
    pub(crate) fn new(out: Outgoing<'a>, cache: CacheHints) -> Self {
        ResourceReply { out, cache, contents_open: false }
    }

    /// The protocol version the answer is written for.
    pub fn version(&self) -> ProtocolVersion {
        self.out.version()
    }

    fn next_contents(&mut self, uri: &str, mime_type: Option<&str>) -> &mut JsonWriter<'a> {
        if self.contents_open {
            self.out.writer().byte(b',');
        } else {
            self.out.field("contents");
            self.out.writer().byte(b'[');
            self.contents_open = true;
        }
        let w = self.out.writer();
        w.raw(b"{\"uri\":");
        w.string(uri);
        if let Some(mime_type) = mime_type {
            w.member("mimeType");
            w.string(mime_type);
        }
        w
    }

    /// Adds text contents.
    #[inline(always)] // By value in the API, in place here: no copy of the reply per step.
    pub fn text(mut self, uri: &str, mime_type: Option<&str>, text: &str) -> Self {
        self.push_text(uri, mime_type, text);
        self
    }

    fn push_text(&mut self, uri: &str, mime_type: Option<&str>, text: &str) {
        let w = self.next_contents(uri, mime_type);
        w.member("text");
        w.string(text);
        w.byte(b'}');
    }

    /// Adds text contents formatted in place (`format_args!`).
    #[inline(always)]
    pub fn text_fmt(mut self, uri: &str, mime_type: Option<&str>, text: fmt::Arguments<'_>) -> Self {
        self.push_text_fmt(uri, mime_type, text);
        self
    }

    fn push_text_fmt(&mut self, uri: &str, mime_type: Option<&str>, text: fmt::Arguments<'_>) {
        let w = self.next_contents(uri, mime_type);
        w.member("text");
        w.string_fmt(text);
        w.byte(b'}');
    }

    /// Adds text contents holding a value serialized as JSON
    /// ([`JsonWriter::serialize`](crate::json::JsonWriter::serialize)).
    pub fn json<T: Serialize + ?Sized>(mut self, uri: &str, value: &T) -> Self {
        let w = self.next_contents(uri, Some("application/json"));
        w.member("text");
        w.serialize_as_string(value);
        w.byte(b'}');
        self
    }

    /// Adds binary contents, base64-encoded on the fly.
    #[inline(always)]
    pub fn blob(mut self, uri: &str, mime_type: Option<&str>, data: &[u8]) -> Self {
        self.push_blob(uri, mime_type, data);
        self
    }

    fn push_blob(&mut self, uri: &str, mime_type: Option<&str>, data: &[u8]) {
        let w = self.next_contents(uri, mime_type);
        w.member("blob");
        w.base64_string(data);
        w.byte(b'}');
    }

    note_methods!();

    /// Sets the cache hints of this result (2026-07-28); the server's default applies otherwise.
    pub fn cache(mut self, cache: CacheHints) -> Self {
        self.cache = cache;
        self
    }

    /// Sends the result.
    pub fn finish(mut self) {
        if self.contents_open {
            self.out.writer().byte(b']');
            let cache = self.cache;
            self.out.finish(Some(cache));
        } else {
            self.out.fail(code::INTERNAL_ERROR, ErrorMessage::Named(format_args!("empty resource contents")), None);
        }
        self.out.answered();
    }

    /// Answers that `uri` does not exist: `-32002` in the legacy era, `-32602` with `data.uri` in
    /// 2026-07-28.
    pub fn not_found(mut self, uri: &str) {
        let code = match self.out.version().served_era() {
            Era::Legacy => code::RESOURCE_NOT_FOUND,
            Era::Modern => code::INVALID_PARAMS,
        };
        let data = |w: &mut JsonWriter<'_>| {
            w.raw(b"{\"uri\":");
            w.string(uri);
            w.byte(b'}');
        };
        self.out.fail(
            code,
            ErrorMessage::Whole(format_args!("Resource not found: {uri}", uri = Plain(uri))),
            Some(&data),
        );
        self.out.answered();
    }

    /// Answers with a JSON-RPC error.
    pub fn fail(mut self, code: i32, message: &str) {
        self.out.fail(code, ErrorMessage::Whole(format_args!("{message}", message = Plain(message))), None);
        self.out.answered();
    }

    /// Keeps the request open to answer it later with `Server::reply_resource`.
    pub fn defer(mut self) -> Result<Deferred, DeferError> {
        self.out.defer(ReplyKind::Resource)
    }
}
