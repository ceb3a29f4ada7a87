//! Tools that ask the client through their [`Context`]: a form ([`Context::elicit`]), the
//! client's roots ([`Context::roots`]) and its model ([`Context::sample`]), in both eras. In a
//! legacy session (2024-11-05 … 2025-11-25) the server sends `elicitation/create`, `roots/list`
//! or `sampling/createMessage` to the client and the function awaits the answer; in 2026-07-28
//! the call is answered `input_required` and the client's retry (with `inputResponses`) runs the
//! function again (see `mcp_sansio_router::input`). A question the client cannot answer (no
//! capability, an error, …) is an [`InputError`], returned as the tool's error.
//!
//! Serves stdio: `cargo run -p mcp-sansio-router --example ask`. The official SDK clients
//! answer it in tests/interop/router_input.py.
//!
//! - `confirm`: asks for a form `{confirm: bool}`; "confirmed", "not confirmed", "declined" or
//!   "cancelled".
//! - `roots`: the URIs of the client's roots, one per line.
//! - `summarize {text}`: asks the client's model to summarize `text`; the text it answered.
//! - `survey`: two questions in turn, the roots then a form `{name: string}`; both answers (in
//!   2026-07-28 two `input_required` rounds, the first answer carried in `requestState`).

use mcp_sansio::server::Config;
use mcp_sansio_router::{Context, Elicitation, InputError, NoArguments, Router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value as Json, json};

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

#[derive(Deserialize, JsonSchema)]
struct Name {
    /// What should we call you?
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Summarize {
    /// The text to summarize.
    text: String,
}

async fn confirm(context: Context) -> Result<&'static str, InputError> {
    Ok(match context.elicit::<Confirm>("Go ahead?").await? {
        Elicitation::Accept(Confirm { confirm: true }) => "confirmed",
        Elicitation::Accept(Confirm { confirm: false }) => "not confirmed",
        Elicitation::Decline => "declined",
        _ => "cancelled",
    })
}

async fn roots(context: Context) -> Result<String, InputError> {
    let uris: Vec<String> = context.roots().await?.into_iter().map(|root| root.uri).collect();
    Ok(uris.join("\n"))
}

async fn summarize(Summarize { text }: Summarize, context: Context) -> Result<String, InputError> {
    let message = format!("Summarize in one sentence: {text}");
    let params = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": message}}],
        "maxTokens": 100,
    });
    let answer = context.sample(params).await?;
    // `content` is one block, or (2025-11-25, sampling with tools) an array of blocks.
    let content = match &answer["content"] {
        Json::Array(blocks) => blocks.iter().find(|b| b["type"] == "text").cloned().unwrap_or(Json::Null),
        block => block.clone(),
    };
    match content["text"].as_str() {
        Some(text) => Ok(text.to_owned()),
        None => Err(InputError::Unreadable(format!("no text in the model's answer: {answer}"))),
    }
}

async fn survey(context: Context) -> Result<String, InputError> {
    let uris: Vec<String> = context.roots().await?.into_iter().map(|root| root.uri).collect();
    let name = match context.elicit::<Name>("Your name?").await? {
        Elicitation::Accept(Name { name }) => name,
        Elicitation::Decline => "(declined)".to_owned(),
        _ => "(cancelled)".to_owned(),
    };
    Ok(format!("roots: {}; name: {name}", uris.join(", ")))
}

pub fn router() -> Router {
    Router::new()
        .tool_with_context("confirm", "Asks the user to confirm", |_: NoArguments, context| confirm(context))
        .tool_with_context("roots", "Lists the client's roots", |_: NoArguments, context| roots(context))
        .tool_with_context("summarize", "Summarizes a text with the client's model", summarize)
        .tool_with_context("survey", "Asks for the roots, then the user's name", |_: NoArguments, context| {
            survey(context)
        })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let (mut server, jobs) = router().into_server(Config::new("ask", "1.0.0"), |future| {
        tokio::spawn(future);
    });
    mcp_sansio_tokio::serve_stdio_with_jobs(&mut server, jobs).await
}
