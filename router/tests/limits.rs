//! The router's limits, each at its value and one past it (docs/limits.md): requests served at
//! once ([`MAX_IN_FLIGHT`]), the message length either way ([`BUFFER`]), the earlier answers a
//! 2026-07-28 retry carries ([`MAX_REQUEST_STATE`]) and how long that retry may come
//! ([`STATE_LIFETIME`]).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::Wire;
use mcp_sansio::client::EraPolicy;
use mcp_sansio::server::MAX_REQUEST_STATE;
use mcp_sansio_router::{BUFFER, Context, Elicitation, InputError, MAX_IN_FLIGHT, NoArguments, Router, STATE_LIFETIME};
use serde_json::{Value as Json, json};
use tokio::sync::Semaphore;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Text {
    /// Any text.
    text: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Fill {
    /// How many bytes of text to answer.
    n: usize,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Note {
    /// A note.
    note: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Really?
    confirm: bool,
}

/// `hold` waits for a permit of `gate`; `length` counts its text; `fill` answers `n` bytes of
/// text; `two` asks for a note, then for a confirmation.
fn router(gate: Arc<Semaphore>) -> Router {
    Router::new()
        .tool("hold", "Waits to be released", move |_: NoArguments| {
            let gate = gate.clone();
            async move {
                gate.acquire().await.unwrap().forget();
                "released"
            }
        })
        .tool("length", "Counts the bytes of its text", |Text { text }: Text| async move { text.len().to_string() })
        .tool("fill", "Answers n bytes of text", |Fill { n }: Fill| async move { "x".repeat(n) })
        .tool_with_context("two", "Asks twice", |_: NoArguments, ctx: Context| async move {
            let Elicitation::Accept(Note { note }) = ctx.elicit::<Note>("A note?").await? else {
                return Ok::<_, InputError>("no note".to_owned());
            };
            let confirmed =
                matches!(ctx.elicit::<Confirm>("Sure?").await?, Elicitation::Accept(Confirm { confirm: true }));
            Ok(format!("{} bytes, confirmed: {confirmed}", note.len()))
        })
}

fn call(id: u64, tool: &str, arguments: Json) -> Json {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":arguments}})
}

/// The next answer, as it came (past the notifications: `list_changed`, …).
async fn answer_line(wire: &mut Wire) -> String {
    loop {
        let line = wire.next_line().await;
        if serde_json::from_str::<Json>(&line).unwrap().get("method").is_none() {
            return line;
        }
    }
}

/// The next answer.
async fn answer(wire: &mut Wire) -> Json {
    serde_json::from_str(&answer_line(wire).await).unwrap()
}

/// The text of a tool result's first content block.
fn text(answer: &Json) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {answer}"))
}

#[tokio::test]
async fn max_in_flight_calls_are_served_at_once_and_the_next_is_32603() {
    let gate = Arc::new(Semaphore::new(0));
    let mut wire = Wire::start(router(gate.clone()), EraPolicy::Legacy).await;
    for id in 1..=MAX_IN_FLIGHT as u64 {
        wire.send(call(id, "hold", json!({}))).await;
    }
    let over = MAX_IN_FLIGHT as u64 + 1;
    wire.send(call(over, "hold", json!({}))).await;
    // The first answer is the refusal: the others are all held.
    let refused = answer(&mut wire).await;
    assert_eq!(refused["id"], over, "{refused}");
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("busy"), "{refused}");

    gate.add_permits(MAX_IN_FLIGHT);
    let mut answered = Vec::new();
    for _ in 0..MAX_IN_FLIGHT {
        let released = answer(&mut wire).await;
        assert_eq!(text(&released), "released");
        answered.push(released["id"].as_u64().unwrap());
    }
    answered.sort_unstable();
    assert_eq!(answered, (1..=MAX_IN_FLIGHT as u64).collect::<Vec<_>>());
    // The slots are free again.
    gate.add_permits(1);
    wire.send(call(over + 1, "hold", json!({}))).await;
    assert_eq!(text(&wire.until_answer(over + 1).await.pop().unwrap()), "released");
}

#[tokio::test]
async fn a_request_of_buffer_bytes_is_served_and_a_longer_one_is_32600() {
    let mut wire = Wire::start(router(Arc::new(Semaphore::new(0))), EraPolicy::Legacy).await;
    let padded = |id, len: usize| {
        let bare = call(id, "length", json!({"text": ""})).to_string().len();
        call(id, "length", json!({"text": "x".repeat(len - bare)}))
    };
    let at = padded(1, BUFFER);
    assert_eq!(at.to_string().len(), BUFFER);
    wire.send(at).await;
    let served = wire.until_answer(1).await.pop().unwrap();
    assert_eq!(text(&served), (BUFFER - call(1, "length", json!({"text": ""})).to_string().len()).to_string());

    wire.send(padded(2, BUFFER + 1)).await;
    let refused = answer(&mut wire).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    // The stream goes on past the long line.
    wire.send(call(3, "length", json!({"text": "abc"}))).await;
    assert_eq!(text(&wire.until_answer(3).await.pop().unwrap()), "3");
}

#[tokio::test]
async fn an_answer_of_buffer_bytes_is_sent_and_a_longer_one_is_32603() {
    let mut wire = Wire::start(router(Arc::new(Semaphore::new(0))), EraPolicy::Legacy).await;
    // The answer's length without its text, from a short one (the text is `x`s: one byte each).
    wire.send(call(1, "fill", json!({"n": 10}))).await;
    let overhead = answer_line(&mut wire).await.len() - 10;
    // A message and its newline fill at most the whole transmit buffer.
    let fits = BUFFER - 1 - overhead;
    wire.send(call(2, "fill", json!({"n": fits}))).await;
    let line = answer_line(&mut wire).await;
    assert_eq!(line.len(), BUFFER - 1);
    assert_eq!(text(&serde_json::from_str(&line).unwrap()).len(), fits);

    wire.send(call(3, "fill", json!({"n": fits + 1}))).await;
    let refused = answer(&mut wire).await;
    assert_eq!((&refused["id"], &refused["error"]["code"]), (&json!(3), &json!(-32603)), "{refused}");
    wire.send(call(4, "fill", json!({"n": 3}))).await;
    assert_eq!(text(&wire.until_answer(4).await.pop().unwrap()), "xxx");
}

/// `two` in 2026-07-28 up to its second question: the note answered (`note_len` bytes); the
/// second round's result (`input_required` with the sealed first answer, or an error).
async fn second_round(wire: &mut Wire, note_len: usize) -> Json {
    wire.request(1, "tools/call", json!({"name":"two","arguments":{}})).await;
    let first = wire.until_answer(1).await.pop().unwrap();
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert!(first["result"].get("requestState").is_none(), "no earlier answers: {first}");
    let note = json!({"action":"accept","content":{"note":"x".repeat(note_len)}});
    wire.request(2, "tools/call", json!({"name":"two","arguments":{},"inputResponses":{"1":note}})).await;
    wire.until_answer(2).await.pop().unwrap()
}

/// The length of the state that carries a note of `note_len` bytes: the router keeps the answers
/// by question as one JSON object.
fn state_len(note_len: usize) -> usize {
    json!({"1":{"action":"accept","content":{"note":"x".repeat(note_len)}}}).to_string().len()
}

#[tokio::test]
async fn earlier_answers_of_max_request_state_bytes_are_carried_and_longer_ones_are_32603() {
    let at = MAX_REQUEST_STATE - state_len(0);
    assert_eq!(state_len(at), MAX_REQUEST_STATE);

    let mut wire = Wire::start(router(Arc::new(Semaphore::new(0))), EraPolicy::Modern).await;
    let second = second_round(&mut wire, at).await;
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    let state = second["result"]["requestState"].clone();
    let confirm = json!({"action":"accept","content":{"confirm":true}});
    let retry = json!({"name":"two","arguments":{},"inputResponses":{"2":confirm},"requestState":state});
    wire.request(3, "tools/call", retry).await;
    assert_eq!(text(&wire.until_answer(3).await.pop().unwrap()), format!("{at} bytes, confirmed: true"));

    let mut wire = Wire::start(router(Arc::new(Semaphore::new(0))), EraPolicy::Modern).await;
    let second = second_round(&mut wire, at + 1).await;
    assert_eq!(second["error"]["code"], -32603, "{second}");
}

#[tokio::test(start_paused = true)]
async fn a_retry_is_taken_for_state_lifetime_and_refused_after() {
    let confirm = json!({"action":"accept","content":{"confirm":true}});
    for (late, taken) in [(Duration::ZERO, true), (Duration::from_millis(1), false)] {
        let mut wire = Wire::start(router(Arc::new(Semaphore::new(0))), EraPolicy::Modern).await;
        let second = second_round(&mut wire, 5).await;
        let state = second["result"]["requestState"].clone();
        assert!(state.is_string(), "{second}");
        tokio::time::advance(Duration::from_millis(STATE_LIFETIME.as_millis()) + late).await;
        let retry = json!({"name":"two","arguments":{},"inputResponses":{"2":confirm},"requestState":state});
        wire.request(3, "tools/call", retry).await;
        let answer = wire.until_answer(3).await.pop().unwrap();
        match taken {
            true => assert_eq!(text(&answer), "5 bytes, confirmed: true"),
            false => {
                assert_eq!(answer["error"]["code"], -32602, "{answer}");
                assert!(answer["error"]["message"].as_str().unwrap().contains("expired"), "{answer}");
            }
        }
    }
}
