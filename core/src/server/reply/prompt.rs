//! The answer to `prompts/get`.

use core::fmt;

use crate::json::JsonWriter;
use crate::server::reply::{DeferError, Deferred, Outgoing, ReplyKind};
use crate::version::ProtocolVersion;

/// Who speaks a prompt message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

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
