//! Replies: writers that put an answer straight into the transmit buffer.
//!
//! A reply is handed to the handler with the JSON-RPC envelope already open. Whatever the handler
//! writes goes into a window of the transmit buffer; [`finish`](ToolReply::finish) closes the message
//! and commits it in one step. If the message does not fit its window, nothing of it is committed and
//! the client gets a `-32603` error instead, so the output stream never holds a partial message. A reply
//! dropped without an answer is answered with an internal error: every request is answered exactly once.

use core::fmt;

use serde::Serialize;

use crate::json::{JsonStr, JsonWriter};
use crate::jsonrpc::{Id, MAX_ID_LEN, OwnedId, WriteId, code, write_error_head, write_result_head};
use crate::server::handler::Implementation;
use crate::version::{Era, ProtocolVersion};

/// How long a client may cache a result, and who may share the cached copy (2026-07-28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheHints {
    /// Time to live in milliseconds (0: do not reuse).
    pub ttl_ms: u64,
    /// Who may share the cached result.
    pub scope: CacheScope,
}

/// `cacheScope` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheScope {
    /// Holds no user-specific data; shared caches may keep it.
    Public,
    /// Reusable only within the same authorization context.
    Private,
}

impl CacheScope {
    fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// What a deferred request will be answered with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ReplyKind {
    /// A `tools/call` result.
    Tool,
    /// A `resources/read` result.
    Resource,
    /// A `prompts/get` result.
    Prompt,
}

/// A request kept open past its frame (see [`ToolReply::defer`]).
#[derive(Clone, Debug)]
pub(crate) struct InFlight {
    pub(crate) id: OwnedId,
    pub(crate) kind: ReplyKind,
    pub(crate) version: ProtocolVersion,
    pub(crate) generation: u32,
    pub(crate) cancelled: bool,
}

/// A handle to a deferred request: answer it with `Server::reply_tool`, `reply_resource` or
/// `reply_prompt`. Not `Clone`: a request is answered once.
#[derive(Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Deferred {
    pub(crate) slot: u16,
    pub(crate) generation: u32,
    pub(crate) kind: ReplyKind,
}

impl Deferred {
    /// What the request must be answered with.
    pub fn kind(&self) -> ReplyKind {
        self.kind
    }

    /// A copyable name for this request, to match it against [`crate::server::Event::Cancelled`].
    pub fn key(&self) -> DeferredKey {
        DeferredKey { slot: self.slot, generation: self.generation }
    }
}

/// Identifies a deferred request in events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DeferredKey {
    slot: u16,
    generation: u32,
}

/// Why a request could not be deferred. It has been answered with an internal error already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum DeferError {
    /// All in-flight slots are taken (see `Server`'s `IN_FLIGHT` parameter).
    TooManyInFlight,
    /// The request id is longer than [`MAX_ID_LEN`] bytes.
    IdTooLong,
    /// Deferral is not available here (a reply that was itself deferred).
    NotDeferrable,
}

/// Why a deferred request cannot be answered now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ReplyError {
    /// The client cancelled it; the answer is suppressed and the handle is spent.
    Cancelled,
    /// The transmit buffer lacks room for a full answer: transmit, then try again (the handle is
    /// returned unharmed inside the error's owner, see `Server::reply_tool`).
    Busy,
    /// The handle does not belong to a pending request of this kind (answered already, or wrong kind).
    Unknown,
}

/// The id a reply answers: borrowed from the frame, or kept from a deferral.
pub(crate) enum ReplyId<'a> {
    Borrowed(Id<'a>),
    Owned(OwnedId),
}

impl WriteId for ReplyId<'_> {
    fn write_id(&self, w: &mut JsonWriter<'_>) {
        match self {
            ReplyId::Borrowed(id) => id.write(w),
            ReplyId::Owned(id) => id.write(w),
        }
    }
}

/// Where deferred requests are registered.
pub(crate) struct DeferSlots<'a> {
    pub(crate) slots: &'a mut [Option<InFlight>],
    pub(crate) next_generation: &'a mut u32,
}

/// The shared machinery of every reply: an open result object in a transmit window.
pub(crate) struct Outgoing<'a> {
    w: JsonWriter<'a>,
    committed: &'a mut usize,
    id: ReplyId<'a>,
    version: ProtocolVersion,
    server_info: &'a Implementation<'a>,
    defer_slots: Option<DeferSlots<'a>>,
    first_field: bool,
    done: bool,
}

impl<'a> Outgoing<'a> {
    /// Opens `{"jsonrpc":"2.0","id":…,"result":{` in `window`; `committed` is advanced by the message
    /// length (ending in a newline) when it is finished.
    pub(crate) fn open(
        window: &'a mut [u8],
        committed: &'a mut usize,
        id: ReplyId<'a>,
        version: ProtocolVersion,
        server_info: &'a Implementation<'a>,
        defer_slots: Option<DeferSlots<'a>>,
    ) -> Self {
        let mut out = Outgoing {
            w: JsonWriter::new(window),
            committed,
            id,
            version,
            server_info,
            defer_slots,
            first_field: true,
            done: false,
        };
        write_result_head(&mut out.w, &out.id);
        out.w.raw(b"{");
        out
    }

    pub(crate) fn version(&self) -> ProtocolVersion {
        self.version
    }

    pub(crate) fn writer(&mut self) -> &mut JsonWriter<'a> {
        &mut self.w
    }

    /// Starts the member `name` of the result object.
    pub(crate) fn field(&mut self, name: &str) {
        if !self.first_field {
            self.w.raw(b",");
        }
        self.first_field = false;
        self.w.string(name);
        self.w.raw(b":");
    }

    /// Closes the result (adding the modern era's `resultType`, cache hints and `_meta.serverInfo`) and
    /// commits it; a result that overflowed its window becomes a `-32603` error.
    pub(crate) fn finish(&mut self, cache: Option<CacheHints>) {
        if self.version.era() == Era::Modern {
            self.field("resultType");
            self.w.string("complete");
            if let Some(cache) = cache {
                self.field("ttlMs");
                self.w.u64(cache.ttl_ms);
                self.field("cacheScope");
                self.w.string(cache.scope.as_str());
            }
            self.field("_meta");
            self.w.raw(b"{\"io.modelcontextprotocol/serverInfo\":");
            write_implementation(&mut self.w, self.server_info, true);
            self.w.raw(b"}");
        }
        // The newline is part of the message: a result that fits only without it does not fit.
        self.w.raw(b"}}\n");
        if self.w.is_overflowed() {
            let capacity = self.w.capacity();
            self.fail(
                code::INTERNAL_ERROR,
                format_args!("Internal error: the result does not fit the {capacity}-byte transmit window"),
                None,
            );
            return;
        }
        self.commit();
    }

    /// Replaces whatever was written by an error response and commits it.
    pub(crate) fn fail(&mut self, code: i32, message: fmt::Arguments<'_>, data: Option<&dyn Fn(&mut JsonWriter<'_>)>) {
        self.w.truncate(0);
        write_error_head(&mut self.w, Some(&self.id), code, message);
        if let Some(data) = data {
            self.w.raw(b",\"data\":");
            data(&mut self.w);
        }
        self.w.raw(b"}}\n");
        // The error does not fit: a short one with the id, or, if not even that fits (a huge id in a
        // tiny window), without the id.
        let id: &dyn WriteId = &self.id;
        for fallback_id in [Some(id), None] {
            if self.w.is_overflowed() {
                self.w.truncate(0);
                write_error_head(
                    &mut self.w,
                    fallback_id,
                    code::INTERNAL_ERROR,
                    format_args!("Internal error: response too large"),
                );
                self.w.raw(b"}}\n");
            }
        }
        self.commit();
    }

    /// Commits the message written, which ends with its newline.
    fn commit(&mut self) {
        if !self.w.is_overflowed() {
            *self.committed += self.w.len();
        }
        self.done = true;
    }

    /// Registers the request as in flight and closes this writer without output.
    pub(crate) fn defer(&mut self, kind: ReplyKind) -> Result<Deferred, DeferError> {
        let result = self.register(kind);
        match result {
            Ok(_) => {
                self.w.truncate(0);
                self.done = true;
            }
            Err(DeferError::TooManyInFlight) => {
                self.fail(code::INTERNAL_ERROR, format_args!("Server busy: too many requests in flight"), None)
            }
            Err(DeferError::IdTooLong) => self.fail(
                code::INTERNAL_ERROR,
                format_args!("Internal error: request ids longer than {MAX_ID_LEN} bytes cannot be answered later"),
                None,
            ),
            Err(DeferError::NotDeferrable) => {
                self.fail(code::INTERNAL_ERROR, format_args!("Internal error: reply deferred twice"), None)
            }
        }
        result
    }

    fn register(&mut self, kind: ReplyKind) -> Result<Deferred, DeferError> {
        let version = self.version;
        let Some(defer) = self.defer_slots.as_mut() else {
            return Err(DeferError::NotDeferrable);
        };
        let ReplyId::Borrowed(id) = &self.id else {
            return Err(DeferError::NotDeferrable);
        };
        let id = OwnedId::from_id(*id).ok_or(DeferError::IdTooLong)?;
        let (slot, entry) =
            defer.slots.iter_mut().enumerate().find(|(_, s)| s.is_none()).ok_or(DeferError::TooManyInFlight)?;
        let slot = u16::try_from(slot).map_err(|_| DeferError::TooManyInFlight)?;
        let generation = *defer.next_generation;
        *defer.next_generation = generation.wrapping_add(1);
        *entry = Some(InFlight { id, kind, version, generation, cancelled: false });
        Ok(Deferred { slot, generation, kind })
    }
}

impl Drop for Outgoing<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.fail(code::INTERNAL_ERROR, format_args!("Internal error: the handler did not answer"), None);
        }
    }
}

/// Writes an `Implementation` object (`title` only where the version has titles).
pub(crate) fn write_implementation(w: &mut JsonWriter<'_>, info: &Implementation<'_>, with_title: bool) {
    w.raw(b"{\"name\":");
    w.string(info.name);
    w.raw(b",\"version\":");
    w.string(info.version);
    if let (Some(title), true) = (info.title, with_title) {
        w.raw(b",\"title\":");
        w.string(title);
    }
    w.raw(b"}");
}

/// The answer to `tools/call`: content blocks, optional structured content, and the error flag.
pub struct ToolReply<'a> {
    out: Outgoing<'a>,
    content_open: bool,
    misordered: bool,
}

impl<'a> ToolReply<'a> {
    pub(crate) fn new(out: Outgoing<'a>) -> Self {
        ToolReply { out, content_open: false, misordered: false }
    }

    /// The protocol version the answer is written for.
    pub fn version(&self) -> ProtocolVersion {
        self.out.version()
    }

    fn next_block(&mut self) -> &mut JsonWriter<'a> {
        if self.content_open {
            self.out.writer().raw(b",");
        } else {
            self.out.field("content");
            self.out.writer().raw(b"[");
            self.content_open = true;
        }
        self.out.writer()
    }

    /// Adds a text content block.
    pub fn text(mut self, text: &str) -> Self {
        let w = self.next_block();
        w.raw(b"{\"type\":\"text\",\"text\":");
        w.string(text);
        w.raw(b"}");
        self
    }

    /// Adds a text content block formatted in place (`format_args!`), without a buffer.
    pub fn text_fmt(mut self, text: fmt::Arguments<'_>) -> Self {
        let w = self.next_block();
        w.raw(b"{\"type\":\"text\",\"text\":");
        w.string_fmt(text);
        w.raw(b"}");
        self
    }

    /// Adds a text content block copied from a string of the request, still escaped (zero copy).
    pub fn text_json(mut self, text: JsonStr<'_>) -> Self {
        let w = self.next_block();
        w.raw(b"{\"type\":\"text\",\"text\":");
        w.json_str(text);
        w.raw(b"}");
        self
    }

    /// Adds an image content block; `data` is base64-encoded on the fly.
    pub fn image(mut self, mime_type: &str, data: &[u8]) -> Self {
        let w = self.next_block();
        w.raw(b"{\"type\":\"image\",\"data\":");
        w.base64_string(data);
        w.raw(b",\"mimeType\":");
        w.string(mime_type);
        w.raw(b"}");
        self
    }

    /// Sets the structured result, serialized with serde-json-core, and adds its JSON text as a text
    /// block (as the spec recommends, and the only form before 2025-06-18). Must come before any other
    /// content block; otherwise the reply becomes an internal error. `structuredContent` is an object
    /// in the legacy era: pass a struct or map there.
    pub fn structured<T: Serialize + ?Sized>(mut self, value: &T) -> Self {
        if self.content_open {
            self.misordered = true;
            return self;
        }
        if self.out.version().has_structured_content() {
            self.out.field("structuredContent");
            self.out.writer().serialize(value);
        }
        let w = self.next_block();
        w.raw(b"{\"type\":\"text\",\"text\":");
        w.serialize_as_string(value);
        w.raw(b"}");
        self
    }

    fn close(mut self, is_error: bool) {
        if self.misordered {
            self.out.fail(
                code::INTERNAL_ERROR,
                format_args!("Internal error: structured content must precede other content blocks"),
                None,
            );
            return;
        }
        if !self.content_open {
            self.next_block();
        }
        self.out.writer().raw(b"]");
        if is_error {
            self.out.field("isError");
            self.out.writer().bool(true);
        }
        self.out.finish(None);
    }

    /// Sends the result.
    pub fn finish(self) {
        self.close(false)
    }

    /// Sends the result marked `isError: true`: the tool ran and failed (bad arguments, a device
    /// error). The model sees it and can correct itself.
    pub fn finish_error(self) {
        self.close(true)
    }

    /// Sends an `isError` result with one text block.
    pub fn finish_error_text(self, message: &str) {
        self.text(message).close(true)
    }

    /// Answers with a JSON-RPC error instead of a result (for protocol-level failures only).
    pub fn fail(mut self, code: i32, message: &str) {
        self.out.fail(code, format_args!("{message}"), None)
    }

    /// Keeps the request open to answer it later with `Server::reply_tool`. On error the request has
    /// already been answered with an internal error.
    pub fn defer(mut self) -> Result<Deferred, DeferError> {
        self.out.defer(ReplyKind::Tool)
    }
}

/// The answer to `resources/read`: one or more contents.
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
            self.out.writer().raw(b",");
        } else {
            self.out.field("contents");
            self.out.writer().raw(b"[");
            self.contents_open = true;
        }
        let w = self.out.writer();
        w.raw(b"{\"uri\":");
        w.string(uri);
        if let Some(mime_type) = mime_type {
            w.raw(b",\"mimeType\":");
            w.string(mime_type);
        }
        w
    }

    /// Adds text contents.
    pub fn text(mut self, uri: &str, mime_type: Option<&str>, text: &str) -> Self {
        let w = self.next_contents(uri, mime_type);
        w.raw(b",\"text\":");
        w.string(text);
        w.raw(b"}");
        self
    }

    /// Adds text contents formatted in place (`format_args!`).
    pub fn text_fmt(mut self, uri: &str, mime_type: Option<&str>, text: fmt::Arguments<'_>) -> Self {
        let w = self.next_contents(uri, mime_type);
        w.raw(b",\"text\":");
        w.string_fmt(text);
        w.raw(b"}");
        self
    }

    /// Adds text contents holding a value serialized as JSON with serde-json-core.
    pub fn json<T: Serialize + ?Sized>(mut self, uri: &str, value: &T) -> Self {
        let w = self.next_contents(uri, Some("application/json"));
        w.raw(b",\"text\":");
        w.serialize_as_string(value);
        w.raw(b"}");
        self
    }

    /// Adds binary contents, base64-encoded on the fly.
    pub fn blob(mut self, uri: &str, mime_type: Option<&str>, data: &[u8]) -> Self {
        let w = self.next_contents(uri, mime_type);
        w.raw(b",\"blob\":");
        w.base64_string(data);
        w.raw(b"}");
        self
    }

    /// Sets the cache hints of this result (2026-07-28); the server's default applies otherwise.
    pub fn cache(mut self, cache: CacheHints) -> Self {
        self.cache = cache;
        self
    }

    /// Sends the result.
    pub fn finish(mut self) {
        if !self.contents_open {
            self.out.fail(code::INTERNAL_ERROR, format_args!("Internal error: empty resource contents"), None);
            return;
        }
        self.out.writer().raw(b"]");
        let cache = self.cache;
        self.out.finish(Some(cache));
    }

    /// Answers that `uri` does not exist: `-32002` in the legacy era, `-32602` with `data.uri` in
    /// 2026-07-28.
    pub fn not_found(mut self, uri: &str) {
        let code = match self.out.version().era() {
            Era::Legacy => code::RESOURCE_NOT_FOUND,
            Era::Modern => code::INVALID_PARAMS,
        };
        let data = |w: &mut JsonWriter<'_>| {
            w.raw(b"{\"uri\":");
            w.string(uri);
            w.raw(b"}");
        };
        self.out.fail(code, format_args!("Resource not found: {uri}"), Some(&data));
    }

    /// Answers with a JSON-RPC error.
    pub fn fail(mut self, code: i32, message: &str) {
        self.out.fail(code, format_args!("{message}"), None)
    }

    /// Keeps the request open to answer it later with `Server::reply_resource`.
    pub fn defer(mut self) -> Result<Deferred, DeferError> {
        self.out.defer(ReplyKind::Resource)
    }
}

/// Who speaks a prompt message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// The answer to `prompts/get`: an optional description and the messages.
pub struct PromptReply<'a> {
    out: Outgoing<'a>,
    messages_open: bool,
}

impl<'a> PromptReply<'a> {
    pub(crate) fn new(out: Outgoing<'a>) -> Self {
        PromptReply { out, messages_open: false }
    }

    /// The protocol version the answer is written for.
    pub fn version(&self) -> ProtocolVersion {
        self.out.version()
    }

    /// Sets the description; ignored once a message was added.
    pub fn description(mut self, description: &str) -> Self {
        if !self.messages_open {
            self.out.field("description");
            self.out.writer().string(description);
        }
        self
    }

    fn open_text(&mut self, role: Role) -> &mut JsonWriter<'a> {
        if self.messages_open {
            self.out.writer().raw(b",");
        } else {
            self.out.field("messages");
            self.out.writer().raw(b"[");
            self.messages_open = true;
        }
        let w = self.out.writer();
        w.raw(match role {
            Role::User => b"{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":",
            Role::Assistant => b"{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":",
        });
        w
    }

    /// Adds a text message.
    pub fn text(mut self, role: Role, text: &str) -> Self {
        let w = self.open_text(role);
        w.string(text);
        w.raw(b"}}");
        self
    }

    /// Adds a text message formatted in place (`format_args!`).
    pub fn text_fmt(mut self, role: Role, text: fmt::Arguments<'_>) -> Self {
        let w = self.open_text(role);
        w.string_fmt(text);
        w.raw(b"}}");
        self
    }

    /// Sends the result.
    pub fn finish(mut self) {
        if !self.messages_open {
            self.out.field("messages");
            self.out.writer().raw(b"[");
        }
        self.out.writer().raw(b"]");
        self.out.finish(None);
    }

    /// Answers with a JSON-RPC error.
    pub fn fail(mut self, code: i32, message: &str) {
        self.out.fail(code, format_args!("{message}"), None)
    }

    /// Keeps the request open to answer it later with `Server::reply_prompt`.
    pub fn defer(mut self) -> Result<Deferred, DeferError> {
        self.out.defer(ReplyKind::Prompt)
    }
}
