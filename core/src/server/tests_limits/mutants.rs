//! Tests added for mutants `cargo mutants` found surviving (see docs/testing.md, "Mutation testing"): each
//! asserts a behaviour no other test pinned down.

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::json;

use super::support::*;
use crate::connection::Connection;
use crate::endpoint::SendError;
use crate::server::InputError;

#[test]
fn send_and_input_errors_say_what_went_wrong() {
    for (error, text) in [
        (SendError::Full, "the transmit buffer is full: transmit, then try again"),
        (SendError::TooLarge, "the message is larger than the largest message the engine writes"),
        (SendError::TooManyRequests, "too many requests to the peer are awaiting an answer"),
        (SendError::NotAvailable, "not available in this state or protocol version"),
        (SendError::Closed, "the connection is closed"),
    ] {
        assert_eq!(error.to_string(), text);
    }
    assert_eq!(InputError::Busy.to_string(), "no transmit room for the answer: transmit, then try again");
    use crate::server::{DeferError, ReplyError};
    assert_eq!(
        DeferError::TooManyInFlight.to_string(),
        "too many deferred requests (the engine's IN_FLIGHT slots are taken)"
    );
    assert_eq!(DeferError::IdTooLong.to_string(), "the request id is too long to be kept for a deferred answer");
    assert_eq!(DeferError::NotDeferrable.to_string(), "this reply cannot be deferred");
    assert_eq!(ReplyError::Cancelled.to_string(), "the client cancelled the request");
    assert_eq!(ReplyError::Busy.to_string(), "no transmit room for the answer: transmit, then try again");
    assert_eq!(ReplyError::Unknown.to_string(), "no pending request of this kind has this handle");
    assert_eq!(InputError::Closed.to_string(), "the input has ended");
}

#[test]
fn requests_to_the_client_have_distinct_wire_ids_and_answers_reach_the_right_one() {
    let mut h = Harness::new();
    h.initialize("2025-11-25");
    let first = h.server.ping(h.now).unwrap();
    let second = h.server.send_request(h.now, "roots/list", None).unwrap();
    assert_eq!(h.server.engine().awaiting_answers(), 2);
    let sent = h.flush();
    assert_eq!(
        sent,
        [
            json!({"jsonrpc":"2.0","id":first.id(),"method":"ping"}),
            json!({"jsonrpc":"2.0","id":second.id(),"method":"roots/list"}),
        ]
    );
    assert_ne!(first.id(), second.id());
    // The second is answered first: its outcome is reported for its key, and one stays waiting.
    let answer = std::format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"roots\":[]}}}}\n", second.id());
    assert!(h.feed(answer.as_bytes()).is_empty());
    assert_eq!(h.server.handler().responses, [(second, String::from("result"))]);
    assert_eq!(h.server.engine().awaiting_answers(), 1);
    let error =
        std::format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":-1,\"message\":\"no\"}}}}\n", first.id());
    assert!(h.feed(error.as_bytes()).is_empty());
    assert_eq!(h.server.handler().responses[1], (first, String::from("error -1")));
    assert_eq!(h.server.engine().awaiting_answers(), 0);
    h.assert_serving();
}

#[test]
fn the_engine_is_finished_only_once_queued_output_is_written() {
    // Room for several answers: the end of input is processed while an answer still waits.
    let limits = crate::server::Limits { max_response: 512, ..crate::server::Limits::default() };
    let mut h = Harness::with(4096, 4096, limits, App::default());
    let taken = h.server.handle_input(h.now, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    assert_eq!(taken, 41);
    h.server.handle_eof(h.now);
    assert!(h.server.poll_transmit().is_some());
    assert!(!h.server.is_finished(), "the answer is not written yet");
    assert_eq!(h.flush(), [json!({"jsonrpc":"2.0","id":1,"result":{}})]);
    assert!(h.server.is_finished());
}

#[test]
fn answers_stay_whole_when_the_transmit_buffer_compacts_under_partial_writes() {
    // Answers of about 250 bytes in a 1000-byte buffer with 300-byte windows, written 97 bytes at a
    // time: the queue's tail keeps reaching the end while its head is not at the start, so every few
    // answers the queue must move what is pending to the front to open a whole window.
    let limits = crate::server::Limits { max_response: 300, ..crate::server::Limits::default() };
    let mut h = Harness::with(8192, 1000, limits, App::default());
    let text = |id: u32| std::format!("{id:03}{}", "t".repeat(90));
    let mut input = String::new();
    for id in 0..40 {
        input.push_str(&modern(
            id,
            "tools/call",
            &std::format!(r#""name":"echo","arguments":{{"text":"{}"}}"#, text(id)),
        ));
        input.push('\n');
    }
    let mut rest = input.as_bytes();
    let mut out = Vec::new();
    for _ in 0..100_000 {
        let taken = h.server.handle_input(h.now, rest);
        rest = &rest[taken..];
        match h.server.poll_transmit() {
            Some(pending) => {
                let n = pending.len().min(97);
                out.extend_from_slice(&pending[..n]);
                h.server.transmit_done(h.now, n);
            }
            None if rest.is_empty() => break,
            None => {}
        }
    }
    let answers = lines(&out);
    assert_eq!(answers.len(), 40);
    for (id, answer) in answers.iter().enumerate() {
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["result"]["content"][0]["text"], text(id as u32), "{answer}");
    }
}

#[cfg(feature = "http")] // SSE framing
#[test]
fn ending_a_stream_does_not_end_the_one_queued_before_it() {
    use crate::endpoint::{Framing, Route, StreamId};
    let mut app = App::default();
    let mut config = crate::server::Config::new("s", "1");
    config.limits.max_response = 512;
    let mut engine: crate::server::Engine<'static> = crate::server::Engine::new(
        config,
        crate::server::Buffers { rx: std::vec![0u8; 1024].leak(), tx: std::vec![0u8; 4096].leak() },
    );
    let one = Route::new(StreamId(1), Framing::Sse);
    engine.notify_on(one, "notifications/message", None).unwrap();
    engine.end_stream(StreamId(2)).unwrap();
    let first = engine.poll_transmit().unwrap();
    assert_eq!((first.stream, first.end_of_stream), (StreamId(1), false));
    let n = first.bytes.len();
    engine.transmit_done(crate::time::Instant::ZERO, n, &mut app);
    let second = engine.poll_transmit().unwrap();
    assert_eq!((second.stream, second.end_of_stream, second.bytes.len()), (StreamId(2), true, 0));
    engine.transmit_done(crate::time::Instant::ZERO, 0, &mut app);
    assert!(engine.poll_transmit().is_none());
    // Ending the stream queued last marks its last run instead.
    engine.notify_on(one, "notifications/message", None).unwrap();
    engine.end_stream(StreamId(1)).unwrap();
    let last = engine.poll_transmit().unwrap();
    assert_eq!((last.stream, last.end_of_stream), (StreamId(1), true));
    assert!(!last.bytes.is_empty());
}

#[test]
fn a_cancellation_cancels_only_the_request_it_names() {
    let mut h = Harness::new();
    for id in 1..=2 {
        let line = modern(id, "tools/call", r#""name":"defer""#);
        assert!(h.feed(std::format!("{line}\n").as_bytes()).is_empty());
    }
    let cancel = |id: u32| {
        std::format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id}}}}}\n"
        )
    };
    // An id no deferred request has cancels nothing.
    assert!(h.feed(cancel(99).as_bytes()).is_empty());
    let deferred = std::mem::take(&mut h.server.handler_mut().deferred);
    assert!(deferred.iter().all(|d| !h.server.is_cancelled(d)));
    assert!(h.feed(cancel(2).as_bytes()).is_empty());
    assert_eq!(deferred.iter().map(|d| h.server.is_cancelled(d)).collect::<Vec<_>>(), [false, true]);
    // Cancelled twice: reported once.
    assert!(h.feed(cancel(2).as_bytes()).is_empty());
    assert_eq!(h.server.handler().events.iter().filter(|e| e.contains("Cancelled")).count(), 1);
    h.server.reply_tool(&deferred[0]).unwrap().text("one").finish();
    assert_eq!(h.flush()[0]["id"], 1);
}

#[test]
fn any_one_modern_meta_key_makes_a_request_modern_even_in_a_legacy_session() {
    let mut h = Harness::new();
    h.initialize("2025-11-25");
    for key in ["clientCapabilities", "clientInfo", "protocolVersion"] {
        let value = if key == "protocolVersion" { r#""2025-11-25""# } else { "{}" };
        let line = std::format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/{key}":{value}}}}}}}"#
        );
        let answer = h.request(&line);
        assert!(answer.get("error").is_some(), "{key} alone must select the modern era: {answer}");
    }
    // Other `_meta` keys leave a legacy request legacy.
    let line = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"progressToken":1}}}"#;
    assert_eq!(h.request(line)["result"]["tools"][0]["name"], "echo");
}

#[test]
fn methods_of_undeclared_capabilities_are_not_found() {
    let mut config = crate::server::Config::new("none", "1");
    config.capabilities = Some(crate::mcp::ServerCapabilities::NONE);
    let mut h = Harness::with_config(4096, 4096, config, App::default());
    let methods = [
        ("tools/list", ""),
        ("tools/call", r#""name":"echo","arguments":{"text":"x"}"#),
        ("resources/list", ""),
        ("resources/templates/list", ""),
        ("resources/read", r#""uri":"test://r""#),
        ("prompts/list", ""),
        ("prompts/get", r#""name":"talk","arguments":{"topic":"t"}"#),
        ("completion/complete", r#""ref":{"type":"ref/prompt","name":"talk"},"argument":{"name":"topic","value":""}"#),
    ];
    for (method, params) in methods {
        h.expect_error(&modern(1, method, params), crate::jsonrpc::code::METHOD_NOT_FOUND, json!(1));
    }
    h.initialize("2025-06-18");
    for (method, params) in methods {
        h.expect_error(&legacy(2, method, params), crate::jsonrpc::code::METHOD_NOT_FOUND, json!(2));
    }
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        h.expect_error(&legacy(3, method, r#""uri":"test://r""#), crate::jsonrpc::code::METHOD_NOT_FOUND, json!(3));
    }
    h.assert_ping_served();
    // Declared, subscriptions are still not a 2026-07-28 method.
    let mut config = crate::server::Config::new("subscribe", "1");
    config.capabilities = Some(
        crate::mcp::ServerCapabilities::NONE
            .with_resources(crate::mcp::ResourceCapability { subscribe: true, list_changed: false }),
    );
    let mut h = Harness::with_config(4096, 4096, config, App::default());
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        h.expect_error(&modern(4, method, r#""uri":"test://r""#), crate::jsonrpc::code::METHOD_NOT_FOUND, json!(4));
    }
    h.initialize("2025-06-18");
    assert_eq!(h.request(&legacy(5, "resources/unsubscribe", r#""uri":"test://r""#))["result"], json!({}));
}

/// An engine over heap buffers, outside [`Harness`]'s `Server`, for the engine's own entry points.
fn engine(rx: usize, tx: usize) -> crate::server::Engine<'static> {
    let mut config = crate::server::Config::new("s", "1");
    config.limits.max_response = 512;
    crate::server::Engine::new(
        config,
        crate::server::Buffers { rx: std::vec![0u8; rx].leak(), tx: std::vec![0u8; tx].leak() },
    )
}

#[test]
fn a_whole_message_needs_the_minimum_window() {
    use crate::endpoint::{Framing, Route, StreamId};
    use crate::server::{MIN_RESPONSE_WINDOW, Received};
    let mut app = App::default();
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let route = Route::new(StreamId(1), Framing::Body).ending_with_response();
    let mut exact = engine(1024, MIN_RESPONSE_WINDOW);
    assert_eq!(exact.handle_message(crate::time::Instant::ZERO, route, ping, &mut app), Ok(Received::Request));
    assert_eq!(exact.poll_transmit().unwrap().bytes, br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    let mut small = engine(1024, MIN_RESPONSE_WINDOW - 1);
    assert_eq!(small.handle_message(crate::time::Instant::ZERO, route, ping, &mut app), Err(InputError::Busy));
}

#[test]
fn bytes_read_into_the_spare_room_are_served_once_committed_and_not_after_the_end() {
    let now = crate::time::Instant::ZERO;
    let mut app = App::default();
    let mut engine = engine(1024, 1024);
    let ping = |id: u32| std::format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
    let first = ping(1);
    engine.rx_spare()[..first.len()].copy_from_slice(first.as_bytes());
    assert!(engine.poll_transmit().is_none(), "not committed yet");
    engine.rx_commit(now, first.len(), &mut app);
    let t = engine.poll_transmit().unwrap();
    assert_eq!(t.bytes, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    let n = t.bytes.len();
    engine.transmit_done(now, n, &mut app);
    // Bytes placed but never committed before the input ended are not taken by a late commit.
    let second = ping(2);
    engine.rx_spare()[..second.len()].copy_from_slice(second.as_bytes());
    engine.handle_eof(now, &mut app);
    assert!(engine.rx_spare().is_empty());
    engine.rx_commit(now, second.len(), &mut app);
    assert!(engine.poll_transmit().is_none());
}

#[test]
fn input_waits_while_the_transmit_buffer_has_no_whole_window() {
    use crate::server::MIN_RESPONSE_WINDOW;
    let now = crate::time::Instant::ZERO;
    let mut app = App::default();
    let mut engine = engine(1024, MIN_RESPONSE_WINDOW);
    let pings =
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
    assert_eq!(engine.handle_input(now, pings, &mut app), pings.len(), "both buffered");
    let first = engine.poll_transmit().unwrap().bytes.to_vec();
    assert_eq!(first, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", "the second waits for room");
    engine.transmit_done(now, first.len(), &mut app);
    assert_eq!(engine.poll_transmit().unwrap().bytes, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n");
}

/// Tables only: every method is the trait's default.
struct Tables;

static TABLE_TOOLS: [crate::server::Tool<'static>; 1] = [crate::server::Tool::new("t", "a tool", "{}")];
static TABLE_RESOURCES: [crate::server::Resource<'static>; 1] = [crate::server::Resource::new("test://t", "t")];
static TABLE_PROMPTS: [crate::server::Prompt<'static>; 1] = [crate::server::Prompt::new("p", &[])];

impl crate::server::Handler for Tables {
    const TOOLS: &'static [crate::server::Tool<'static>] = &TABLE_TOOLS;
    const RESOURCES: &'static [crate::server::Resource<'static>] = &TABLE_RESOURCES;
    const PROMPTS: &'static [crate::server::Prompt<'static>] = &TABLE_PROMPTS;

    fn capabilities(&self) -> crate::mcp::ServerCapabilities {
        crate::server::handler::table_capabilities::<Self>().with_completions()
    }
}

#[test]
fn the_handlers_default_methods_answer_for_an_application_that_has_only_tables() {
    let mut server: crate::server::Server<'static, Tables> = crate::server::Server::new(
        Tables,
        crate::server::Config::new("tables", "1"),
        crate::server::Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; 4096].leak() },
    );
    let mut ask = |line: String| {
        let line = line + "\n";
        assert_eq!(server.handle_input(crate::time::Instant::ZERO, line.as_bytes()), line.len());
        let mut out = Vec::new();
        while let Some(pending) = server.poll_transmit() {
            out.extend_from_slice(pending);
            let n = pending.len();
            server.transmit_done(crate::time::Instant::ZERO, n);
        }
        let mut answers = lines(&out);
        assert_eq!(answers.len(), 1, "{answers:?}");
        answers.remove(0)
    };
    let call = ask(modern(1, "tools/call", r#""name":"t""#));
    assert_eq!(call["result"]["isError"], true, "{call}");
    assert_eq!(call["result"]["content"][0]["text"], "this server has no tools");
    let read = ask(modern(2, "resources/read", r#""uri":"test://t""#));
    assert_eq!(
        (read["error"]["code"].clone(), read["error"]["data"]["uri"].clone()),
        (json!(-32602), json!("test://t"))
    );
    let get = ask(modern(3, "prompts/get", r#""name":"p""#));
    assert_eq!(get["error"], json!({"code":-32603,"message":"this server has no prompts"}));
    let complete = ask(modern(
        4,
        "completion/complete",
        r#""ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}"#,
    ));
    assert_eq!(complete["result"]["completion"]["values"], json!([]), "{complete}");
}

/// Drives `connection` as the run loop of an adapter would: a ping read into the spare room, its
/// answer, a request to the client that times out, the end of input.
fn drive_a_connection(connection: &mut impl Connection) {
    let now = crate::time::Instant::ZERO;
    let ping = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    connection.rx_spare()[..ping.len()].copy_from_slice(ping);
    connection.rx_commit(now, ping.len());
    let answer = connection.poll_transmit().unwrap().to_vec();
    assert_eq!(answer, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    connection.transmit_done(now, answer.len());
    assert_eq!(connection.poll_transmit(), None);
    assert_eq!(connection.poll_timeout(), None);
    assert!(!connection.is_finished());
    connection.handle_eof(now);
    assert!(connection.is_finished());
}

#[test]
fn servers_and_bound_engines_are_connections_alike() {
    let mut h = Harness::new();
    drive_a_connection(&mut h.server);
    let mut app = App::default();
    let mut engine = engine(1024, 1024);
    drive_a_connection(&mut engine.bind(&mut app));
}

/// Opens a 2025-11-25 session on `connection`, writing everything out.
fn initialize_connection(connection: &mut impl Connection) {
    let now = crate::time::Instant::ZERO;
    for line in [
        &br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#[..],
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ] {
        let spare = connection.rx_spare();
        spare[..line.len()].copy_from_slice(line);
        spare[line.len()] = b'\n';
        connection.rx_commit(now, line.len() + 1);
        while let Some(out) = connection.poll_transmit() {
            let n = out.len();
            connection.transmit_done(now, n);
        }
    }
}

#[test]
fn a_connection_reports_the_deadline_of_a_request_to_the_client_and_its_timeout() {
    let mut h = Harness::new();
    initialize_connection(&mut h.server);
    let key = h.server.ping(h.now).unwrap();
    h.flush();
    let deadline = Connection::poll_timeout(&h.server).expect("a deadline");
    Connection::handle_timeout(&mut h.server, deadline);
    assert_eq!(h.server.handler().responses, [(key, String::from("timed out"))]);
    let cancelled = h.flush();
    assert_eq!(cancelled[0]["method"], "notifications/cancelled", "{cancelled:?}");
    // The same through a bound engine.
    let mut app = App::default();
    let mut engine = engine(4096, 4096);
    initialize_connection(&mut engine.bind(&mut app));
    let key = engine.ping(crate::time::Instant::ZERO).unwrap();
    let mut bound = engine.bind(&mut app);
    while let Some(out) = bound.poll_transmit() {
        let n = out.len();
        bound.transmit_done(crate::time::Instant::ZERO, n);
    }
    let deadline = bound.poll_timeout().expect("a deadline");
    bound.handle_timeout(deadline);
    assert!(
        bound
            .poll_transmit()
            .is_some_and(|out| out.starts_with(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\""))
    );
    assert_eq!(app.responses, [(key, String::from("timed out"))]);
}

#[test]
fn a_tool_answers_an_error_result_or_a_protocol_error_as_its_handler_says() {
    let mut h = Harness::new();
    h.server.handler_mut().tools.extend(["refuse", "partial"]);
    let partial = h.request(&modern(1, "tools/call", r#""name":"partial""#));
    assert_eq!(partial["result"]["isError"], true, "{partial}");
    assert_eq!(partial["result"]["content"], json!([{"type":"text","text":"partial"}]));
    h.expect_error(&modern(2, "tools/call", r#""name":"refuse""#), -32602, json!(2));
    h.assert_serving();
}

#[cfg(feature = "http")] // SSE framing
#[test]
fn input_waits_while_every_transmit_record_is_taken() {
    use crate::endpoint::{Framing, MAX_TX_RECORDS, Route, StreamId};
    let now = crate::time::Instant::ZERO;
    let mut app = App::default();
    let mut engine = engine(1024, 8192);
    for stream in 0..MAX_TX_RECORDS as u32 {
        engine.notify_on(Route::new(StreamId(100 + stream), Framing::Sse), "notifications/message", None).unwrap();
    }
    let ping = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    assert_eq!(engine.handle_input(now, ping, &mut app), ping.len());
    let mut answers = 0;
    while let Some(t) = engine.poll_transmit() {
        if t.stream == StreamId::BYTE_STREAM {
            assert_eq!(t.bytes, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
            answers += 1;
        }
        let n = t.bytes.len();
        engine.transmit_done(now, n, &mut app);
    }
    assert_eq!(answers, 1, "answered once a record was free");
}
