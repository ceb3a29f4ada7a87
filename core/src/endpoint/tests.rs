//! The endpoint on its own, as a role other than the server uses it: requests and their answers,
//! cancellation and expiry on the wire, error answers, and the per-message choice of whether a
//! message needs transmit room.

use std::vec::Vec;

use crate::endpoint::{Endpoint, Event, Limits, Next, Route, SendError, StreamId};
use crate::json::JsonWriter;
use crate::jsonrpc::{ErrorMessage, Id};
use crate::time::Instant;

fn drain<const N: usize>(ep: &mut Endpoint<'_, N>) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(t) = ep.out.tx.pending() {
        let bytes = t.bytes.to_vec();
        out.extend_from_slice(&bytes);
        ep.out.tx.consume(bytes.len());
    }
    out
}

fn is_request(frame: &[u8]) -> bool {
    crate::json::peek_member(frame, "method").is_some() && crate::json::peek_member(frame, "id").is_some()
}

#[test]
fn requests_notifications_cancellations_and_answers_go_through_the_outbox() {
    let (mut rx, mut tx) = ([0u8; 256], [0u8; 1024]);
    let mut ep = Endpoint::<2>::new((&mut rx).into(), (&mut tx).into(), Limits::DEFAULT);
    let params = |w: &mut JsonWriter<'_>| w.raw(b"{\"a\":1}");
    let first = ep.out.request(Route::BYTE_STREAM, "tools/list", None, None).unwrap();
    let second = ep.out.request(Route::BYTE_STREAM, "ping", Some(&params), Some(Instant::from_millis(10))).unwrap();
    assert_eq!(ep.out.request(Route::BYTE_STREAM, "ping", None, None), Err(SendError::TooManyRequests), "two slots");
    ep.out.notify(Route::BYTE_STREAM, "notifications/initialized", None).unwrap();
    assert_eq!(
        drain(&mut ep),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n\
          {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"a\":1}}\n\
          {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
    );
    assert_eq!(ep.poll_timeout(), Some(Instant::from_millis(10)));
    assert!(ep.out.expire(Instant::from_millis(9)).is_none());
    assert_eq!(ep.out.expire(Instant::from_millis(10)).map(|e| e.key), Some(second));
    ep.out.flush_cancellations();
    assert_eq!(
        drain(&mut ep),
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n"
    );
    assert_eq!(
        ep.out.answer(Some(Id::Number(2))).map(|e| e.key),
        Err(Event::UnexpectedResponse),
        "a late answer answers nothing"
    );
    assert_eq!(ep.out.answer(Some(Id::Number(1))).map(|e| e.key), Ok(first));
    assert!(ep.out.answer(Some(Id::Number(1))).is_err(), "never two outcomes for one request");
    assert!(ep.out.answer(None).is_err(), "an answer without an id answers nothing");
    let third = ep.out.request(Route::BYTE_STREAM, "ping", None, None).unwrap();
    assert_eq!(third.id(), 3, "ids are never reused");
    assert!(ep.out.cancel(third));
    assert!(!ep.out.cancel(third));
    assert!(
        drain(&mut ep)
            .ends_with(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}\n")
    );
    let fourth = ep.out.request(Route::BYTE_STREAM, "ping", None, None).unwrap();
    let _ = drain(&mut ep);
    ep.end_input();
    assert_eq!(ep.out.request(Route::BYTE_STREAM, "ping", None, None), Err(SendError::Closed));
    assert_eq!(ep.finish_input(), None);
    assert_eq!(ep.out.drain().map(|e| e.key), Some(fourth));
    assert!(ep.out.drain().is_none());
    assert_eq!(ep.out.notify(Route::BYTE_STREAM, "x", None), Err(SendError::Closed));
}

#[test]
fn an_error_that_does_not_fit_is_shortened_keeping_its_id() {
    let (mut rx, mut tx) = ([0u8; 64], [0u8; 256]);
    let mut ep = Endpoint::<1>::new((&mut rx).into(), (&mut tx).into(), Limits::DEFAULT);
    let long = "x".repeat(400);
    let reason = ep.out.reject(
        Route::BYTE_STREAM,
        Some(&Id::Number(7)),
        -32601,
        ErrorMessage::Named(format_args!("{long}")),
        None,
    );
    assert_eq!(reason, Event::Rejected { code: -32601, reason: "Method not found" });
    assert_eq!(
        drain(&mut ep),
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32601,\"message\":\"error response too large\"}}\n"
    );
    let reason = ep.out.reject(
        Route::BYTE_STREAM,
        None,
        -32700,
        ErrorMessage::Named(format_args!("bad")),
        Some(&|w: &mut JsonWriter<'_>| w.raw(b"{\"at\":3}")),
    );
    assert_eq!(
        reason,
        Event::Rejected { code: -32700, reason: "bad" },
        "a fixed text is the reason; a formatted one gives the code's name"
    );
    assert_eq!(
        drain(&mut ep),
        b"{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700,\"message\":\"Parse error: bad\",\"data\":{\"at\":3}}}\n"
    );
}

#[test]
fn with_a_full_transmit_queue_answers_and_notifications_are_read_and_requests_wait() {
    let (mut rx, mut tx) = ([0u8; 256], [0u8; 512]);
    let limits = Limits { write_threshold: usize::MAX, ..Limits::DEFAULT };
    let mut ep = Endpoint::<2>::new((&mut rx).into(), (&mut tx).into(), limits);
    // Fill the transmit queue so that no answer window is free.
    let filler = |w: &mut JsonWriter<'_>| {
        w.raw(b"{\"pad\":\"");
        w.raw(&[b'p'; 300]);
        w.raw(b"\"}");
    };
    ep.out.notify(Route::BYTE_STREAM, "n", Some(&filler)).unwrap();
    assert!(!ep.out.has_answer_room(StreamId::BYTE_STREAM));
    let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
                  {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\
                  {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n";
    assert_eq!(ep.rx.push(input), input.len());
    // A server needs room for every message: it takes none.
    let mut taken = Vec::new();
    loop {
        match ep.next_frame(usize::MAX, is_request) {
            Next::Frame(frame) => taken.push(ep.rx.frame(frame).to_vec()),
            Next::Held => break,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(taken.len(), 2, "the answer and the notification are read; the request waits");
    assert!(taken[0].ends_with(b"\"result\":{}}") && taken[1].ends_with(b"progress\"}"));
    assert_eq!(ep.next_frame(usize::MAX, is_request), Next::Held, "the request stays held while there is no room");
    let _ = drain(&mut ep);
    match ep.next_frame(usize::MAX, is_request) {
        Next::Frame(frame) => assert_eq!(ep.rx.frame(frame), b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}"),
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(ep.next_frame(usize::MAX, is_request), Next::Empty);
}

#[test]
fn input_waits_while_the_write_threshold_of_output_waits() {
    let (mut rx, mut tx) = ([0u8; 256], [0u8; 1024]);
    let limits = Limits { write_threshold: 10, ..Limits::DEFAULT };
    let mut ep = Endpoint::<1>::new((&mut rx).into(), (&mut tx).into(), limits);
    let input = b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n";
    assert_eq!(ep.rx.push(input), input.len());
    ep.out.notify(Route::BYTE_STREAM, "notifications/x", None).unwrap();
    assert_eq!(ep.next_frame(10, |_| false), Next::Held);
    let _ = drain(&mut ep);
    assert!(matches!(ep.next_frame(10, |_| false), Next::Frame(_)));
}
