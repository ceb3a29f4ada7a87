//! The application under test: the client's handler, which answers the server's requests for
//! input in the ways a run picks and records what it was told.

use super::*;

/// What the application does when asked for input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum InputMode {
    /// Writes a fitting result.
    Answer,
    /// Refuses without writing.
    Refuse,
    /// Writes a result, then refuses (nothing of it may go out).
    WriteThenRefuse,
    /// Writes a result of several kilobytes (may not fit).
    Large,
}

impl InputMode {
    pub(super) fn from_byte(byte: u8) -> Self {
        [InputMode::Answer, InputMode::Refuse, InputMode::WriteThenRefuse, InputMode::Large][usize::from(byte & 3)]
    }
}

/// What the application knows of one key it got.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct KeyState {
    pub(super) outcomes: u32,
    pub(super) cancelled: bool,
}

/// The application under test: records what it is told and checks it as it comes.
pub(super) struct Host {
    pub(super) policy: EraPolicy,
    pub(super) capabilities: ClientCapabilities,
    pub(super) mode: InputMode,
    /// Every key the application got, by id.
    pub(super) keys: BTreeMap<i64, KeyState>,
    pub(super) connected: Option<ProtocolVersion>,
    pub(super) failed: Option<ConnectError>,
    pub(super) fell_back: bool,
    /// `handle_eof` was called.
    pub(super) eof: bool,
    pub(super) inputs: usize,
}

pub(super) fn is_declared(input: &ReceivedInput<'_>, declared: &ClientCapabilities) -> bool {
    match input {
        ReceivedInput::ElicitForm { .. } => declared.elicitation_form,
        ReceivedInput::ElicitUrl { .. } => declared.elicitation_url,
        ReceivedInput::Sample { .. } => declared.sampling,
        ReceivedInput::ListRoots => declared.roots.is_some(),
        _ => false,
    }
}

impl Handler for Host {
    fn on_response(&mut self, _now: Instant, response: Response<'_>) {
        let id = response.request.id();
        let Some(state) = self.keys.get_mut(&id) else {
            panic!("on_response for {id}, a key the application never got (keys: {:?})", self.keys.keys());
        };
        assert!(!state.cancelled, "on_response for {id} after the application cancelled it");
        assert_eq!(state.outcomes, 0, "a second outcome for {id}: {:?}", response.outcome);
        state.outcomes += 1;
        if response.outcome == Outcome::Closed {
            assert!(self.eof, "Outcome::Closed for {id} before the end of input");
        }
    }

    fn on_notification(&mut self, _now: Instant, notification: Notification<'_>) {
        if let Notification::Progress { progress, .. } = notification {
            assert_eq!(progress.kind(), mcp_sansio::json::Kind::Number, "a progress that is not a number");
        }
    }

    fn on_input(&mut self, _now: Instant, input: ReceivedInput<'_>, result: &mut JsonWriter<'_>) -> InputAnswer {
        assert!(is_declared(&input, &self.capabilities), "asked for {} without the capability", input.method());
        self.inputs += 1;
        let body: &[u8] = match input {
            ReceivedInput::ElicitForm { .. } => br#"{"action":"accept","content":{"ok":true}}"#,
            ReceivedInput::ElicitUrl { .. } => br#"{"action":"decline"}"#,
            ReceivedInput::ListRoots => br#"{"roots":[{"uri":"file:///tmp","name":"tmp"}]}"#,
            _ => br#"{"role":"assistant","content":{"type":"text","text":"hi"},"model":"fz"}"#,
        };
        match self.mode {
            InputMode::Answer => {
                result.raw(body);
                InputAnswer::Written
            }
            InputMode::Refuse => InputAnswer::Refused,
            InputMode::WriteThenRefuse => {
                result.raw(body);
                InputAnswer::Refused
            }
            InputMode::Large => {
                result.raw(br#"{"action":"accept","content":{"text":""#);
                for _ in 0..6000 {
                    result.raw(b"x");
                }
                result.raw(b"\"}}");
                InputAnswer::Written
            }
        }
    }

    fn on_event(&mut self, _now: Instant, event: Event<'_>) {
        match event {
            Event::Connected { version, .. } => {
                assert!(self.connected.is_none() && self.failed.is_none(), "a second end of the handshake");
                match self.policy {
                    EraPolicy::Legacy => assert_eq!(version.era(), Era::Legacy, "Legacy policy, modern version"),
                    EraPolicy::Modern => assert_eq!(version, ProtocolVersion::V2026_07_28),
                    _ => {}
                }
                if version.era() == Era::Modern {
                    assert!(!self.fell_back, "modern after falling back");
                }
                self.connected = Some(version);
            }
            Event::FellBack => {
                assert_eq!(self.policy, EraPolicy::Auto, "only Auto falls back");
                assert!(!self.fell_back && self.connected.is_none() && self.failed.is_none());
                self.fell_back = true;
            }
            Event::ConnectFailed(error) => {
                assert!(self.connected.is_none() && self.failed.is_none(), "a second end of the handshake");
                if error == ConnectError::Closed {
                    assert!(self.eof, "ConnectFailed(Closed) before the end of input");
                }
                self.failed = Some(error);
            }
            Event::Endpoint(endpoint::Event::Rejected { code, reason }) => {
                assert!((-32800..=-32000).contains(&code), "unexpected error code {code}");
                assert!(!reason.is_empty());
            }
            _ => {}
        }
    }
}
