//! `Engine::suspend` and `Engine::resume`: a session continued on a new engine answers as the
//! first one would have, and an engine that still holds anything is not suspended.

use std::string::String;
use std::vec::Vec;

use serde_json::Value as Json;

use super::*;
use crate::endpoint::{Framing, Route, StreamId};
use crate::mcp::{ListCapability, LoggingLevel, ResourceCapability};
use crate::time::Instant;

static TOOLS: [Tool<'static>; 2] =
    [Tool::new("echo", "Echoes text, logging at info", r#"{"type":"object"}"#), Tool::new("slow", "Later", "{}")];
static RESOURCES: [Resource<'static>; 1] = [Resource::new("file:///a", "a")];

#[derive(Default)]
struct App {
    deferred: Vec<Deferred>,
}

impl Handler for App {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    const RESOURCES: &'static [Resource<'static>] = &RESOURCES;

    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities::NONE
            .with_tools(ListCapability { list_changed: false })
            .with_resources(ResourceCapability { subscribe: true, list_changed: false })
            .with_logging()
    }

    fn call_tool(&mut self, call: ToolCall<'_>, mut reply: ToolReply<'_>) {
        if call.name == "slow" {
            if let Ok(deferred) = reply.defer() {
                self.deferred.push(deferred);
            }
            return;
        }
        let _ = reply.log(LoggingLevel::Info, None, format_args!("echoing"));
        reply.text("echo").finish();
    }
}

fn engine() -> Engine<'static> {
    Engine::new(
        Config::new("suspend", "1.0.0"),
        Buffers { rx: std::vec![0u8; 64].leak(), tx: std::vec![0u8; 4096].leak() },
    )
}

const ROUTE: Route = Route::new(StreamId(2), Framing::Sse);

/// Feeds one message and returns everything the engine then transmits, as messages.
fn exchange(engine: &mut Engine<'static>, app: &mut App, message: &str) -> Vec<Json> {
    engine.handle_message(Instant::ZERO, ROUTE.ending_with_response(), message.as_bytes(), app).expect("taken");
    drain(engine, app)
}

fn drain(engine: &mut Engine<'static>, app: &mut App) -> Vec<Json> {
    let text = drain_text(engine, app);
    text.lines().filter_map(|l| l.strip_prefix("data: ")).map(|l| serde_json::from_str(l).expect("json")).collect()
}

fn drain_text(engine: &mut Engine<'static>, app: &mut App) -> String {
    let mut out = String::new();
    while let Some(t) = engine.poll_transmit() {
        out.push_str(core::str::from_utf8(t.bytes).expect("utf-8"));
        let n = t.bytes.len();
        engine.transmit_done(Instant::ZERO, n, app);
    }
    out
}

/// The SSE event ids in `text`.
fn event_ids(text: &str) -> Vec<String> {
    text.lines().filter_map(|l| l.strip_prefix("id: ")).map(String::from).collect()
}

fn request(id: u32, method: &str, params: &str) -> String {
    std::format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

/// A session that negotiated 2025-06-18, set its level to warning and subscribed to file:///a.
fn set_up(app: &mut App) -> Engine<'static> {
    let mut first = engine();
    let init = request(
        0,
        "initialize",
        r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
    );
    assert_eq!(exchange(&mut first, app, &init)[0]["result"]["protocolVersion"], "2025-06-18");
    exchange(&mut first, app, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert!(
        exchange(&mut first, app, &request(1, "logging/setLevel", r#"{"level":"warning"}"#))[0]["result"].is_object()
    );
    let subscribed = exchange(&mut first, app, &request(2, "resources/subscribe", r#"{"uri":"file:///a"}"#));
    assert!(subscribed[0]["result"].is_object());
    first
}

#[test]
fn a_resumed_session_keeps_its_version_level_and_subscriptions() {
    let mut app = App::default();
    let first = set_up(&mut app);
    let state = first.suspend().expect("quiescent");
    assert_eq!(state.version(), Some(ProtocolVersion::V2025_06_18));
    drop(first);

    let mut second = engine();
    second.resume(state);
    assert_eq!(second.session_version(), Some(ProtocolVersion::V2025_06_18));
    // The info log is below the session's level: only the answer comes back.
    let answer = exchange(&mut second, &mut app, &request(3, "tools/call", r#"{"name":"echo"}"#));
    assert_eq!(answer.len(), 1, "{answer:?}");
    assert_eq!(answer[0]["result"]["content"][0]["text"], "echo");
    // The subscription holds: the update goes to the session's notification route.
    second.set_notification_route(ROUTE);
    assert_eq!(second.resource_updated("file:///a"), Ok(1));
    assert_eq!(drain(&mut second, &mut app)[0]["method"], "notifications/resources/updated");
    // A new engine that is not resumed has no session: the request is refused.
    let mut fresh = engine();
    let refused = exchange(&mut fresh, &mut app, &request(4, "tools/call", r#"{"name":"echo"}"#));
    assert_eq!(refused[0]["error"]["code"], crate::jsonrpc::code::INVALID_PARAMS);
}

#[test]
fn an_engine_that_holds_anything_is_not_suspended() {
    let mut app = App::default();
    let mut engine = set_up(&mut app);
    // Output not yet transmitted.
    engine
        .handle_message(Instant::ZERO, ROUTE.ending_with_response(), request(5, "ping", "{}").as_bytes(), &mut app)
        .unwrap();
    assert_eq!(engine.suspend(), None);
    drain(&mut engine, &mut app);
    assert!(engine.suspend().is_some());
    // A deferred request.
    assert!(exchange(&mut engine, &mut app, &request(6, "tools/call", r#"{"name":"slow"}"#)).is_empty());
    assert_eq!(engine.suspend(), None);
    let deferred = app.deferred.pop().expect("deferred");
    engine.reply_tool(&deferred).expect("live").text("late").finish();
    assert_eq!(drain(&mut engine, &mut app)[0]["result"]["content"][0]["text"], "late");
    assert!(engine.suspend().is_some());
    // A request of the server's own, unanswered.
    engine.set_notification_route(ROUTE);
    engine.send_request(Instant::ZERO, "ping", None).expect("sent");
    drain(&mut engine, &mut app);
    assert_eq!(engine.suspend(), None);
    // The end of input.
    let mut ended = set_up(&mut app);
    ended.handle_eof(Instant::ZERO, &mut app);
    assert_eq!(ended.suspend(), None);
}

#[test]
fn deferred_reply_keys_stay_unique_across_resumed_engines() {
    let mut app = App::default();
    let mut first = set_up(&mut app);
    assert!(exchange(&mut first, &mut app, &request(7, "tools/call", r#"{"name":"slow"}"#)).is_empty());
    let old = app.deferred.pop().expect("deferred");
    first.reply_tool(&old).expect("live").text("done").finish();
    drain(&mut first, &mut app);
    let state = first.suspend().expect("quiescent");

    let mut second = engine();
    second.resume(state);
    assert!(exchange(&mut second, &mut app, &request(8, "tools/call", r#"{"name":"slow"}"#)).is_empty());
    let new = app.deferred.pop().expect("deferred");
    assert_ne!(old.key(), new.key(), "same slot, next generation");
    assert!(second.reply_tool(&old).is_err(), "a key of the first engine answers nothing here");
    second.reply_tool(&new).expect("live").text("new").finish();
    assert_eq!(drain(&mut second, &mut app)[0]["id"], 8);
}

#[test]
fn event_ids_and_request_ids_continue_across_resumed_engines() {
    let mut app = App::default();
    let mut first = set_up(&mut app);
    first.set_notification_route(ROUTE);
    let key = first.send_request(Instant::ZERO, "ping", None).expect("sent");
    let text = drain_text(&mut first, &mut app);
    let ping: Json = serde_json::from_str(text.lines().find_map(|l| l.strip_prefix("data: ")).unwrap()).unwrap();
    let answer = std::format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, ping["id"]);
    assert_eq!(first.handle_message(Instant::ZERO, ROUTE, answer.as_bytes(), &mut app), Ok(Received::Response));
    let before = event_ids(&text);
    let state = first.suspend().expect("quiescent");

    let mut second = engine();
    second.resume(state);
    second.set_notification_route(ROUTE);
    let next = second.send_request(Instant::ZERO, "ping", None).expect("sent");
    assert_eq!(next.id(), key.id() + 1, "request ids go on in the session: none is reused");
    let text = drain_text(&mut second, &mut app);
    let after = event_ids(&text);
    let ping: Json = serde_json::from_str(text.lines().find_map(|l| l.strip_prefix("data: ")).unwrap()).unwrap();
    assert_ne!(ping["id"], serde_json::from_str::<Json>(&answer).unwrap()["id"]);
    // Event ids go on from where the first engine stopped (`Last-Event-ID` stays meaningful).
    let sequence = |id: &String| id.rsplit('-').next().unwrap().parse::<u64>().unwrap();
    assert!(!before.is_empty() && !after.is_empty());
    assert!(sequence(&after[0]) > sequence(before.last().unwrap()), "{before:?} then {after:?}");
}

#[test]
fn a_state_given_a_next_request_id_resumes_an_engine_that_asks_from_it() {
    let mut app = App::default();
    let state = set_up(&mut app).suspend().expect("quiescent");
    let base = (3i64 << 40) | 1;
    let moved = state.with_next_request_id(base);
    assert_eq!((moved.next_request_id(), moved.same_session(&state)), (base, true));
    assert_eq!(state.with_next_request_id(0).next_request_id(), 1, "ids stay positive");
    let mut resumed = engine();
    resumed.resume(moved);
    resumed.set_notification_route(ROUTE);
    let key = resumed.send_request(Instant::ZERO, "ping", None).expect("sent");
    assert_eq!(key.id(), base);
    assert_eq!(resumed.session_state().next_request_id(), base + 1);
}

#[test]
fn an_encoded_state_decodes_to_the_same_session_on_another_engine() {
    let mut app = App::default();
    let mut first = set_up(&mut app);
    assert!(exchange(&mut first, &mut app, &request(9, "tools/call", r#"{"name":"slow"}"#)).is_empty());
    let deferred = app.deferred.pop().expect("deferred");
    first.reply_tool(&deferred).expect("live").text("done").finish();
    drain(&mut first, &mut app);
    let state = first.suspend().expect("quiescent");
    let bytes = state.encode();
    let decoded = SessionState::decode(&bytes).expect("decodes");
    assert_eq!(decoded, state, "every field, counters included");
    assert!(decoded.same_session(&state));

    // The client's capabilities, flag by flag, and a state with no session yet.
    let mut with_client = engine();
    let init = request(
        0,
        "initialize",
        r#"{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"url":{}}},"clientInfo":{"name":"c","version":"1"}}"#,
    );
    exchange(&mut with_client, &mut app, &init);
    let state = with_client.suspend().expect("quiescent");
    assert_eq!(SessionState::decode(&state.encode()), Some(state));
    assert!(!state.same_session(&decoded), "another version, client and level");
    let none = engine().suspend().expect("new");
    assert_eq!(SessionState::decode(&none.encode()), Some(none));

    // Anything else is refused, not misread.
    assert_eq!(SessionState::decode(&bytes[..SessionState::ENCODED_LEN - 1]), None, "short");
    let mut other = bytes;
    other[0] = 2;
    assert_eq!(SessionState::decode(&other), None, "another layout");
    let mut version = bytes;
    version[1] = 9;
    assert_eq!(SessionState::decode(&version), None, "no such version");
    let mut level = bytes;
    level[3] = 8;
    assert_eq!(SessionState::decode(&level), None, "no such level");
    let mut count = bytes;
    count[4] = 9;
    assert_eq!(SessionState::decode(&count), None, "more subscriptions than a set holds");
}

#[test]
fn an_awake_engine_takes_the_settings_another_engine_of_its_session_changed() {
    let mut app = App::default();
    let mut awake = set_up(&mut app);
    // Held awake by a deferred request while another engine serves the session.
    assert!(exchange(&mut awake, &mut app, &request(6, "tools/call", r#"{"name":"slow"}"#)).is_empty());
    let mut other = engine();
    other.resume(awake.session_state());
    let request_unsubscribe = request(7, "resources/unsubscribe", r#"{"uri":"file:///a"}"#);
    assert!(exchange(&mut other, &mut app, &request_unsubscribe)[0]["result"].is_object());
    assert_eq!(awake.resource_updated("file:///a"), Ok(1), "not yet taken");
    drain(&mut awake, &mut app);
    awake.refresh_session(other.session_state());
    assert_eq!(awake.resource_updated("file:///a"), Ok(0), "unsubscribed through the other engine");
    // The deferred request is still held, and answered.
    let deferred = app.deferred.pop().expect("deferred");
    awake.reply_tool(&deferred).expect("live").text("late").finish();
    assert_eq!(drain(&mut awake, &mut app)[0]["result"]["content"][0]["text"], "late");
    // A state of no session changes nothing.
    awake.refresh_session(engine().session_state());
    assert_eq!(awake.session_state().version(), other.session_state().version());
}
