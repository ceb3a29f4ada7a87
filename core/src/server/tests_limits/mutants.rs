//! Tests added for mutants `cargo mutants` found surviving (see README, "Mutation testing"): each
//! asserts a behaviour no other test pinned down.

use std::string::{String, ToString};

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
