//! Endpoint-layer tests: requests to the client, deadlines, framings, streams, shared handlers and
//! back-pressure, on a simulated clock (a quinn-style `Pair` of the engine and a scripted client).

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Value as Json, json};

use super::*;
use crate::connection::Connection;
use crate::endpoint::{Framing, OutboundKey, Outcome, Response, Route, SendError, StreamId};
use crate::time::Instant;

static TOOLS: [Tool<'static>; 2] = [
    Tool::new("echo", "Echoes text", r#"{"type":"object","properties":{"text":{"type":"string"}}}"#),
    Tool::new("slow", "Answered later", r#"{"type":"object"}"#),
];

/// An application shared by several engines: counts calls, records answers and events.
#[derive(Default)]
struct App {
    calls: usize,
    deferred: Vec<Deferred>,
    responses: Vec<(OutboundKey, String)>,
    events: Vec<String>,
}

impl Handler for App {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        self.calls += 1;
        match call.name {
            "slow" => {
                if let Ok(deferred) = reply.defer() {
                    self.deferred.push(deferred);
                }
            }
            _ => match call.argument("text").and_then(|v| v.as_str()) {
                Some(text) => reply.text_json(text).finish(),
                None => reply.finish_error_text("missing text"),
            },
        }
    }

    fn on_response(&mut self, _now: Instant, response: Response<'_>) {
        let outcome = match response.outcome {
            Outcome::Result(value) => std::format!("result {}", String::from_utf8_lossy(value.as_bytes())),
            Outcome::Error { code, .. } => std::format!("error {code}"),
            Outcome::TimedOut => String::from("timed out"),
            Outcome::Closed => String::from("closed"),
        };
        self.responses.push((response.request, outcome));
    }

    fn on_event(&mut self, _now: Instant, event: Event<'_>) {
        self.events.push(std::format!("{event:?}"));
    }
}

fn config() -> Config<'static> {
    let mut config = Config::new("pair", "1.0.0");
    config.request_timeout = Some(crate::time::Duration::from_millis(500));
    // Room for several answers in a transmit buffer, as `mcp-device` has.
    config.limits.max_response = 512;
    config
}

fn buffers(rx: usize, tx: usize) -> Buffers<'static> {
    Buffers { rx: std::vec![0u8; rx].leak(), tx: std::vec![0u8; tx].leak() }
}

fn lines(bytes: &[u8]) -> Vec<Json> {
    bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
}

fn initialize(version: &str) -> String {
    std::format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
    ) + "\n"
}

/// The engine and a scripted client over a simulated clock and an in-memory link.
struct Pair {
    server: Server<'static, App, 2, 2>,
    now: Instant,
    /// Everything the server wrote, as messages, in order.
    from_server: Vec<Json>,
    /// The client answers the server's `ping`s.
    answer_pings: bool,
    /// How many server bytes the link delivers per step (`usize::MAX`: everything).
    link_capacity: usize,
}

impl Pair {
    fn new() -> Self {
        Pair {
            server: Server::new(App::default(), config(), buffers(4096, 4096)),
            now: Instant::ZERO,
            from_server: Vec::new(),
            answer_pings: true,
            link_capacity: usize::MAX,
        }
    }

    /// The client sends `line` (with its newline).
    fn client_sends(&mut self, line: &str) {
        let mut rest = line.as_bytes();
        while !rest.is_empty() {
            let n = self.server.handle_input(self.now, rest);
            rest = &rest[n..];
            if n == 0 {
                self.deliver();
            }
        }
        self.deliver();
    }

    /// Moves the server's output to the client, which answers what it is scripted to answer.
    fn deliver(&mut self) {
        let mut answers = Vec::new();
        let mut budget = self.link_capacity;
        while let Some(bytes) = self.server.poll_transmit() {
            let n = bytes.len().min(budget);
            if n == 0 {
                break;
            }
            let text = bytes[..n].to_vec();
            budget -= n;
            self.server.transmit_done(self.now, n);
            for message in lines(&text) {
                if self.answer_pings && message["method"] == "ping" {
                    answers.push(json!({"jsonrpc":"2.0","id":message["id"].clone(),"result":{}}).to_string() + "\n");
                }
                self.from_server.push(message);
            }
        }
        for answer in answers {
            self.client_sends(&answer);
        }
    }

    /// Advances the clock to the server's next deadline (if any, and not past `limit`) and runs it.
    fn step_to_deadline(&mut self, limit: Instant) -> bool {
        match self.server.poll_timeout() {
            Some(deadline) if deadline <= limit => {
                self.now = self.now.max(deadline);
                self.server.handle_timeout(self.now);
                self.deliver();
                true
            }
            _ => false,
        }
    }
}

#[test]
fn a_legacy_ping_from_the_server_is_answered_and_routed_back() {
    let mut pair = Pair::new();
    // No session yet: the protocol has no channel for it.
    assert_eq!(pair.server.ping(pair.now), Err(SendError::NotAvailable));
    pair.client_sends(&initialize("2025-06-18"));
    pair.client_sends("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    let key = pair.server.ping(pair.now).unwrap();
    assert_eq!(pair.server.poll_timeout(), Some(Instant::from_millis(500)));
    pair.deliver();
    let ping = pair.from_server.last().unwrap();
    assert_eq!(ping, &json!({"jsonrpc":"2.0","id":key.id(),"method":"ping"}));
    assert_eq!(pair.server.handler().responses, [(key, String::from("result {}"))]);
    // Answered: no deadline is left, and the table is empty.
    assert_eq!(pair.server.poll_timeout(), None);
    assert_eq!(pair.server.engine().awaiting_answers(), 0);
}

#[test]
fn an_unanswered_request_times_out_and_is_cancelled_on_the_wire() {
    let mut pair = Pair::new();
    pair.answer_pings = false;
    pair.client_sends(&initialize("2025-11-25"));
    pair.now = Instant::from_millis(100);
    let key = pair.server.send_request(pair.now, "roots/list", None).unwrap();
    pair.deliver();
    assert_eq!(pair.from_server.last().unwrap(), &json!({"jsonrpc":"2.0","id":key.id(),"method":"roots/list"}));
    assert_eq!(pair.server.poll_timeout(), Some(Instant::from_millis(600)));
    // Nothing happens before the deadline.
    assert!(!pair.step_to_deadline(Instant::from_millis(599)));
    assert!(pair.server.handler().responses.is_empty());
    assert!(pair.step_to_deadline(Instant::from_millis(10_000)));
    assert_eq!(pair.now, Instant::from_millis(600));
    assert_eq!(
        pair.from_server.last().unwrap(),
        &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":key.id()}})
    );
    assert_eq!(pair.server.handler().responses, [(key, String::from("timed out"))]);
    assert_eq!(pair.server.poll_timeout(), None);
    // A late answer answers nothing.
    pair.client_sends(&std::format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"roots\":[]}}}}\n", key.id()));
    assert_eq!(pair.server.handler().responses.len(), 1);
    assert!(pair.server.handler().events.iter().any(|e| e == "UnexpectedResponse"));
}

#[test]
fn a_cancellation_that_finds_no_room_is_written_once_the_writer_drains() {
    let mut pair = Pair::new();
    pair.answer_pings = false;
    pair.client_sends(&initialize("2025-11-25"));
    let key = pair.server.ping(pair.now).unwrap();
    // Fill the transmit buffer with notifications the link does not take.
    while pair.server.notify("notifications/message", Some(&|w| w.raw(br#"{"level":"info","data":"x"}"#))).is_ok() {}
    assert_eq!(
        pair.server.notify("notifications/message", Some(&|w| w.raw(b"{}"))),
        Err(SendError::Full),
        "a full buffer refuses, untouched"
    );
    pair.now = Instant::from_millis(500);
    pair.server.handle_timeout(pair.now);
    assert_eq!(pair.server.handler().responses, [(key, String::from("timed out"))]);
    // The cancellation waits (no busy deadline meanwhile), and follows once the buffer drained.
    assert_eq!(pair.server.poll_timeout(), None);
    pair.deliver();
    let cancel = pair.from_server.iter().find(|m| m["method"] == "notifications/cancelled").unwrap();
    assert_eq!(cancel["params"]["requestId"], key.id());
    assert_eq!(pair.server.engine().awaiting_answers(), 0);
}

#[cfg(feature = "http")] // SSE framing
#[test]
fn one_notification_is_framed_as_an_ndjson_line_and_as_an_sse_event() {
    let mut engine: Engine<'static, 0, 0> = Engine::new(config(), buffers(1024, 1024));
    let params = |w: &mut crate::json::JsonWriter<'_>| w.raw(br#"{"progressToken":"t","progress":1}"#);
    engine.notify("notifications/progress", Some(&params)).unwrap();
    let sse = Route::new(StreamId(9), Framing::Sse);
    engine.notify_on(sse, "notifications/progress", Some(&params)).unwrap();
    let message = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#;

    let line = engine.poll_transmit().unwrap();
    assert_eq!(line.stream, StreamId::BYTE_STREAM);
    assert_eq!(line.bytes, [&message[..], b"\n"].concat());
    let n = line.bytes.len();
    let mut app = App::default();
    engine.transmit_done(Instant::ZERO, n, &mut app);

    let event = engine.poll_transmit().unwrap();
    assert_eq!(event.stream, StreamId(9));
    assert_eq!(event.bytes, [&b"id: 9-1\ndata: "[..], message, b"\n\n"].concat());
    assert!(!event.end_of_stream);
    // The client's decoder reads the same message, and the event id names the stream.
    let mut storage = [0u8; 512];
    let mut decoder = crate::frame::SseDecoder::new(&mut storage);
    assert_eq!(decoder.push(event.bytes), event.bytes.len());
    let received = decoder.next_event().unwrap().unwrap();
    assert_eq!(received.data(), &message[..]);
    let id = crate::frame::EventId::parse(received.id().unwrap()).unwrap();
    assert_eq!((id.stream(), id.sequence()), (9, 1));
    // A bare body carries one message, the response: no notifications there.
    let body = Route::new(StreamId(10), Framing::Body);
    assert_eq!(engine.notify_on(body, "notifications/progress", None), Err(SendError::NotAvailable));
}

#[test]
fn two_legacy_sessions_and_stateless_requests_share_one_application() {
    let mut app = App::default();
    let mut a: Engine<'static> = Engine::new(config(), buffers(2048, 2048));
    let mut b: Engine<'static> = Engine::new(config(), buffers(2048, 2048));
    let mut stateless: Engine<'static> = Engine::new(config(), buffers(2048, 2048));
    let call = |id: u32, text: &str| {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}}}}}"#
        ) + "\n"
    };
    let modern = |id: u32, text: &str| {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
    };
    let drain = |engine: &mut Engine<'static>, app: &mut App| {
        let mut out = Vec::new();
        while let Some(t) = engine.poll_transmit() {
            out.push((t.stream, t.bytes.to_vec(), t.end_of_stream));
            let n = t.bytes.len();
            engine.transmit_done(Instant::ZERO, n, app);
        }
        out
    };
    let now = Instant::ZERO;
    let init_a = initialize("2025-03-26");
    let init_b = initialize("2025-11-25");
    assert_eq!(a.handle_input(now, init_a.as_bytes(), &mut app), init_a.len());
    let route = Route::new(StreamId(41), Framing::Body).ending_with_response();
    assert_eq!(stateless.handle_message(now, route, modern(1, "s1").as_bytes(), &mut app), Ok(Received::Request));
    assert_eq!(b.handle_input(now, init_b.as_bytes(), &mut app), init_b.len());
    a.handle_input(now, call(1, "a1").as_bytes(), &mut app);
    b.handle_input(now, call(1, "b1").as_bytes(), &mut app);
    // A legacy request on the stateless engine has no session there.
    let legacy_there = stateless.handle_message(now, route, call(2, "x").trim_end().as_bytes(), &mut app);
    assert_eq!(legacy_there, Ok(Received::Request));

    assert_eq!(a.session_version(), Some(ProtocolVersion::V2025_03_26));
    assert_eq!(b.session_version(), Some(ProtocolVersion::V2025_11_25));
    assert_eq!(stateless.session_version(), None);
    assert_eq!(app.calls, 3);

    let out_a = drain(&mut a, &mut app);
    let out_b = drain(&mut b, &mut app);
    let out_s = drain(&mut stateless, &mut app);
    assert_eq!(out_a.len(), 1, "one run of messages on the byte stream");
    let a_lines = lines(&out_a[0].1);
    assert_eq!(a_lines[0]["result"]["protocolVersion"], "2025-03-26");
    assert_eq!(a_lines[1]["result"]["content"][0]["text"], "a1");
    let b_lines = lines(&out_b[0].1);
    assert_eq!(b_lines[0]["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(b_lines[1]["result"]["content"][0]["text"], "b1");
    // Stateless answers: each a whole body ending its stream, no newline.
    assert_eq!(out_s.len(), 2);
    let (stream, body, end) = &out_s[0];
    assert_eq!((*stream, *end), (StreamId(41), true));
    let first: Json = serde_json::from_slice(body).unwrap();
    assert_eq!(first["result"]["content"][0]["text"], "s1");
    assert_eq!(first["result"]["resultType"], "complete");
    assert!(!body.ends_with(b"\n"));
    let second: Json = serde_json::from_slice(&out_s[1].1).unwrap();
    assert_eq!(second["error"]["code"], crate::jsonrpc::code::INVALID_PARAMS);
}

#[cfg(feature = "http")] // SSE framing
#[test]
fn handle_message_refuses_untouched_when_there_is_no_room() {
    let mut app = App::default();
    let mut engine: Engine<'static> = Engine::new(config(), buffers(1024, 512));
    let route = Route::new(StreamId(1), Framing::Sse).ending_with_response();
    let request = br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    assert_eq!(engine.handle_message(Instant::ZERO, route, request, &mut app), Ok(Received::Request));
    let again = Route::new(StreamId(2), Framing::Sse).ending_with_response();
    assert_eq!(engine.handle_message(Instant::ZERO, again, request, &mut app), Err(InputError::Busy));
    let t = engine.poll_transmit().unwrap();
    assert!(t.bytes.starts_with(b"id: 1-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{"));
    assert!(t.bytes.ends_with(b"}}\n\n") && t.end_of_stream);
    let n = t.bytes.len();
    engine.transmit_done(Instant::ZERO, n, &mut app);
    assert_eq!(engine.handle_message(Instant::ZERO, again, request, &mut app), Ok(Received::Request));
    assert_eq!(engine.handle_message(Instant::ZERO, again, b"[]", &mut app), Err(InputError::Busy));
    engine.handle_eof(Instant::ZERO, &mut app);
    assert_eq!(engine.handle_message(Instant::ZERO, again, request, &mut app), Err(InputError::Closed));
}

#[test]
fn a_deferred_answer_while_the_writer_is_blocked_is_delivered_once_it_drains() {
    let mut pair = Pair::new();
    pair.server = Server::new(App::default(), config(), buffers(4096, 1024));
    pair.link_capacity = 0; // the writer is blocked
    pair.client_sends(&initialize("2025-11-25"));
    pair.client_sends("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}\n");
    assert!(pair.from_server.is_empty(), "nothing got through the blocked link");
    let deferred = pair.server.handler_mut().deferred.pop().unwrap();
    // Other output fills the buffer: the answer has to wait, and the handle stays valid.
    while pair.server.notify("notifications/message", Some(&|w| w.raw(br#"{"level":"info","data":"x"}"#))).is_ok() {}
    assert_eq!(pair.server.reply_tool(&deferred).err(), Some(ReplyError::Busy));
    assert_eq!(pair.server.in_flight(), 1);
    pair.link_capacity = usize::MAX;
    pair.deliver();
    pair.server.reply_tool(&deferred).unwrap().text("done").finish();
    assert_eq!(pair.server.reply_tool(&deferred).err(), Some(ReplyError::Unknown), "answered once");
    pair.deliver();
    let answers: Vec<&Json> = pair.from_server.iter().filter(|m| m["id"] == 7).collect();
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0]["result"]["content"][0]["text"], "done");
}

#[test]
fn explicit_capabilities_replace_the_derived_ones() {
    let mut config = config();
    config.capabilities = Some(
        crate::mcp::ServerCapabilities::NONE
            .with_tools(crate::mcp::ListCapability { list_changed: true })
            .with_prompts(Default::default()),
    );
    let mut server: Server<'static, App> = Server::new(App::default(), config, buffers(2048, 2048));
    let init = initialize("2025-06-18");
    server.handle_input(Instant::ZERO, init.as_bytes());
    let list = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/list\"}\n";
    server.handle_input(Instant::ZERO, list.as_bytes());
    let out = lines(server.poll_transmit().unwrap());
    assert_eq!(out[0]["result"]["capabilities"], json!({"tools":{"listChanged":true},"prompts":{}}));
    // Declared prompts are served even though the table is empty.
    assert_eq!(out[1]["result"]["prompts"], json!([]));
}

/// A dynamic table that starts empty, with and without declared capabilities.
struct Later {
    declared: bool,
    tools: usize,
}

impl Handler for Later {
    fn capabilities(&self) -> crate::mcp::ServerCapabilities {
        if self.declared {
            crate::mcp::ServerCapabilities::NONE.with_tools(Default::default())
        } else {
            table_capabilities::<Self>()
        }
    }

    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        (index < self.tools).then(|| TOOLS[0])
    }
}

#[test]
fn capabilities_are_declared_or_those_of_the_static_tables_never_of_what_a_table_holds_now() {
    assert_eq!(table_capabilities::<App>().tools, Some(Default::default()), "App's static TOOLS");
    for declared in [true, false] {
        let mut server: Server<'static, Later> =
            Server::new(Later { declared, tools: 0 }, config(), buffers(2048, 2048));
        server.handle_input(Instant::ZERO, initialize("2025-06-18").as_bytes());
        server.handler_mut().tools = 1;
        server.handle_input(Instant::ZERO, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n");
        let out = lines(server.poll_transmit().unwrap());
        if declared {
            // Declared while the table was empty: served once it fills.
            assert_eq!(out[0]["result"]["capabilities"], json!({"tools":{}}));
            assert_eq!(out[1]["result"]["tools"][0]["name"], json!(TOOLS[0].name));
        } else {
            // Not declared and no static table: not served, whatever the table holds.
            assert_eq!(out[0]["result"]["capabilities"], json!({}));
            assert_eq!(out[1]["error"]["code"], json!(-32601));
        }
    }
}

#[test]
fn the_application_cancels_a_request_and_its_late_answer_is_ignored() {
    let mut pair = Pair::new();
    pair.answer_pings = false;
    pair.client_sends(&initialize("2025-11-25"));
    let key = pair.server.send_request(pair.now, "sampling/createMessage", Some(&|w| w.raw(b"{}"))).unwrap();
    assert!(pair.server.cancel_request(key));
    assert!(!pair.server.cancel_request(key), "cancelled once");
    pair.deliver();
    let cancel = pair.from_server.last().unwrap();
    assert_eq!(cancel, &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":key.id()}}));
    assert_eq!(pair.server.poll_timeout(), None);
    assert_eq!(pair.server.engine().awaiting_answers(), 0);
    pair.client_sends(&std::format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{}}}}\n", key.id()));
    assert!(pair.server.handler().responses.is_empty(), "no answer is reported for a cancelled request");
    assert!(pair.server.handler().events.iter().any(|e| e == "UnexpectedResponse"));
}

#[test]
fn requests_awaiting_answers_end_with_the_input_and_client_capabilities_are_kept() {
    let mut pair = Pair::new();
    pair.answer_pings = false;
    assert_eq!(pair.server.client_capabilities(), None);
    pair.client_sends(
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"sampling\":{},\"roots\":{\"listChanged\":true}},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n",
    );
    let caps = pair.server.client_capabilities().unwrap();
    assert!(caps.sampling && !caps.elicitation_form);
    assert_eq!(caps.roots, Some(crate::mcp::ListCapability { list_changed: true }));
    let waiting = pair.server.ping(pair.now).unwrap();
    let cancelled = pair.server.ping(pair.now).unwrap();
    assert!(pair.server.cancel_request(cancelled));
    pair.deliver();
    pair.server.handle_eof(pair.now);
    // The waiting one ends as closed; the cancelled one gets no outcome; no deadline is left.
    assert_eq!(pair.server.handler().responses, [(waiting, String::from("closed"))]);
    assert_eq!(pair.server.poll_timeout(), None);
    assert_eq!(pair.server.engine().awaiting_answers(), 0);
    assert!(pair.server.is_finished());
}
