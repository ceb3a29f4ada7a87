//! Streams of Streamable HTTP: a closed response stream cancels its requests (`Engine::cancel_stream`).

use crate::endpoint::{Framing, Route, StreamId};
use crate::server::{Buffers, Config, Deferred, Engine, Event, Handler, Received, Tool, ToolCall, ToolReply};
use crate::time::Instant;

static TOOLS: [Tool<'static>; 1] = [Tool::new("slow", "answered later", r#"{"type":"object"}"#)];

#[derive(Default)]
struct Slow {
    deferred: std::vec::Vec<Deferred>,
    cancelled: usize,
}

impl Handler for Slow {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    fn call_tool(&mut self, _call: ToolCall<'_>, reply: ToolReply<'_>) {
        if let Ok(d) = reply.defer() {
            self.deferred.push(d);
        }
    }
    fn on_event(&mut self, _now: Instant, event: Event<'_>) {
        if matches!(event, Event::Cancelled { .. }) {
            self.cancelled += 1;
        }
    }
}

#[test]
fn closing_a_stream_cancels_only_the_requests_answered_on_it() {
    let (rx, tx) = (std::vec![0u8; 256].leak(), std::vec![0u8; 4096].leak());
    let mut engine: Engine<'static> = Engine::new(Config::new("s", "1"), Buffers { rx, tx });
    let mut app = Slow::default();
    let call = |id: u32| {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        )
    };
    for stream in [1, 2] {
        let route = Route::new(StreamId(stream), Framing::Body).ending_with_response();
        let got = engine.handle_message(Instant::ZERO, route, call(stream).as_bytes(), &mut app);
        assert_eq!(got, Ok(Received::Request));
    }
    assert_eq!(engine.cancel_stream(Instant::ZERO, StreamId(1), &mut app), 1);
    assert_eq!(engine.cancel_stream(Instant::ZERO, StreamId(1), &mut app), 0, "once");
    assert_eq!(app.cancelled, 1);
    let (first, second) = (app.deferred.remove(0), app.deferred.remove(0));
    assert!(engine.is_cancelled(&first) && !engine.is_cancelled(&second));
    assert!(engine.reply_tool(&second).is_ok());
}
