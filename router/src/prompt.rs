//! Prompts as async functions ([`Router::prompt`]): typed arguments in, [`PromptMessages`] out.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use mcp_sansio::jsonrpc::code;
use mcp_sansio::mcp::Role;
use mcp_sansio::server::{PromptGet, PromptInfo, PromptReply};
use serde::de::DeserializeOwned;

use crate::Router;

/// What a prompt function gives: an optional description and the messages, each text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct PromptMessages {
    description: Option<String>,
    messages: Vec<(Role, String)>,
}

impl PromptMessages {
    /// No messages yet.
    pub fn new() -> Self {
        PromptMessages::default()
    }

    /// With `description` (the result's, which may differ from the listing's).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Adds a user message.
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push((Role::User, text.into()));
        self
    }

    /// Adds an assistant message.
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push((Role::Assistant, text.into()));
        self
    }

    fn write(self, reply: PromptReply<'_>) {
        let mut reply = match &self.description {
            Some(description) => reply.description(description),
            None => reply,
        };
        for (role, text) in &self.messages {
            reply = reply.text(*role, text);
        }
        reply.finish()
    }
}

impl Router {
    /// Registers the prompt `info` (its name, description and arguments as listed): `function` is
    /// called with the request's arguments read as an `A` (their names as in `info`; every
    /// argument of a prompt is a string) and its messages sent as the result. Arguments that do
    /// not read as an `A` are answered `-32602`, an `Err` of the function `-32603` with its text.
    pub fn prompt<A, F, Fut, E>(mut self, info: PromptInfo, function: F) -> Self
    where
        A: DeserializeOwned + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<PromptMessages, E>> + Send + 'static,
        E: fmt::Display + Send + 'static,
    {
        let shared = self.shared.clone();
        self.registry.add_prompt(info, move |get: PromptGet<'_>, reply: PromptReply<'_>| {
            let arguments = match read_arguments::<A>(&get) {
                Ok(arguments) => arguments,
                Err(error) => return reply.fail(code::INVALID_PARAMS, &format!("Invalid arguments: {error}")),
            };
            if shared.runtime.get().is_none() {
                return reply.fail(code::INTERNAL_ERROR, "the router has no runtime");
            }
            // No free slot: answered with an internal error already.
            let Ok(deferred) = reply.defer() else { return };
            let future = function(arguments);
            let future = async move { future.await.map_err(|error| error.to_string()) };
            shared.answer_later(Arc::new(deferred), future, |server, deferred, messages| {
                let reply = match server.reply_prompt(deferred) {
                    Ok(reply) => reply,
                    Err(error) => return Err((error, messages)),
                };
                match messages {
                    Ok(messages) => messages.write(reply),
                    Err(error) => reply.fail(code::INTERNAL_ERROR, &error),
                }
                Ok(())
            });
        });
        self
    }
}

/// The prompt's arguments as an `A` (absent: an empty object), or the error's text.
fn read_arguments<A: DeserializeOwned>(get: &PromptGet<'_>) -> Result<A, String> {
    let empty = mcp_sansio::json::parse(b"{}", 1).map_err(|error| error.to_string())?;
    mcp_sansio::json::from_value(get.arguments.unwrap_or(empty)).map_err(|error| error.to_string())
}
