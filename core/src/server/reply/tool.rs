//! The answer to `tools/call`.

use crate::text::Plain;
use core::fmt;

use serde::Serialize;

use crate::json::{JsonStr, JsonWriter};
use crate::jsonrpc::{ErrorMessage, code};
use crate::mcp::{Annotations, Resource};
use crate::server::reply::content::{ResourceContents, write_block};
use crate::server::reply::{Content, DeferError, Deferred, Outgoing, ReplyKind};
use crate::version::{Era, ProtocolVersion};

/// The answer to `tools/call`: content blocks, optional structured content, and the error flag.
#[must_use = "a reply is sent by finishing it (`finish`, `fail`, `defer`, …); dropped, it answers with an internal error"]
pub struct ToolReply<'a> {
    out: Outgoing<'a>,
    content_open: bool,
    misordered: bool,
    /// Structured content that is not the JSON its era allows.
    invalid: bool,
}

impl<'a> ToolReply<'a> {
    pub(crate) fn new(out: Outgoing<'a>) -> Self {
        ToolReply { out, content_open: false, misordered: false, invalid: false }
    }

    /// The protocol version the answer is written for.
    pub fn version(&self) -> ProtocolVersion {
        self.out.version()
    }

    /// Makes the call a task ([`tasks`](crate::server::tasks): a 2026-07-28 request that declared
    /// the extension, or a 2025-11-25 one that asked with `params.task`): the client's request is answered
    /// with the task as soon as this reply is finished or [deferred](Self::defer), and what the
    /// reply says becomes the task's outcome. `Err` (the reply unchanged) when the request cannot
    /// become one ([`NoTask`](crate::server::tasks::NoTask)): answer it as a plain call, or with
    /// [`missing_tasks`](Self::missing_tasks). A reply that is a task's already (a task run again
    /// after its input) stays one. Call it before writing anything.
    ///
    /// ```
    /// # use mcp_sansio::server::{ToolCall, ToolReply};
    /// fn slow(call: ToolCall<'_>, mut reply: ToolReply<'_>) {
    ///     match reply.run_as_task() {
    ///         // Answered with the task now; its result comes later through `Engine::reply_tool`.
    ///         Ok(()) => drop(reply.defer()),
    ///         Err(_) => reply.text("done at once").finish(),
    ///     }
    /// }
    /// ```
    #[cfg(feature = "tasks")]
    pub fn run_as_task(&mut self) -> Result<(), crate::server::tasks::NoTask> {
        self.out.make_task()
    }

    /// Answers a call that runs only as a task and cannot become one, as `why` says: `-32021`
    /// naming the tasks extension when the request cannot have one ([`NoTask::Unavailable`]),
    /// `-32603` "Server busy: the task table is full" when the table is ([`NoTask::Full`]; the
    /// tasks it keeps are untouched).
    ///
    /// [`NoTask::Unavailable`]: crate::server::tasks::NoTask::Unavailable
    /// [`NoTask::Full`]: crate::server::tasks::NoTask::Full
    #[cfg(feature = "tasks")]
    pub fn refuse_task(self, why: crate::server::tasks::NoTask) {
        match why {
            crate::server::tasks::NoTask::Full => {
                self.fail(code::INTERNAL_ERROR, "Server busy: the task table is full")
            }
            _ => self.missing_tasks(),
        }
    }

    /// Answers `-32021`: the call runs only as a task, and the client did not declare the tasks
    /// extension (`data.requiredCapabilities` names it); in 2025-11-25, `-32601`: the call did not
    /// ask for a task (`params.task`).
    #[cfg(feature = "tasks")]
    pub fn missing_tasks(mut self) {
        if self.out.version().served_era() == crate::version::Era::Legacy {
            let why = crate::server::tasks::TASK_PARAM_REQUIRED;
            self.out.fail(code::METHOD_NOT_FOUND, ErrorMessage::Named(format_args!("{why}", why = Plain(why))), None);
        } else {
            self.out.fail(
                code::MISSING_CLIENT_CAPABILITY,
                ErrorMessage::Whole(format_args!(
                    "Missing required client capability: the {} extension",
                    crate::mcp::TASKS_EXTENSION
                )),
                Some(&crate::mcp::task::write_requires_tasks),
            );
        }
        self.out.answered();
    }

    fn next_block(&mut self) -> &mut JsonWriter<'a> {
        if self.content_open {
            self.out.writer().byte(b',');
        } else {
            self.out.field("content");
            self.out.writer().byte(b'[');
            self.content_open = true;
        }
        self.out.writer()
    }

    /// Adds a text content block.
    #[inline(always)] // By value in the API, in place here: no copy of the reply per step.
    pub fn text(mut self, text: &str) -> Self {
        self.push_text(text);
        self
    }

    fn push_text(&mut self, text: &str) {
        let w = self.next_block();
        w.raw(b"{\"type\":\"text\",\"text\":");
        w.string(text);
        w.byte(b'}');
    }

    /// Adds a text content block formatted in place (`format_args!`), without a buffer.
    #[inline(always)]
    pub fn text_fmt(mut self, text: fmt::Arguments<'_>) -> Self {
        self.push_text_fmt(text);
        self
    }

    fn push_text_fmt(&mut self, text: fmt::Arguments<'_>) {
        let w = self.next_block();
        w.raw(b"{\"type\":\"text\",\"text\":");
        w.string_fmt(text);
        w.byte(b'}');
    }

    /// Adds a text content block copied from a string of the request, still escaped (zero copy).
    #[inline(always)]
    pub fn text_json(mut self, text: JsonStr<'_>) -> Self {
        self.push_text_json(text);
        self
    }

    fn push_text_json(&mut self, text: JsonStr<'_>) {
        let w = self.next_block();
        w.raw(b"{\"type\":\"text\",\"text\":");
        w.json_str(text);
        w.byte(b'}');
    }

    /// Adds an image content block; `data` is base64-encoded on the fly.
    pub fn image(self, mime_type: &str, data: &[u8]) -> Self {
        self.content(Content::Image { data, mime_type })
    }

    /// Adds an audio content block; `data` is base64-encoded on the fly.
    pub fn audio(self, mime_type: &str, data: &[u8]) -> Self {
        self.content(Content::Audio { data, mime_type })
    }

    /// Adds a link to a resource.
    pub fn resource_link(self, resource: &Resource<'_>) -> Self {
        self.content(Content::ResourceLink(resource))
    }

    /// Adds an embedded resource.
    pub fn embedded(self, contents: ResourceContents<'_>) -> Self {
        self.content(Content::Resource(contents))
    }

    /// Adds a content block of any kind (see [`Content`] for blocks the version lacks).
    pub fn content(self, content: Content<'_>) -> Self {
        self.annotated(content, &Annotations::NONE)
    }

    /// Adds a content block with annotations.
    pub fn annotated(mut self, content: Content<'_>, annotations: &Annotations<'_>) -> Self {
        let version = self.out.version();
        let w = self.next_block();
        write_block(w, &content, annotations, version);
        self
    }

    note_methods!();

    /// Sets the structured result, serialized as JSON
    /// ([`JsonWriter::serialize`](crate::json::JsonWriter::serialize)), and adds its JSON text as a
    /// text block (as the spec recommends, and the only form before 2025-06-18). Must come before any
    /// other content block; otherwise the reply becomes an internal error. `structuredContent` is an
    /// object in the legacy era: pass a struct or map there.
    #[inline(always)]
    pub fn structured<T: Serialize + ?Sized>(mut self, value: &T) -> Self {
        self.set_structured_with(&|w, as_text| match as_text {
            false => w.serialize(value),
            true => w.serialize_as_string(value),
        });
        self
    }

    /// Sets the structured result from JSON text formatted in place, without serde (for firmware that
    /// counts its flash): `reply.structured_fmt(format_args!(r#"{{"on":{on}}}"#, on = Plain(on)))`. Otherwise as
    /// [`structured`](Self::structured). The text must be one JSON value, an object in the legacy
    /// era ([`JsonWriter::json_fmt`] checks it); for anything else the reply becomes an internal
    /// error.
    #[inline(always)]
    pub fn structured_fmt(mut self, json: fmt::Arguments<'_>) -> Self {
        self.set_structured_fmt(json);
        self
    }

    fn set_structured_fmt(&mut self, json: fmt::Arguments<'_>) {
        let object_only = self.out.version().served_era() == Era::Legacy;
        let w = self.out.writer();
        // Checked in the space past the end, then taken back; a writer already overflowed (the
        // result's head did not fit) stays so: `truncate` would clear that.
        let valid = w.is_overflowed() || {
            let end = w.len();
            let valid = w.json_fmt(json, object_only);
            w.truncate(end);
            valid
        };
        if !valid {
            self.invalid = true;
            return;
        }
        self.set_structured_with(&|w, as_text| match as_text {
            // Checked above: only a `Display` that changes its mind fails here.
            false => {
                if !w.json_fmt(json, object_only) {
                    w.set_overflowed();
                }
            }
            true => w.string_fmt(json),
        })
    }

    /// [`structured`](Self::structured) with the value's writer (as JSON, or as a JSON string when
    /// `as_text`): only that part is generic over the value's type.
    fn set_structured_with(&mut self, write: &dyn Fn(&mut JsonWriter<'a>, bool)) {
        if self.content_open {
            self.misordered = true;
            return;
        }
        if self.out.version().has_structured_content() {
            self.out.field("structuredContent");
            write(self.out.writer(), false);
        }
        let w = self.next_block();
        w.raw(b"{\"type\":\"text\",\"text\":");
        write(w, true);
        w.byte(b'}');
    }

    fn close(&mut self, is_error: bool) {
        if self.misordered {
            self.out.fail(
                code::INTERNAL_ERROR,
                ErrorMessage::Named(format_args!("structured content must precede other content blocks")),
                None,
            );
            return;
        }
        if self.invalid {
            let expected = if self.out.version().served_era() == Era::Legacy { "a JSON object" } else { "JSON" };
            self.out.fail(
                code::INTERNAL_ERROR,
                ErrorMessage::Named(format_args!("structured content is not {expected}", expected = Plain(expected))),
                None,
            );
            return;
        }
        if !self.content_open {
            self.next_block();
        }
        self.out.writer().byte(b']');
        if is_error {
            self.out.field("isError");
            self.out.writer().bool(true);
        }
        self.out.finish(None);
    }

    /// Sends the result.
    #[inline(always)]
    pub fn finish(mut self) {
        self.close(false);
        self.out.answered();
    }

    /// Sends the result marked `isError: true`: the tool ran and failed (bad arguments, a device
    /// error). The model sees it and can correct itself.
    #[inline(always)]
    pub fn finish_error(mut self) {
        self.close(true);
        self.out.answered();
    }

    /// Sends an `isError` result with one text block.
    #[inline(always)]
    pub fn finish_error_text(mut self, message: &str) {
        self.close_with_text(message, true);
        self.out.answered();
    }

    /// Adds a text content block and sends the result: `reply.text(text).finish()` in one call,
    /// which is less code at each place a handler answers (see docs/firmware.md, "Flash: constant
    /// images and finished replies").
    #[inline(always)]
    pub fn finish_text(mut self, text: &str) {
        self.close_with_text(text, false);
        self.out.answered();
    }

    /// Adds a text content block formatted in place and sends the result:
    /// `reply.text_fmt(text).finish()` in one call, as [`finish_text`](Self::finish_text).
    #[inline(always)]
    pub fn finish_text_fmt(mut self, text: fmt::Arguments<'_>) {
        self.close_with_text_fmt(text);
        self.out.answered();
    }

    /// [`finish_text_fmt`](Self::finish_text_fmt) in place.
    fn close_with_text_fmt(&mut self, text: fmt::Arguments<'_>) {
        self.push_text_fmt(text);
        self.close(false);
    }

    /// [`finish_text`](Self::finish_text) and [`finish_error_text`](Self::finish_error_text) in
    /// place: one call where a handler answers.
    fn close_with_text(&mut self, text: &str, is_error: bool) {
        self.push_text(text);
        self.close(is_error);
    }

    /// Answers a call whose arguments do not match the tool's input schema
    /// ([`ToolCall::arguments`](crate::server::ToolCall::arguments) failed with `error`) as its
    /// version prescribes: from 2025-11-25 a tool execution error (`isError: true`, one text block
    /// `Invalid arguments: <error>` naming the field, so that the model can correct itself), before
    /// it the protocol error `-32602` with that message
    /// ([`reports_invalid_arguments_in_results`](ProtocolVersion::reports_invalid_arguments_in_results)).
    pub fn invalid_arguments(mut self, error: &dyn fmt::Display) {
        if self.version().reports_invalid_arguments_in_results() {
            self.push_text_fmt(format_args!("Invalid arguments: {error}"));
            self.close(true);
        } else {
            let message = ErrorMessage::Whole(format_args!("Invalid arguments: {error}"));
            self.out.fail(code::INVALID_PARAMS, message, None);
        }
        self.out.answered();
    }

    /// Answers with a JSON-RPC error instead of a result (for protocol-level failures only).
    pub fn fail(mut self, code: i32, message: &str) {
        self.out.fail(code, ErrorMessage::Whole(format_args!("{message}", message = Plain(message))), None);
        self.out.answered();
    }

    /// Keeps the request open to answer it later with `Server::reply_tool`. On error the request has
    /// already been answered with an internal error.
    pub fn defer(mut self) -> Result<Deferred, DeferError> {
        self.out.defer(ReplyKind::Tool)
    }
}
