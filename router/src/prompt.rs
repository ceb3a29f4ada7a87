//! Prompts as async functions ([`Router::prompt`], [`Router::typed_prompt`], and their
//! `_with_context` forms taking the request's [`Context`]): typed arguments in, [`PromptMessages`]
//! out.

use std::collections::HashSet;
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};

use mcp_sansio::jsonrpc::code;
use mcp_sansio::mcp::Role;
use mcp_sansio::server::{PromptArgument, PromptGet, PromptInfo, PromptReply};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::{Context, Router};

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

/// What a prompt function returns: [`PromptMessages`], or a `Result` of them whose `Err` is
/// answered `-32603` with its text.
pub trait PromptOutput: Send + 'static {
    /// The messages, or the error's text.
    fn into_messages(self) -> Result<PromptMessages, String>;
}

impl PromptOutput for PromptMessages {
    fn into_messages(self) -> Result<PromptMessages, String> {
        Ok(self)
    }
}

impl<T: PromptOutput, E: fmt::Display + Send + 'static> PromptOutput for Result<T, E> {
    fn into_messages(self) -> Result<PromptMessages, String> {
        self.map_err(|error| error.to_string())?.into_messages()
    }
}

impl Router {
    /// Registers the prompt `info` (its name, description and arguments as listed): `function` is
    /// called with the request's arguments read as an `A` (their names as in `info`; every
    /// argument of a prompt is a string) and its messages sent as the result. Arguments that do
    /// not read as an `A` are answered `-32602`, an `Err` of the function `-32603` with its text.
    pub fn prompt<A, F, Fut, R>(self, info: PromptInfo, function: F) -> Self
    where
        A: DeserializeOwned + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: PromptOutput,
    {
        self.prompt_with_context(info, move |arguments: A, _: Context| function(arguments))
    }

    /// [`Router::prompt`] whose function also gets the request's [`Context`]: progress, log
    /// messages, and questions to the client ([`Context::elicit`], …), in both eras as for tools
    /// (see [`input`](crate::input)).
    pub fn prompt_with_context<A, F, Fut, R>(mut self, info: PromptInfo, function: F) -> Self
    where
        A: DeserializeOwned + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: PromptOutput,
    {
        let shared = self.shared.clone();
        self.registry.add_prompt(info, move |get: PromptGet<'_>, reply: PromptReply<'_>| {
            let arguments = match read_arguments::<A>(&get) {
                Ok(arguments) => arguments,
                Err(error) => return reply.fail(code::INVALID_PARAMS, &format!("Invalid arguments: {error}")),
            };
            let Some(runtime) = shared.runtime.get() else {
                return reply.fail(code::INTERNAL_ERROR, "the router has no runtime");
            };
            let input = Arc::new(crate::input::Input::new(&get.context));
            // No free slot: answered with an internal error already.
            let Ok(deferred) = reply.defer() else { return };
            let deferred = Arc::new(deferred);
            let future = function(arguments, shared.context(runtime, &input, &deferred));
            let future = async move { future.await.into_messages() };
            let input = Some((input, get.name.to_owned()));
            shared.run(
                deferred,
                future,
                |server, deferred, messages| {
                    let reply = match server.reply_prompt(deferred) {
                        Ok(reply) => reply,
                        Err(error) => return Err((error, messages)),
                    };
                    match messages {
                        Ok(messages) => messages.write(reply),
                        Err(error) => reply.fail(code::INTERNAL_ERROR, &error),
                    }
                    Ok(())
                },
                input,
            );
        });
        self
    }
}

impl Router {
    /// [`Router::prompt`] whose listed arguments are read from `A`'s schema (generated with
    /// schemars): one argument per property, its doc comment the description, required unless
    /// it is an `Option` or has a default. They are listed in the schema's order (by name). The
    /// fields of `A` are strings (`String`, `Option<String>`): every argument of a prompt is one.
    ///
    /// The core lists prompt arguments by `&'static str`: each distinct name and description is
    /// leaked once for the life of the program (registering the same prompt again adds nothing).
    ///
    /// ```
    /// use mcp_sansio_router::{PromptMessages, Router};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Review {
    ///     /// The code to review.
    ///     code: String,
    ///     /// What to look for.
    ///     focus: Option<String>,
    /// }
    ///
    /// let router = Router::new().typed_prompt("review", "Reviews code", |Review { code, focus }| async move {
    ///     let focus = focus.unwrap_or_else(|| "bugs".into());
    ///     PromptMessages::new().user(format!("Look for {focus} in:\n{code}"))
    /// });
    /// ```
    pub fn typed_prompt<A, F, Fut, R>(self, name: &str, description: &str, function: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: PromptOutput,
    {
        self.typed_prompt_with_context(name, description, move |arguments: A, _: Context| function(arguments))
    }

    /// [`Router::typed_prompt`] whose function also gets the request's [`Context`], as for
    /// [`Router::prompt_with_context`].
    ///
    /// ```
    /// use mcp_sansio::mcp::LoggingLevel;
    /// use mcp_sansio_router::{Context, NoArguments, PromptMessages, Router};
    ///
    /// let router = Router::new().typed_prompt_with_context("hello", "Says hello", |_: NoArguments, ctx: Context| {
    ///     async move {
    ///         ctx.log(LoggingLevel::Info, "saying hello");
    ///         PromptMessages::new().user("hello")
    ///     }
    /// });
    /// ```
    pub fn typed_prompt_with_context<A, F, Fut, R>(self, name: &str, description: &str, function: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(A, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: PromptOutput,
    {
        self.prompt_with_context(prompt_info::<A>(name, description), function)
    }
}

/// The prompt `name` with the arguments of `A`'s schema.
fn prompt_info<A: JsonSchema>(name: &str, description: &str) -> PromptInfo {
    let schema = schemars::schema_for!(A);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(serde_json::Value::as_array)
        .map(|names| names.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default();
    let properties = schema.get("properties").and_then(serde_json::Value::as_object);
    let mut info = PromptInfo::new(name, description);
    for (name, property) in properties.into_iter().flatten() {
        let description = property.get("description").and_then(serde_json::Value::as_str);
        let argument = PromptArgument::new(intern(name), required.contains(&name.as_str()));
        info.arguments.push(match description {
            Some(description) => argument.with_description(intern(description)),
            None => argument,
        });
    }
    info
}

/// `text` as a `&'static str`: leaked the first time, the same one after.
fn intern(text: &str) -> &'static str {
    static INTERNED: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut interned = INTERNED.get_or_init(Mutex::default).lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match interned.get(text) {
        Some(text) => text,
        None => {
            let text: &'static str = Box::leak(text.to_owned().into_boxed_str());
            interned.insert(text);
            text
        }
    }
}

/// The prompt's arguments as an `A` (absent: an empty object), or the error's text.
fn read_arguments<A: DeserializeOwned>(get: &PromptGet<'_>) -> Result<A, String> {
    let empty = mcp_sansio::json::parse(b"{}", 1).map_err(|error| error.to_string())?;
    mcp_sansio::json::from_value(get.arguments.unwrap_or(empty)).map_err(|error| error.to_string())
}
