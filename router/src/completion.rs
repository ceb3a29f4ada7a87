//! Completion as an async function ([`Router::completion`], [`Router::completion_with_context`]):
//! a [`CompletionQuery`] in, [`Completions`] (or a list of values) out.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use mcp_sansio::jsonrpc::code;
use mcp_sansio::server::{CompletionRef, CompletionReply, CompletionRequest};

use crate::input::Input;
use crate::{Context, Router};

/// What is being completed: an argument of a prompt, or a variable of a resource template.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reference {
    /// An argument of the prompt of this name (`ref/prompt`).
    Prompt(String),
    /// A variable of the resource template of this URI template (`ref/resource`).
    ResourceTemplate(String),
}

/// A `completion/complete` request, for a prompt or template the server has (others are answered
/// `-32602` before the function runs).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompletionQuery {
    /// The prompt or template.
    pub reference: Reference,
    /// The argument's (or template variable's) name.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// The values of other arguments already chosen (`context.arguments`, 2025-06-18 and later;
    /// empty without it).
    pub arguments: HashMap<String, String>,
}

/// What a completion function gives: values for the argument, best first (the first 100 are
/// sent; beyond them `total` and `hasMore` say how many there were).
///
/// ```
/// use mcp_sansio_router::Completions;
///
/// let some = Completions::new(["red", "green"]).total(12).has_more(true);
/// let all: Completions = vec!["blue".to_owned()].into();
/// # let _ = (some, all);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct Completions {
    values: Vec<String>,
    total: Option<u64>,
    has_more: Option<bool>,
}

impl Completions {
    /// These values, best first.
    pub fn new<S: Into<String>>(values: impl IntoIterator<Item = S>) -> Self {
        Completions { values: values.into_iter().map(Into::into).collect(), total: None, has_more: None }
    }

    /// The number of matching values in all, when more exist than were given.
    pub fn total(mut self, total: u64) -> Self {
        self.total = Some(total);
        self
    }

    /// Whether more values exist than were given.
    pub fn has_more(mut self, has_more: bool) -> Self {
        self.has_more = Some(has_more);
        self
    }

    fn write(&self, reply: CompletionReply<'_>) {
        let mut reply = reply.values(self.values.iter().map(String::as_str));
        if let Some(total) = self.total {
            reply = reply.total(total);
        }
        if let Some(has_more) = self.has_more {
            reply = reply.has_more(has_more);
        }
        reply.finish()
    }
}

impl<S: Into<String>> From<Vec<S>> for Completions {
    fn from(values: Vec<S>) -> Self {
        Completions::new(values)
    }
}

/// What a completion function returns: [`Completions`], a `Vec` of values (`String` or
/// `&'static str`), or a `Result` of these whose `Err` is answered `-32603` with its text.
pub trait CompletionOutput: Send + 'static {
    /// The completions, or the error's text.
    fn into_completions(self) -> Result<Completions, String>;
}

impl CompletionOutput for Completions {
    fn into_completions(self) -> Result<Completions, String> {
        Ok(self)
    }
}

impl CompletionOutput for Vec<String> {
    fn into_completions(self) -> Result<Completions, String> {
        Ok(self.into())
    }
}

impl CompletionOutput for Vec<&'static str> {
    fn into_completions(self) -> Result<Completions, String> {
        Ok(self.into())
    }
}

impl<T: CompletionOutput, E: fmt::Display + Send + 'static> CompletionOutput for Result<T, E> {
    fn into_completions(self) -> Result<Completions, String> {
        self.map_err(|error| error.to_string())?.into_completions()
    }
}

impl Router {
    /// Answers `completion/complete` with `function` (and declares `completions`): it gets the
    /// prompt or template, the argument and what was typed so far, and gives the values. One
    /// function serves every prompt and template (a second call replaces the first); give no
    /// values for what it does not complete.
    ///
    /// ```
    /// use mcp_sansio_router::{CompletionQuery, Reference, Router};
    ///
    /// let router = Router::new().completion(|query: CompletionQuery| async move {
    ///     let colours = ["red", "green", "blue"];
    ///     match (&query.reference, query.argument.as_str()) {
    ///         (Reference::Prompt(name), "colour") if name == "paint" => {
    ///             colours.into_iter().filter(|c| c.starts_with(&query.value)).collect()
    ///         }
    ///         _ => Vec::new(),
    ///     }
    /// });
    /// ```
    pub fn completion<F, Fut, R>(self, function: F) -> Self
    where
        F: Fn(CompletionQuery) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: CompletionOutput,
    {
        self.completion_with_context(move |query, _: Context| function(query))
    }

    /// [`Router::completion`] whose function also gets the request's [`Context`] for progress
    /// ([`Context::progress`], when the client sent a `progressToken`) and log messages
    /// ([`Context::log`]), in both eras, written ahead of the values.
    ///
    /// It cannot ask the client: [`Context::elicit`], [`Context::sample`] and [`Context::roots`]
    /// answer [`InputError::NotAllowed`](crate::InputError::NotAllowed)`("completion/complete")`
    /// at once, in both eras, since 2026-07-28 defines no `input_required` answer to
    /// `completion/complete` (see [`input`](crate::input)).
    ///
    /// ```
    /// use mcp_sansio::mcp::LoggingLevel;
    /// use mcp_sansio_router::{CompletionQuery, Context, Router};
    ///
    /// let router = Router::new().completion_with_context(|query: CompletionQuery, ctx: Context| async move {
    ///     ctx.log(LoggingLevel::Debug, format_args!("completing {}", query.argument));
    ///     vec!["red", "green", "blue"]
    /// });
    /// ```
    pub fn completion_with_context<F, Fut, R>(mut self, function: F) -> Self
    where
        F: Fn(CompletionQuery, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: CompletionOutput,
    {
        let shared = self.shared.clone();
        self.registry.set_completion(move |request: CompletionRequest<'_>, reply: CompletionReply<'_>| {
            let Some(query) = query(&request) else {
                return reply.fail(code::INVALID_PARAMS, "unknown completion reference");
            };
            let Some(runtime) = shared.runtime.get() else {
                return reply.fail(code::INTERNAL_ERROR, "the router has no runtime");
            };
            let input = Arc::new(Input::refused(&request.context, "completion/complete"));
            // No free slot: answered with an internal error already.
            let Ok(deferred) = reply.defer() else { return };
            let deferred = Arc::new(deferred);
            let future = function(query, shared.context(runtime, &input, &deferred));
            let future = async move { future.await.into_completions() };
            shared.answer_later(deferred, future, |server, deferred, output| {
                let reply = match server.reply_completion(deferred) {
                    Ok(reply) => reply,
                    Err(error) => return Err((error, output)),
                };
                match &output {
                    Ok(completions) => completions.write(reply),
                    Err(error) => reply.fail(code::INTERNAL_ERROR, error),
                }
                Ok(())
            });
        });
        self
    }
}

/// The request, owned; `None` for a reference kind this version does not know.
fn query(request: &CompletionRequest<'_>) -> Option<CompletionQuery> {
    let reference = match request.reference {
        CompletionRef::Prompt { name, .. } => Reference::Prompt(name.to_owned()),
        CompletionRef::ResourceTemplate { uri_template, .. } => Reference::ResourceTemplate(uri_template.to_owned()),
        _ => return None,
    };
    let arguments = request.arguments.map(|arguments| arguments.members()).into_iter().flatten();
    let arguments =
        arguments.filter_map(|(name, value)| Some((name.to_string(), value.as_str()?.to_string()))).collect();
    Some(CompletionQuery {
        reference,
        argument: request.argument.to_owned(),
        value: request.value.to_owned(),
        arguments,
    })
}
