//! The answer to `prompts/get`.

use crate::text::Plain;
use core::fmt;

use crate::json::JsonWriter;
use crate::jsonrpc::ErrorMessage;
use crate::mcp::{Annotations, Role};
use crate::server::reply::content::write_block;
use crate::server::reply::{Content, DeferError, Deferred, Outgoing, ReplyKind};
use crate::version::ProtocolVersion;

/// The answer to `prompts/get`: an optional description and the messages.
#[must_use = "a reply is sent by finishing it (`finish`, `fail`, `defer`, …); dropped, it answers with an internal error"]
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

    /// Opens a message: `{"role":…,"content":`.
    fn open_message(&mut self, role: Role) -> &mut JsonWriter<'a> {
        if self.messages_open {
            self.out.writer().byte(b',');
        } else {
            self.out.field("messages");
            self.out.writer().byte(b'[');
            self.messages_open = true;
        }
        let w = self.out.writer();
        w.raw(match role {
            Role::User => b"{\"role\":\"user\",\"content\":",
            Role::Assistant => b"{\"role\":\"assistant\",\"content\":",
        });
        w
    }

    fn open_text(&mut self, role: Role) -> &mut JsonWriter<'a> {
        let w = self.open_message(role);
        w.raw(b"{\"type\":\"text\",\"text\":");
        w
    }

    /// Adds a message with a content block of any kind (image, audio, resource link, embedded
    /// resource; see [`Content`] for blocks the version lacks).
    pub fn message(self, role: Role, content: Content<'_>) -> Self {
        self.message_annotated(role, content, &Annotations::NONE)
    }

    /// Adds a message with an annotated content block.
    pub fn message_annotated(mut self, role: Role, content: Content<'_>, annotations: &Annotations<'_>) -> Self {
        let version = self.out.version();
        let w = self.open_message(role);
        write_block(w, &content, annotations, version);
        w.byte(b'}');
        self
    }

    note_methods!();

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
            self.out.writer().byte(b'[');
        }
        self.out.writer().byte(b']');
        self.out.finish(None);
        self.out.answered();
    }

    /// Answers with a JSON-RPC error.
    pub fn fail(mut self, code: i32, message: &str) {
        self.out.fail(code, ErrorMessage::Whole(format_args!("{message}", message = Plain(message))), None);
        self.out.answered();
    }

    /// Keeps the request open to answer it later with `Server::reply_prompt`.
    pub fn defer(mut self) -> Result<Deferred, DeferError> {
        self.out.defer(ReplyKind::Prompt)
    }
}
