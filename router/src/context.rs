//! [`Context`]: what a tool, prompt, resource or completion function can do besides returning its
//! output — report progress and log about its request, each written ahead of the answer on the
//! request's stream, and ask the client for input (see [`input`](crate::input) for how that works
//! in each era, and why a completion cannot).

use std::fmt;

use mcp_sansio::endpoint::SendError;
use mcp_sansio::mcp::LoggingLevel;
use mcp_sansio::server::Deferred;
use mcp_sansio_driver::JobStatus;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value as Json;

use crate::RouterEngine;
use crate::input::{Asker, InputError, Question};

/// The request a function serves: its progress and log messages, and questions to the client.
/// Cheap to clone; the messages go through the driver's job queue, in order, before the answer.
///
/// Given by [`Router::tool_with_context`](crate::Router::tool_with_context),
/// [`prompt_with_context`](crate::Router::prompt_with_context),
/// [`resource_with_context`](crate::Router::resource_with_context),
/// [`resource_template_with_context`](crate::Router::resource_template_with_context) and
/// [`completion_with_context`](crate::Router::completion_with_context) (the first four are also
/// what [`tools`](crate::tools) registers a method that takes it with); a completion's questions
/// answer [`InputError::NotAllowed`] (it has progress and logs only).
#[derive(Clone)]
pub struct Context {
    asker: Asker,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context").field("request", &self.asker.deferred.key()).finish_non_exhaustive()
    }
}

/// The user's answer to [`Context::elicit`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Elicitation<T> {
    /// The user submitted the form: its content.
    Accept(T),
    /// The user declined.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

/// One of the client's roots ([`Context::roots`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// Its URI (`file://…`).
    pub uri: String,
    /// Its name, if the client gave one.
    #[serde(default)]
    pub name: Option<String>,
}

impl Context {
    pub(crate) fn new(asker: Asker) -> Self {
        Context { asker }
    }

    /// Asks the user to fill in a form: `message`, and fields read as a `T` (a flat struct of
    /// strings, numbers, booleans and string enums; the form's schema is generated from it). In a
    /// 2026-07-28 call this may end the run and run the function again with the answer (see
    /// [`input`](crate::input): the code before it must be idempotent).
    ///
    /// ```no_run
    /// # use mcp_sansio_router::{Context, Elicitation};
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     confirm: bool,
    /// }
    ///
    /// async fn delete(context: Context) -> Result<&'static str, mcp_sansio_router::InputError> {
    ///     match context.elicit::<Confirm>("Delete everything?").await? {
    ///         Elicitation::Accept(Confirm { confirm: true }) => Ok("deleted"),
    ///         _ => Ok("kept"),
    ///     }
    /// }
    /// ```
    pub async fn elicit<T: DeserializeOwned + JsonSchema>(&self, message: &str) -> Result<Elicitation<T>, InputError> {
        let schema = form_schema(schemars::schema_for!(T));
        let answer = self.asker.ask(Question::Form { message: message.to_owned(), schema }).await?;
        let unreadable = |why: String| InputError::Unreadable(why);
        match answer.get("action").and_then(Json::as_str) {
            Some("accept") => {
                let content = answer.get("content").cloned().unwrap_or(Json::Object(Default::default()));
                serde_json::from_value(content).map(Elicitation::Accept).map_err(|e| unreadable(e.to_string()))
            }
            Some("decline") => Ok(Elicitation::Decline),
            Some("cancel") => Ok(Elicitation::Cancel),
            _ => Err(unreadable("no known `action`".to_owned())),
        }
    }

    /// Asks the client's model (`sampling/createMessage` with `params`: `messages`, `maxTokens`, …);
    /// its result (`role`, `content`, `model`, …). Era handling as for [`Context::elicit`].
    pub async fn sample(&self, params: Json) -> Result<Json, InputError> {
        if !params.is_object() {
            return Err(InputError::NotSent(SendError::Malformed));
        }
        self.asker.ask(Question::Sample { params: params.to_string() }).await
    }

    /// The client's roots (`roots/list`). Era handling as for [`Context::elicit`].
    pub async fn roots(&self) -> Result<Vec<Root>, InputError> {
        let answer = self.asker.ask(Question::Roots).await?;
        let roots = answer.get("roots").cloned().unwrap_or(Json::Array(Vec::new()));
        serde_json::from_value(roots).map_err(|error| InputError::Unreadable(error.to_string()))
    }

    /// Sends `notifications/progress` for the request if the client asked for progress (a
    /// `progressToken`); otherwise nothing. `progress` must grow from one report to the next (a
    /// report that does not is dropped, as the spec requires). A task sends none (it has no
    /// stream: [`Router::task_tool`](crate::Router::task_tool)).
    pub fn progress(&self, progress: u64, total: Option<u64>, message: Option<&str>) {
        let message = message.map(str::to_owned);
        self.note(move |server, deferred| server.progress(deferred, progress, total, message.as_deref()));
    }

    /// Sends `notifications/message` about the request at `level`, if the client's log level (the
    /// legacy session's `logging/setLevel`, or the request's own in 2026-07-28) lets it through.
    /// A task sends none.
    pub fn log(&self, level: LoggingLevel, message: impl fmt::Display) {
        let message = message.to_string();
        self.note(move |server, deferred| server.log_for(deferred, level, None, format_args!("{message}")).map(drop));
    }

    /// Writes a notification about the request from the job queue: again once output was written
    /// while the transmit buffer is full; dropped when the request is over or the note refused.
    fn note(&self, mut write: impl FnMut(&mut RouterEngine, &Deferred) -> Result<(), SendError> + Send + 'static) {
        let deferred = self.asker.deferred.clone();
        self.asker.jobs.submit(move |engine: &mut RouterEngine, _now| match write(engine, &deferred) {
            Err(SendError::Full) => JobStatus::Retry,
            _ => JobStatus::Done,
        });
    }
}

/// An elicitation form's schema from a generated one: only `type`, `properties` (each made a plain
/// primitive: an optional field's `["string", "null"]` becomes `"string"`) and `required`, as the
/// spec's restricted schema has them.
fn form_schema(schema: schemars::Schema) -> String {
    let mut properties = schema.get("properties").cloned().unwrap_or(Json::Object(Default::default()));
    if let Some(properties) = properties.as_object_mut() {
        for property in properties.values_mut() {
            if let Some(Json::Array(types)) = property.get("type") {
                let plain: Vec<&Json> = types.iter().filter(|t| t.as_str() != Some("null")).collect();
                if let [only] = plain.as_slice() {
                    property["type"] = (*only).clone();
                }
            }
        }
    }
    let mut form = serde_json::json!({"type": "object", "properties": properties});
    if let Some(required) = schema.get("required") {
        form["required"] = required.clone();
    }
    form.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Form {
        /// Your name.
        name: String,
        age: Option<u32>,
        agree: bool,
    }

    #[test]
    fn a_form_schema_keeps_flat_primitive_properties_only() {
        let form: Json = serde_json::from_str(&form_schema(schemars::schema_for!(Form))).unwrap();
        assert_eq!(form["type"], "object");
        assert_eq!(form["properties"]["name"]["type"], "string");
        assert_eq!(form["properties"]["name"]["description"], "Your name.");
        assert_eq!(form["properties"]["age"]["type"], "integer");
        assert_eq!(form["properties"]["agree"]["type"], "boolean");
        assert_eq!(form["required"], serde_json::json!(["name", "agree"]));
        assert!(form.get("title").is_none() && form.get("$schema").is_none());
    }
}
