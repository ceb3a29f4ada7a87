//! The client engine against the server engine (a quinn-style `Pair` on a simulated clock, with
//! seeded random fragmentation), and against scripted servers for what ours never sends.

use std::string::{String, ToString};
use std::vec::Vec;

use serde_json::{Value as Json, json};

use crate::client::{self, ConnectError, EraPolicy, InputAnswer, Notification};
use crate::endpoint::{Buffers, OutboundKey, Outcome, Response};
use crate::json::{self, JsonWriter};
use crate::mcp::input::{InputRequest, ReceivedInput};
use crate::mcp::{ClientCapabilities, ListCapability};
use crate::server::{self, Deferred, Tool, ToolCall, ToolReply};
use crate::test_rng::XorShift;
use crate::time::{Duration, Instant};
use crate::version::ProtocolVersion;

static TOOLS: [Tool<'static>; 3] = [
    Tool::new("echo", "Echoes text", r#"{"type":"object","properties":{"text":{"type":"string"}}}"#),
    Tool::new("slow", "Answered later", r#"{"type":"object"}"#),
    Tool::new("confirm", "Asks the user", r#"{"type":"object"}"#),
];

const FORM: &str = r#"{"type":"object","properties":{"ok":{"type":"boolean"}}}"#;

/// The server's application.
#[derive(Default)]
struct Device {
    deferred: Vec<Deferred>,
}

impl server::Handler for Device {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        match call.name {
            "slow" => {
                if let Ok(deferred) = reply.defer() {
                    self.deferred.push(deferred);
                }
            }
            "confirm" => match call.context.input("ok") {
                Some(answer) => reply.text(&String::from_utf8_lossy(answer.as_bytes())).finish(),
                None => reply
                    .input_required()
                    .request("ok", InputRequest::ElicitForm { message: "Sure?", requested_schema: FORM })
                    .finish(),
            },
            _ => match call.argument("text").and_then(|v| v.as_str()) {
                Some(text) => reply.text_json(text).finish(),
                None => reply.finish_error_text("missing text"),
            },
        }
    }
}

/// The host's application: records what it is told, accepts every form.
#[derive(Default)]
struct Host {
    responses: Vec<(OutboundKey, String)>,
    notifications: Vec<String>,
    events: Vec<String>,
    inputs: Vec<String>,
    listened: Vec<(OutboundKey, String)>,
}

impl Host {
    fn result(&self, key: OutboundKey) -> Json {
        let (_, text) = self.responses.iter().find(|(k, _)| *k == key).expect("an answer");
        serde_json::from_str(text.strip_prefix("result ").expect("a result")).unwrap()
    }

    fn outcome(&self, key: OutboundKey) -> Option<&str> {
        self.responses.iter().find(|(k, _)| *k == key).map(|(_, text)| text.as_str())
    }
}

impl client::Handler for Host {
    fn on_response(&mut self, _now: Instant, response: Response<'_>) {
        let outcome = match response.outcome {
            Outcome::Result(value) => std::format!("result {}", String::from_utf8_lossy(value.as_bytes())),
            Outcome::Error { code, .. } => std::format!("error {code}"),
            Outcome::TimedOut => String::from("timed out"),
            Outcome::Closed => String::from("closed"),
        };
        assert!(self.responses.iter().all(|(k, _)| *k != response.request), "two outcomes for one request");
        self.responses.push((response.request, outcome));
    }

    fn on_notification(&mut self, _now: Instant, notification: Notification<'_>) {
        self.notifications.push(std::format!("{notification:?}"));
    }

    fn on_listen_notification(
        &mut self,
        _now: Instant,
        listen: OutboundKey,
        method: json::JsonStr<'_>,
        _params: Option<json::Value<'_>>,
    ) {
        self.listened.push((listen, String::from_utf8_lossy(method.raw()).into_owned()));
    }

    fn on_input(&mut self, _now: Instant, input: ReceivedInput<'_>, result: &mut JsonWriter<'_>) -> InputAnswer {
        self.inputs.push(input.method().to_string());
        match input {
            ReceivedInput::ElicitForm { .. } => result.raw(br#"{"action":"accept","content":{"ok":true}}"#),
            ReceivedInput::ListRoots => result.raw(br#"{"roots":[{"uri":"file:///tmp"}]}"#),
            _ => return InputAnswer::Refused,
        }
        InputAnswer::Written
    }

    fn on_event(&mut self, _now: Instant, event: client::Event<'_>) {
        self.events.push(std::format!("{event:?}"));
    }
}

fn buffers(rx: usize, tx: usize) -> Buffers<'static> {
    Buffers { rx: std::vec![0u8; rx].leak(), tx: std::vec![0u8; tx].leak() }
}

fn host_config(era: EraPolicy) -> client::Config<'static> {
    let capabilities = ClientCapabilities {
        elicitation_form: true,
        roots: Some(ListCapability { list_changed: false }),
        ..ClientCapabilities::NONE
    };
    client::Config::new("host", "1.0.0")
        .with_era(era)
        .with_capabilities(capabilities)
        .with_request_timeout(Some(Duration::from_millis(500)))
}

fn lines(bytes: &[u8]) -> Vec<Json> {
    bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect()
}

/// A client engine and a server, connected by two byte queues; each delivery is cut at random
/// points when a seed is given.
struct Pair {
    client: client::Engine<'static, 8>,
    host: Host,
    server: server::Server<'static, Device>,
    now: Instant,
    rng: Option<XorShift>,
    /// Everything the client wrote, for checking the wire.
    sent: Vec<u8>,
}

impl Pair {
    fn new(era: EraPolicy, seed: Option<u64>) -> Self {
        let mut config = server::Config::new("device", "1.0.0");
        config.limits.max_response = 1024;
        let mut server = server::Server::new(Device::default(), config, buffers(4096, 4096));
        server.set_input_buffer(std::vec![0u8; 2048].leak());
        Pair {
            client: client::Engine::new(host_config(era), buffers(4096, 4096)),
            host: Host::default(),
            server,
            now: Instant::from_millis(1_000),
            rng: seed.map(XorShift::new),
            sent: Vec::new(),
        }
    }

    fn cut(&mut self, len: usize) -> usize {
        match &mut self.rng {
            Some(rng) => 1 + rng.below(len),
            None => len,
        }
    }

    /// Moves bytes both ways until neither side has anything to say.
    fn drive(&mut self) {
        let (mut to_server, mut to_client) = (Vec::new(), Vec::new());
        for _ in 0..10_000 {
            while let Some(t) = self.client.poll_transmit() {
                let n = t.bytes.len();
                to_server.extend_from_slice(t.bytes);
                self.sent.extend_from_slice(t.bytes);
                self.client.transmit_done(self.now, n, &mut self.host);
            }
            while let Some(bytes) = crate::connection::Connection::poll_transmit(&self.server) {
                let n = bytes.len();
                to_client.extend_from_slice(bytes);
                crate::connection::Connection::transmit_done(&mut self.server, self.now, n);
            }
            if to_server.is_empty() && to_client.is_empty() {
                return;
            }
            if !to_server.is_empty() {
                let n = self.cut(to_server.len());
                let taken = self.server.handle_input(self.now, &to_server[..n]);
                to_server.drain(..taken);
            }
            if !to_client.is_empty() {
                let n = self.cut(to_client.len());
                let taken = self.client.handle_input(self.now, &to_client[..n], &mut self.host);
                to_client.drain(..taken);
            }
        }
        panic!("the pair did not settle");
    }

    fn connect(&mut self) {
        self.client.connect(self.now).unwrap();
        self.drive();
    }

    fn call(&mut self, name: &str, arguments: &str) -> OutboundKey {
        let arguments = json::parse(arguments.as_bytes(), 16).unwrap();
        let key = self.client.call_tool(self.now, name, Some(arguments)).unwrap();
        self.drive();
        key
    }

    fn advance(&mut self, by: u64) {
        self.now = self.now + Duration::from_millis(by);
        if self.client.poll_timeout().is_some_and(|deadline| deadline <= self.now) {
            self.client.handle_timeout(self.now, &mut self.host);
        }
        self.drive();
    }

    fn sent_lines(&self) -> Vec<Json> {
        lines(&self.sent)
    }
}

/// A client alone, fed a scripted server's lines.
struct Scripted {
    client: client::Engine<'static, 4>,
    host: Host,
    now: Instant,
}

impl Scripted {
    fn new(era: EraPolicy) -> Self {
        let mut client = client::Engine::new(host_config(era), buffers(1024, 2048));
        let now = Instant::from_millis(0);
        client.connect(now).unwrap();
        Scripted { client, host: Host::default(), now }
    }

    fn feed(&mut self, line: &str) {
        let line = line.to_string() + "\n";
        assert_eq!(self.client.handle_input(self.now, line.as_bytes(), &mut self.host), line.len());
    }

    fn take(&mut self) -> Vec<Json> {
        let mut out = Vec::new();
        while let Some(t) = self.client.poll_transmit() {
            let n = t.bytes.len();
            out.extend_from_slice(t.bytes);
            self.client.transmit_done(self.now, n, &mut self.host);
        }
        lines(&out)
    }

    fn initialize_result(&mut self, id: i64) {
        self.feed(
            &json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},
                "serverInfo":{"name":"old","version":"1"}}})
            .to_string(),
        );
    }
}

mod pair;
mod scripted;
mod tasks;
