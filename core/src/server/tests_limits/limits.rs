//! docs/limits.md "Limits": each limit at its value (served) and one past it (the documented answer), then the
//! engine keeps serving.

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::json;

use super::support::*;
use crate::connection::Connection;
// Some of these only in the SSE tests (`http`).
#[cfg_attr(not(feature = "http"), allow(unused_imports))]
use crate::endpoint::{Framing, MAX_TX_RECORDS, Route, SendError, StreamId};
use crate::frame::{SseDecoder, SseError};
use crate::jsonrpc::{MAX_ID_LEN, code};
#[cfg_attr(not(feature = "http"), allow(unused_imports))]
use crate::server::{
    Config, DEFAULT_MAX_DEPTH, DEFAULT_PAGE_SIZE, DEFAULT_REQUEST_TIMEOUT, Engine, InputError, Limits, MAX_BATCH_LEN,
    MAX_ESCAPED_NAME_LEN, MIN_RESPONSE_WINDOW, Received,
};
use crate::time::{Duration, Instant};

/// A ping padded with spaces to exactly `len` bytes (without the newline).
fn ping_of_len(id: u32, len: usize) -> String {
    let mut line = std::format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
    assert!(line.len() <= len);
    line.insert_str(1, &" ".repeat(len - line.len()));
    line
}

#[test]
fn message_length_is_the_receive_buffer_and_the_stream_resynchronises() {
    let mut h = Harness::with(256, 4096, Limits::default(), App::default());
    // Exactly the buffer length (the newline not counted) is served.
    let pong = h.request(&ping_of_len(1, 256));
    assert_eq!(pong, json!({"jsonrpc":"2.0","id":1,"result":{}}));
    // One byte more: -32600 without an id (the line is never parsed), and only that line is lost.
    let mut input = ping_of_len(2, 257).into_bytes();
    input.extend_from_slice(b"\n");
    input.extend_from_slice(ping_of_len(3, 100).as_bytes());
    input.extend_from_slice(b"\n");
    let out = h.feed(&input);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(error_code(&out[0]), i64::from(code::INVALID_REQUEST));
    assert!(out[0].get("id").is_none());
    assert!(out[0]["error"]["message"].as_str().unwrap().contains("256-byte"), "{}", out[0]);
    assert_eq!(out[1], json!({"jsonrpc":"2.0","id":3,"result":{}}), "resynchronised at the next newline");
    h.assert_serving();
}

/// A ping whose `params` nest `depth` levels in all (the message object is level 1).
fn nested_ping(id: u32, depth: usize) -> String {
    assert!(depth >= 2);
    let arrays = depth - 2;
    std::format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"a":{}{}}}}}"#,
        "[".repeat(arrays),
        "]".repeat(arrays)
    )
}

#[test]
fn json_nesting_is_limited_by_max_depth() {
    assert_eq!(Limits::default().max_depth, DEFAULT_MAX_DEPTH);
    assert_eq!(DEFAULT_MAX_DEPTH, 64);
    for max_depth in [8, DEFAULT_MAX_DEPTH] {
        let mut h = Harness::with(8192, 4096, Limits { max_depth, ..Limits::default() }, App::default());
        let ok = h.request(&nested_ping(1, max_depth));
        assert_eq!(ok, json!({"jsonrpc":"2.0","id":1,"result":{}}), "depth {max_depth} is within the limit");
        // The request's id is read past the deep member.
        let answer = h.expect_error(&nested_ping(2, max_depth + 1), code::INVALID_REQUEST, json!(2));
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(&std::format!("deeper than {max_depth}")), "{message}");
        h.assert_serving();
    }
    // The limit is clamped to 256 (`json::MAX_DEPTH_LIMIT`).
    assert_eq!(crate::json::MAX_DEPTH_LIMIT, 256);
    let mut h = Harness::with(8192, 4096, Limits { max_depth: 10_000, ..Limits::default() }, App::default());
    assert_eq!(h.request(&nested_ping(1, 256))["result"], json!({}));
    h.expect_error(&nested_ping(2, 257), code::INVALID_REQUEST, json!(2));
    h.assert_serving();
}

fn echo(id: u32, len: usize) -> String {
    modern(id, "tools/call", &std::format!(r#""name":"echo","arguments":{{"text":"{}"}}"#, "y".repeat(len)))
}

#[test]
fn max_response_below_the_transmit_buffer_limits_each_answer() {
    // A transmit buffer with room for 4096 bytes, answers limited to 400.
    let limits = Limits { max_response: 400, ..Limits::default() };
    let mut h = Harness::with(8192, 4096, limits, App::default());
    let fits = h.request(&echo(1, 200));
    assert_eq!(fits["result"]["content"][0]["text"].as_str().map(str::len), Some(200));
    let answer = h.expect_error(&echo(2, 500), code::INTERNAL_ERROR, json!(2));
    assert!(answer["error"]["message"].as_str().unwrap().contains("400-byte"), "{answer}");
    h.assert_serving();
    // The same request without the limit is answered: the limit, not the buffer, refused it.
    let mut unlimited = Harness::with(8192, 4096, Limits::default(), App::default());
    assert_eq!(unlimited.request(&echo(2, 500))["result"]["content"][0]["text"].as_str().map(str::len), Some(500));
}

#[test]
fn max_response_is_clamped_to_the_transmit_buffer_and_to_the_minimum_window() {
    // Above the transmit buffer: the whole buffer.
    let mut h = Harness::with(8192, 600, Limits { max_response: 100_000, ..Limits::default() }, App::default());
    let answer = h.request(&echo(1, 400));
    assert!(answer.get("result").is_some(), "{answer}");
    let answer = h.expect_error(&echo(2, 700), code::INTERNAL_ERROR, json!(2));
    assert!(answer["error"]["message"].as_str().unwrap().contains("600-byte"), "{answer}");
    h.assert_serving();
    // Below `MIN_RESPONSE_WINDOW`: the minimum.
    assert_eq!(MIN_RESPONSE_WINDOW, 256);
    let mut h = Harness::with(8192, 4096, Limits { max_response: 10, ..Limits::default() }, App::default());
    let answer = h.request(&echo(1, 50));
    assert!(answer.get("result").is_some(), "a 10-byte limit still allows 256 bytes: {answer}");
    let answer = h.expect_error(&echo(2, 300), code::INTERNAL_ERROR, json!(2));
    assert!(answer["error"]["message"].as_str().unwrap().contains("256-byte"), "{answer}");
    h.assert_ping_served();
}

/// Walks `tools/list` to its end; returns the page lengths and every name.
fn walk_tools(h: &mut Harness) -> (Vec<usize>, Vec<String>) {
    let (mut pages, mut names, mut cursor) = (Vec::new(), Vec::new(), None::<String>);
    for id in 1.. {
        assert!(id < 1000, "pagination does not end");
        let params = cursor.as_ref().map(|c| std::format!(r#""cursor":"{c}""#)).unwrap_or_default();
        let page = h.request(&modern(id, "tools/list", &params));
        let tools = page["result"]["tools"].as_array().unwrap_or_else(|| panic!("{page}"));
        pages.push(tools.len());
        names.extend(tools.iter().map(|t| t["name"].as_str().unwrap().to_string()));
        match page["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.as_str().unwrap().to_string()),
            None => return (pages, names),
        }
    }
    unreachable!()
}

#[test]
fn list_pages_end_early_at_max_response_with_a_cursor() {
    let mut app = App::default();
    app.tools.extend((0..20).map(|i| &*std::format!("tool-{i:02}-{}", "x".repeat(40)).leak()));
    let all: Vec<String> = app.tools.iter().map(|s| s.to_string()).collect();
    let mut h = Harness::with(8192, 8192, Limits { max_response: 700, ..Limits::default() }, app);
    let (pages, names) = walk_tools(&mut h);
    assert_eq!(names, all, "every tool once, in order");
    assert!(pages.len() > 2 && pages.iter().all(|&n| n > 0 && n < all.len()), "{pages:?}");
    h.assert_serving();
}

#[test]
fn page_size_limits_list_pages() {
    assert_eq!(Limits::default().page_size, DEFAULT_PAGE_SIZE);
    assert_eq!(DEFAULT_PAGE_SIZE, 100);
    let mut app = App::default();
    app.tools.extend((0..98).map(|i| &*std::format!("t{i}").leak()));
    assert_eq!(app.tools.len(), 101);
    let mut h = Harness::with(8192, 65536, Limits::default(), app);
    let (pages, _) = walk_tools(&mut h);
    assert_eq!(pages, [100, 1]);
    let mut h = Harness::with(8192, 8192, Limits { page_size: 2, ..Limits::default() }, App::default());
    let first = h.request(&modern(1, "tools/list", ""));
    assert_eq!(first["result"]["tools"].as_array().unwrap().len(), 2);
    assert_eq!(first["result"]["nextCursor"], "2");
    let (pages, _) = walk_tools(&mut h);
    assert_eq!(pages, [2, 1]);
    h.assert_serving();
    let mut app = App::default();
    app.tools.extend(["t3", "t4"]);
    let mut h = Harness::with(8192, 8192, Limits { page_size: 2, ..Limits::default() }, app);
    assert_eq!(walk_tools(&mut h).0, [2, 2, 1], "every page but the last is full");
}

fn defer(id: &str) -> String {
    std::format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"defer",{MODERN_META}}}}}"#)
}

#[test]
fn deferred_requests_are_limited_by_in_flight_default_four() {
    let mut h = Harness::new();
    for id in 1..=4u32 {
        assert!(h.feed(std::format!("{}\n", defer(&id.to_string())).as_bytes()).is_empty());
    }
    assert_eq!(h.server.in_flight(), 4);
    let busy = h.expect_error(&defer("5"), code::INTERNAL_ERROR, json!(5));
    assert!(busy["error"]["message"].as_str().unwrap().to_lowercase().contains("server busy"), "{busy}");
    assert_eq!(h.server.in_flight(), 4);
    h.assert_serving();
    // A slot freed is a slot to use again.
    let deferred = h.server.handler_mut().deferred.remove(0);
    h.server.reply_tool(&deferred).unwrap().text("late").finish();
    assert_eq!(h.flush()[0]["id"], 1);
    assert!(h.feed(std::format!("{}\n", defer("6")).as_bytes()).is_empty());
    assert_eq!(h.server.in_flight(), 4);
}

#[test]
fn string_ids_longer_than_max_id_len_cannot_be_deferred() {
    assert_eq!(MAX_ID_LEN, 64);
    let mut h = Harness::new();
    // 64 bytes, unescaped: kept (here written with an escape, so 69 bytes on the wire).
    let at_limit = std::format!("\"{}\"", escape_first(&"i".repeat(MAX_ID_LEN)));
    assert!(h.feed(std::format!("{}\n", defer(&at_limit)).as_bytes()).is_empty());
    let deferred = h.server.handler_mut().deferred.pop().unwrap();
    h.server.reply_tool(&deferred).unwrap().text("late").finish();
    assert_eq!(h.flush()[0]["id"], "i".repeat(MAX_ID_LEN), "the answer carries the id, unescaped");
    // 65 bytes: -32603 when deferring, with the id (the immediate error can still echo it).
    let over = "j".repeat(MAX_ID_LEN + 1);
    let answer = h.expect_error(&defer(&std::format!("\"{over}\"")), code::INTERNAL_ERROR, json!(over));
    assert!(answer["error"]["message"].as_str().unwrap().contains("64 bytes"), "{answer}");
    assert_eq!(h.server.in_flight(), 0);
    // Immediate answers are not limited.
    let call = std::format!(
        r#"{{"jsonrpc":"2.0","id":"{over}","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"t"}},{MODERN_META}}}}}"#
    );
    assert_eq!(h.request(&call)["id"], over);
    h.assert_serving();
}

#[test]
fn escaped_names_and_uris_are_limited_to_max_escaped_name_len() {
    assert_eq!(MAX_ESCAPED_NAME_LEN, 256);
    let at = leaked('n', MAX_ESCAPED_NAME_LEN);
    let over = leaked('m', MAX_ESCAPED_NAME_LEN + 1);
    let mut app = App::default();
    app.tools.extend([at, over]);
    app.prompts.extend([at, over]);
    let mut h = Harness::with(8192, 8192, Limits::default(), app);
    let call = |name: &str| modern(1, "tools/call", &std::format!(r#""name":"{name}""#));
    let get = |name: &str| modern(2, "prompts/get", &std::format!(r#""name":"{name}","arguments":{{"topic":"t"}}"#));
    let read = |uri: &str| modern(3, "resources/read", &std::format!(r#""uri":"{uri}""#));
    let long_uri = |n: usize| std::format!("long:{}", "u".repeat(n - 5));

    // At the limit, with an escape: found.
    assert_eq!(h.request(&call(&escape_first(at)))["result"]["content"][0]["text"], "called 256");
    assert_eq!(h.request(&get(&escape_first(at)))["result"]["messages"][0]["content"]["text"], "prompt 256");
    let uri = long_uri(MAX_ESCAPED_NAME_LEN);
    assert_eq!(h.request(&read(&escape_first(&uri)))["result"]["contents"][0]["text"], "read 256");
    // One past it, with an escape: -32602. Without an escape: no limit.
    for (line, id) in
        [(call(&escape_first(over)), 1), (get(&escape_first(over)), 2), (read(&escape_first(&long_uri(257))), 3)]
    {
        let answer = h.expect_error(&line, code::INVALID_PARAMS, json!(id));
        assert!(answer["error"]["message"].as_str().unwrap().contains("longer than 256"), "{answer}");
        h.assert_serving();
    }
    assert_eq!(h.request(&call(over))["result"]["content"][0]["text"], "called 257");
    assert_eq!(h.request(&get(over))["result"]["messages"][0]["content"]["text"], "prompt 257");
    assert_eq!(h.request(&read(&long_uri(257)))["result"]["contents"][0]["text"], "read 257");
}

fn batch_of_pings(n: usize) -> String {
    let elements: Vec<String> =
        (1..=n).map(|id| std::format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)).collect();
    std::format!("[{}]\n", elements.join(","))
}

#[test]
fn batches_hold_at_most_max_batch_len_messages() {
    assert_eq!(MAX_BATCH_LEN, 64);
    let mut h = Harness::with(16384, 4096, Limits::default(), App::default());
    h.initialize("2025-03-26");
    let out = h.feed(batch_of_pings(MAX_BATCH_LEN).as_bytes());
    let ids: Vec<i64> = out.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, (1..=64).collect::<Vec<_>>(), "each of 64 elements answered once");
    assert!(out.iter().all(|a| a["result"] == json!({})));
    let out = h.feed(batch_of_pings(MAX_BATCH_LEN + 1).as_bytes());
    assert_eq!(out.len(), 1, "a 65-element batch is refused as a whole: {out:?}");
    assert_eq!(error_code(&out[0]), i64::from(code::INVALID_REQUEST));
    assert!(out[0].get("id").is_none());
    assert!(out[0]["error"]["message"].as_str().unwrap().contains("at most 64"), "{}", out[0]);
    h.assert_serving();
    assert_eq!(h.feed(batch_of_pings(2).as_bytes()).len(), 2, "batches are still served");
}

#[test]
fn requests_to_the_client_are_limited_by_outbound_default_two() {
    let mut h = Harness::new();
    h.initialize("2025-11-25");
    let first = h.server.ping(h.now).unwrap();
    let second = h.server.send_request(h.now, "roots/list", None).unwrap();
    assert_eq!(h.server.ping(h.now), Err(SendError::TooManyRequests));
    assert_eq!(h.server.send_request(h.now, "roots/list", None), Err(SendError::TooManyRequests));
    let sent = h.flush();
    assert_eq!(sent.len(), 2, "the refused requests wrote nothing: {sent:?}");
    h.assert_serving();
    // An answer frees a place.
    assert!(
        h.feed(std::format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{}}}}\n", first.id()).as_bytes()).is_empty()
    );
    assert_eq!(h.server.handler().responses, [(first, String::from("result"))]);
    assert!(h.server.ping(h.now).is_ok());
    assert_ne!(first, second);
}

#[test]
fn an_unanswered_request_is_cancelled_after_the_default_30_s() {
    assert_eq!(DEFAULT_REQUEST_TIMEOUT, Duration::from_secs(30));
    assert_eq!(Config::new("a", "1").request_timeout, Some(DEFAULT_REQUEST_TIMEOUT));
    let mut h = Harness::new();
    h.initialize("2025-11-25");
    h.now = Instant::from_millis(1_000);
    let key = h.server.ping(h.now).unwrap();
    h.flush();
    assert_eq!(h.server.poll_timeout(), Some(Instant::from_millis(31_000)));
    h.server.handle_timeout(Instant::from_millis(30_999));
    assert!(h.flush().is_empty() && h.server.handler().responses.is_empty(), "not before 30 s");
    h.now = Instant::from_millis(31_000);
    h.server.handle_timeout(h.now);
    assert_eq!(
        h.flush(),
        [json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":key.id()}})]
    );
    assert_eq!(h.server.handler().responses, [(key, String::from("timed out"))]);
    assert_eq!(h.server.poll_timeout(), None);
    h.assert_serving();
}

#[cfg(feature = "http")] // SSE framing
#[test]
fn queued_runs_of_different_streams_are_limited_to_max_tx_records() {
    assert_eq!(MAX_TX_RECORDS, 8);
    let mut app = App::default();
    let mut config = Config::new("limits", "1.0.0");
    config.limits.max_response = 512;
    let mut engine: Engine<'static> = Engine::new(
        config,
        crate::server::Buffers { rx: std::vec![0u8; 1024].leak(), tx: std::vec![0u8; 16384].leak() },
    );
    let ping = modern(1, "tools/list", "");
    let route = |stream: u32| Route::new(StreamId(stream), Framing::Sse);
    for stream in 1..=MAX_TX_RECORDS as u32 {
        assert_eq!(
            engine.handle_message(Instant::ZERO, route(stream), ping.as_bytes(), &mut app),
            Ok(Received::Request)
        );
    }
    // A ninth stream: held back, untouched, although the buffer has room.
    assert!(engine.poll_transmit().is_some());
    let ninth = route(MAX_TX_RECORDS as u32 + 1);
    assert_eq!(engine.handle_message(Instant::ZERO, ninth, ping.as_bytes(), &mut app), Err(InputError::Busy));
    assert_eq!(engine.notify_on(ninth, "notifications/message", None), Err(SendError::Full));
    // A stream already queued last still takes more.
    assert_eq!(engine.notify_on(route(MAX_TX_RECORDS as u32), "notifications/message", None), Ok(()));
    // Once one run is written, the ninth stream is served.
    let first = engine.poll_transmit().unwrap();
    assert_eq!(first.stream, StreamId(1));
    let n = first.bytes.len();
    engine.transmit_done(Instant::ZERO, n, &mut app);
    assert_eq!(engine.handle_message(Instant::ZERO, ninth, ping.as_bytes(), &mut app), Ok(Received::Request));
    let mut streams = Vec::new();
    while let Some(t) = engine.poll_transmit() {
        streams.push(t.stream.0);
        let n = t.bytes.len();
        engine.transmit_done(Instant::ZERO, n, &mut app);
    }
    assert_eq!(streams, (2..=9).collect::<Vec<_>>());
}

#[test]
fn an_sse_event_longer_than_the_decoder_buffer_is_skipped_to_its_blank_line() {
    let mut storage = [0u8; 64];
    let mut decoder = SseDecoder::new(&mut storage);
    let at_limit = std::format!("data: {}\n\n", "a".repeat(64 - 8));
    let over = std::format!("data: {}\n\n", "b".repeat(100));
    let input = std::format!("{at_limit}{over}data: next\n\n");
    let mut rest = input.as_bytes();
    let mut seen = Vec::new();
    while !rest.is_empty() {
        let n = decoder.push(rest);
        rest = &rest[n..];
        while let Some(event) = decoder.next_event() {
            seen.push(event.map(|e| String::from_utf8_lossy(e.data()).into_owned()));
        }
        assert!(n > 0 || !seen.is_empty());
    }
    assert_eq!(seen, [Ok("a".repeat(56)), Err(SseError::TooLong { limit: 64 }), Ok(String::from("next"))]);
}

#[test]
fn list_pages_leave_room_for_a_long_server_info() {
    // A page ends where the next item would leave too little room for the end of the result, which
    // in 2026-07-28 repeats the server's implementation info in `_meta`.
    let mut config = Config::new("limits", "1.0.0");
    config.server_info.name = leaked('n', 100);
    config.server_info.version = leaked('v', 30);
    config.server_info.title = Some(leaked('t', 100));
    config.server_info.description = Some(leaked('d', 200));
    config.server_info.website_url = Some(leaked('w', 60));
    config.limits.max_response = 1024;
    let mut app = App::default();
    app.tools.extend((0..57).map(|i| &*std::format!("tool{i:02}").leak()));
    let expected = app.tools.iter().map(|t| t.to_string()).collect::<Vec<_>>();
    let mut h = Harness::with_config(8192, 8192, config, app);
    let (pages, names) = walk_tools(&mut h);
    assert!(pages.len() > 2, "{pages:?}");
    assert_eq!(names, expected);
    // Cursors are the decimal indices handed out: no sign, no other spelling.
    assert_eq!(h.request(&modern(1, "tools/list", r#""cursor":"1""#))["result"]["tools"][0]["name"], "defer");
    for cursor in ["+1", " 1", "1.0", "", "x"] {
        h.expect_error(
            &modern(2, "tools/list", &std::format!(r#""cursor":"{cursor}""#)),
            code::INVALID_PARAMS,
            json!(2),
        );
    }
    h.assert_serving();
}

/// `count` pings with ids 1..=count, one line each.
fn pings(count: u32) -> Vec<u8> {
    (1..=count).flat_map(|id| std::format!("{}\n", legacy(id, "ping", "")).into_bytes()).collect()
}

/// Feeds `input` in one call, then writes the pending output one `poll_transmit` at a time: the
/// ids answered by each write, and the length of each write.
fn ids_per_write(h: &mut Harness, input: &[u8]) -> (Vec<Vec<i64>>, Vec<usize>) {
    assert_eq!(h.server.handle_input(h.now, input), input.len());
    let (mut writes, mut lens) = (Vec::new(), Vec::new());
    while let Some(pending) = h.server.poll_transmit() {
        writes.push(lines(pending).iter().map(|answer| answer["id"].as_i64().unwrap()).collect());
        let n = pending.len();
        lens.push(n);
        h.server.transmit_done(h.now, n);
    }
    (writes, lens)
}

#[test]
fn write_threshold_lets_answers_out_before_the_rest_of_a_burst_is_taken() {
    use crate::server::DEFAULT_WRITE_THRESHOLD;
    assert_eq!(Limits::default().write_threshold, DEFAULT_WRITE_THRESHOLD);
    // 20 pings in one read, room for all their answers (each under 512 bytes); answers of ids 1..=9
    // are 37 bytes, the rest 38.
    for (threshold, per_write) in [(200, 6), (37 * 3, 3), (1, 1), (0, 1)] {
        let limits = Limits { write_threshold: threshold, max_response: 512, ..Limits::default() };
        let mut h = Harness::with(8192, 8192, limits, App::default());
        let (writes, lens) = ids_per_write(&mut h, &pings(20));
        assert_eq!(writes[0].len(), per_write, "threshold {threshold}: {writes:?}");
        // Every write but the last reaches the threshold, and holds one answer more than stays below it.
        for (write, len) in writes.iter().zip(&lens).take(writes.len() - 1) {
            assert!(
                *len >= threshold && len.saturating_sub(38) < threshold.max(1),
                "threshold {threshold}: {lens:?} {writes:?}"
            );
            assert!(!write.is_empty());
        }
        let all: Vec<i64> = writes.concat();
        assert_eq!(all, (1..=20).collect::<Vec<i64>>(), "threshold {threshold}: every ping answered, in order");
        h.assert_serving();
    }
    // `usize::MAX`: the whole burst before the first write.
    let limits = Limits { write_threshold: usize::MAX, max_response: 512, ..Limits::default() };
    let mut h = Harness::with(8192, 8192, limits, App::default());
    assert_eq!(ids_per_write(&mut h, &pings(20)).0, [(1..=20).collect::<Vec<i64>>()]);
}
