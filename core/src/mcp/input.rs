//! Input a server asks of the client: elicitation (a form, or a URL), sampling and roots. A legacy
//! server sends each as a server-to-client request; a 2026-07-28 server returns them as
//! `inputRequests` of an `input_required` result and the client retries with `inputResponses`. The
//! server writes an [`InputRequest`]; a client reads a [`ReceivedInput`] borrowed from the message.

use crate::json::{self, JsonStr, JsonWriter, Kind, Value};
use crate::mcp::ClientCapabilities;
use crate::version::{Era, ProtocolVersion};

/// One thing to ask the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputRequest<'a> {
    /// `elicitation/create` in form mode: ask the user to fill in a form (client capability
    /// `elicitation`, form mode).
    ElicitForm {
        /// What to tell the user.
        message: &'a str,
        /// The form: a JSON Schema object of primitive properties, as JSON text.
        requested_schema: &'a str,
    },
    /// `elicitation/create` in URL mode: send the user to a web page (client capability
    /// `elicitation.url`; 2025-11-25 and later).
    ElicitUrl {
        /// What to tell the user.
        message: &'a str,
        /// The page.
        url: &'a str,
        /// An id for the elicitation (2025-11-25 requires one; 2026-07-28 has none).
        elicitation_id: &'a str,
    },
    /// `sampling/createMessage`: ask the client's model (client capability `sampling`, and
    /// `sampling.tools` when the params offer tools).
    Sample {
        /// The request's params as JSON text: `messages`, `maxTokens`, and so on.
        params: &'a str,
    },
    /// `roots/list`: ask for the client's roots (client capability `roots`).
    ListRoots,
}

impl InputRequest<'_> {
    /// The method of the request.
    pub const fn method(&self) -> &'static str {
        match self {
            InputRequest::ElicitForm { .. } | InputRequest::ElicitUrl { .. } => "elicitation/create",
            InputRequest::Sample { .. } => "sampling/createMessage",
            InputRequest::ListRoots => "roots/list",
        }
    }

    /// Whether `client` declared what this request needs.
    pub fn is_supported_by(&self, client: &ClientCapabilities) -> bool {
        match self {
            InputRequest::ElicitForm { .. } => client.elicitation_form,
            InputRequest::ElicitUrl { .. } => client.elicitation_url,
            InputRequest::Sample { params } => client.sampling && (client.sampling_tools || !offers_tools(params)),
            InputRequest::ListRoots => client.roots.is_some(),
        }
    }

    /// Adds what this request needs to `needs`.
    pub(crate) fn add_needs(&self, needs: &mut ClientCapabilities) {
        match self {
            InputRequest::ElicitForm { .. } => needs.elicitation_form = true,
            InputRequest::ElicitUrl { .. } => needs.elicitation_url = true,
            InputRequest::Sample { params } => {
                needs.sampling = true;
                needs.sampling_tools |= offers_tools(params);
            }
            InputRequest::ListRoots => needs.roots = Some(Default::default()),
        }
    }

    /// Writes `{"method":…,"params":{…}}` for `version`; `false` if the params are not JSON.
    pub(crate) fn write(&self, w: &mut JsonWriter<'_>, version: ProtocolVersion) -> bool {
        w.raw(b"{\"method\":");
        w.string(self.method());
        w.member("params");
        let ok = self.write_params(w, version);
        w.byte(b'}');
        ok
    }

    /// Whether its params are well-formed: an elicitation's schema is JSON, sampling params a JSON
    /// object.
    pub(crate) fn is_well_formed(&self) -> bool {
        match *self {
            InputRequest::ElicitForm { requested_schema, .. } => {
                json::parse(requested_schema.as_bytes(), json::MAX_DEPTH_LIMIT).is_ok()
            }
            InputRequest::Sample { params } => json::parse(params.as_bytes(), json::MAX_DEPTH_LIMIT)
                .is_ok_and(|params| params.kind() == json::Kind::Object),
            InputRequest::ElicitUrl { .. } | InputRequest::ListRoots => true,
        }
    }

    /// Writes its params as `version` has them; `false` if they are not well-formed
    /// ([`is_well_formed`](Self::is_well_formed)).
    pub(crate) fn write_params(&self, w: &mut JsonWriter<'_>, version: ProtocolVersion) -> bool {
        match *self {
            InputRequest::ElicitForm { message, requested_schema } => {
                let Ok(schema) = json::parse(requested_schema.as_bytes(), json::MAX_DEPTH_LIMIT) else { return false };
                w.raw(if version.has_icons() { b"{\"mode\":\"form\",\"message\":" } else { b"{\"message\":" });
                w.string(message);
                w.member("requestedSchema");
                w.value(schema);
                w.byte(b'}');
                true
            }
            InputRequest::ElicitUrl { message, url, elicitation_id } => {
                w.raw(b"{\"mode\":\"url\",\"message\":");
                w.string(message);
                w.member("url");
                w.string(url);
                if version.era() == Era::Legacy {
                    w.member("elicitationId");
                    w.string(elicitation_id);
                }
                w.byte(b'}');
                true
            }
            InputRequest::Sample { params } => match json::parse(params.as_bytes(), json::MAX_DEPTH_LIMIT) {
                Ok(params) if params.kind() == json::Kind::Object => {
                    w.value(params);
                    true
                }
                _ => false,
            },
            InputRequest::ListRoots => {
                w.raw(b"{}");
                true
            }
        }
    }
}

/// Whether sampling params offer the model tools (a `tools` member).
fn offers_tools(params: &str) -> bool {
    json::parse(params.as_bytes(), json::MAX_DEPTH_LIMIT).ok().and_then(|p| p.get("tools")).is_some()
}

/// An input request as a client receives it, borrowed from the message: a legacy server-to-client
/// request's `method` and `params`, or one entry (`{"method":…,"params":…}`) of a 2026-07-28
/// `inputRequests`. Strings stay [`JsonStr`]s (they may hold escapes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReceivedInput<'a> {
    /// `elicitation/create` in form mode (a missing `mode` is form mode).
    ElicitForm {
        /// What to tell the user.
        message: JsonStr<'a>,
        /// The form's JSON Schema.
        requested_schema: Value<'a>,
    },
    /// `elicitation/create` in URL mode.
    ElicitUrl {
        /// What to tell the user.
        message: JsonStr<'a>,
        /// The page.
        url: JsonStr<'a>,
        /// The elicitation's id (legacy only).
        elicitation_id: Option<JsonStr<'a>>,
    },
    /// `sampling/createMessage`, with its params (`messages`, `maxTokens`, …).
    Sample {
        /// The params object.
        params: Value<'a>,
    },
    /// `roots/list`.
    ListRoots,
}

impl<'a> ReceivedInput<'a> {
    /// Reads a request for input from its `method` and `params`; `None` for another method, or
    /// params that lack what the method needs.
    pub fn read(method: JsonStr<'_>, params: Option<Value<'a>>) -> Option<Self> {
        let params = params.filter(|p| p.kind() == Kind::Object);
        let text = |key: &str| params.and_then(|p| p.get(key)).and_then(|v| v.as_str());
        if method.eq_str("elicitation/create") {
            let message = text("message")?;
            if text("mode").is_some_and(|mode| mode.eq_str("url")) {
                return Some(ReceivedInput::ElicitUrl {
                    message,
                    url: text("url")?,
                    elicitation_id: text("elicitationId"),
                });
            }
            let requested_schema = params?.get("requestedSchema").filter(|s| s.kind() == Kind::Object)?;
            Some(ReceivedInput::ElicitForm { message, requested_schema })
        } else if method.eq_str("sampling/createMessage") {
            Some(ReceivedInput::Sample { params: params? })
        } else if method.eq_str("roots/list") {
            Some(ReceivedInput::ListRoots)
        } else {
            None
        }
    }

    /// Reads one entry of a 2026-07-28 `inputRequests` object: `{"method":…,"params":…}`.
    pub fn from_entry(entry: Value<'a>) -> Option<Self> {
        let method = entry.get("method")?.as_str()?;
        ReceivedInput::read(method, entry.get("params"))
    }

    /// The method of the request.
    pub const fn method(&self) -> &'static str {
        match self {
            ReceivedInput::ElicitForm { .. } | ReceivedInput::ElicitUrl { .. } => "elicitation/create",
            ReceivedInput::Sample { .. } => "sampling/createMessage",
            ReceivedInput::ListRoots => "roots/list",
        }
    }
}

/// Writes an accepted form-mode elicitation result, `{"action":"accept","content":{…}}`, whose
/// content is `content` (an object: what the user filled in, or `None`) with the `default` of
/// every property of `requested_schema` the user left out (SEP-1034: a client fills in the
/// defaults). Members of `content` are written as they are; properties without a default stay
/// absent.
pub fn write_accepted_form(w: &mut JsonWriter<'_>, requested_schema: Value<'_>, content: Option<Value<'_>>) {
    let content = content.filter(|c| c.kind() == Kind::Object);
    w.raw(b"{\"action\":\"accept\",\"content\":{");
    let mut first = true;
    let mut member = |w: &mut JsonWriter<'_>, key: JsonStr<'_>, value: Value<'_>| {
        w.comma(&mut first);
        w.json_str(key);
        w.byte(b':');
        w.value(value);
    };
    if let Some(content) = content {
        content.members().for_each(|(key, value)| member(w, key, value));
    }
    let properties = requested_schema.get("properties").filter(|p| p.kind() == Kind::Object);
    if let Some(properties) = properties {
        for (key, property) in properties.members() {
            let given = content.is_some_and(|c| c.members().any(|(name, _)| name.raw() == key.raw()));
            if let Some(default) = property.get("default").filter(|_| !given) {
                member(w, key, default);
            }
        }
    }
    w.raw(b"}}");
}

/// Writes the start of the params of a multi-round-trip retry (2026-07-28 `input_required`, and the
/// legacy server's own replay of a request that waited for input): `{`, every member of the
/// original `params` but the previous round's `inputResponses` and `requestState`, then
/// `"requestState":<request_state>` if the server sent one, each member followed by a comma.
/// Close it with `"inputResponses":{…}}` ([`write_retry_params`] does the whole).
pub fn write_retry_params_head(w: &mut JsonWriter<'_>, params: Option<Value<'_>>, request_state: Option<Value<'_>>) {
    w.byte(b'{');
    write_members_but_input(w, params);
    if let Some(state) = request_state {
        w.key("requestState");
        w.value(state);
        w.byte(b',');
    }
}

/// Writes every member of `params` but a round's `inputResponses` and `requestState`, each followed
/// by a comma: what a request keeps from one round to the next.
pub(crate) fn write_members_but_input(w: &mut JsonWriter<'_>, params: Option<Value<'_>>) {
    let Some(params) = params else { return };
    for (key, value) in params.members() {
        if key.eq_str("inputResponses") || key.eq_str("requestState") {
            continue;
        }
        w.json_str(key);
        w.byte(b':');
        w.value(value);
        w.byte(b',');
    }
}

/// Writes the whole params of a retry: [`write_retry_params_head`], then `"inputResponses":{…}`
/// with the members `responses` writes (`"key":{…}` separated by commas), and the closing `}`.
pub fn write_retry_params(
    w: &mut JsonWriter<'_>,
    params: Option<Value<'_>>,
    request_state: Option<Value<'_>>,
    responses: &dyn Fn(&mut JsonWriter<'_>),
) {
    write_retry_params_head(w, params, request_state);
    w.raw(b"\"inputResponses\":{");
    responses(w);
    w.raw(b"}}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn an_accepted_form_gets_the_defaults_the_user_left_out() {
        let schema = parse(
            br#"{"type":"object","properties":{"name":{"type":"string","default":"Ada"},"age":{"type":"integer","default":36},
            "score":{"type":"number","default":0.5},"color":{"type":"string","enum":["red","blue"],"default":"blue"},
            "ok":{"type":"boolean","default":true},"note":{"type":"string"}}}"#,
            8,
        )
        .unwrap();
        let content = parse(br#"{"name":"Grace","ok":false}"#, 8).unwrap();
        let mut buf = [0u8; 256];
        let mut w = JsonWriter::new(&mut buf);
        write_accepted_form(&mut w, schema, Some(content));
        assert_eq!(
            core::str::from_utf8(w.written()).unwrap(),
            r#"{"action":"accept","content":{"name":"Grace","ok":false,"age":36,"score":0.5,"color":"blue"}}"#
        );
        let mut w = JsonWriter::new(&mut buf);
        write_accepted_form(&mut w, parse(br#"{"type":"object"}"#, 8).unwrap(), None);
        assert_eq!(w.written(), br#"{"action":"accept","content":{}}"#);
        // No content at all: every default.
        let mut w = JsonWriter::new(&mut buf);
        write_accepted_form(&mut w, schema, None);
        assert_eq!(
            core::str::from_utf8(w.written()).unwrap(),
            r#"{"action":"accept","content":{"name":"Ada","age":36,"score":0.5,"color":"blue","ok":true}}"#
        );
    }

    fn round_trip(request: InputRequest<'_>, version: ProtocolVersion, check: impl Fn(ReceivedInput<'_>)) {
        let mut buf = [0u8; 512];
        let mut w = JsonWriter::new(&mut buf);
        assert!(request.write(&mut w, version));
        let len = w.len();
        let entry = parse(&buf[..len], 16).expect("valid JSON");
        let read = ReceivedInput::from_entry(entry).expect("readable");
        assert_eq!(read.method(), request.method());
        check(read);
    }

    #[test]
    fn what_a_server_writes_a_client_reads_in_both_eras() {
        let modern = ProtocolVersion::ALL.iter().copied().find(|v| v.era() == Era::Modern).unwrap();
        let legacy = ProtocolVersion::LATEST_LEGACY;
        for version in [legacy, modern] {
            let form = InputRequest::ElicitForm { message: "Sure?", requested_schema: r#"{"type":"object"}"# };
            round_trip(form, version, |read| match read {
                ReceivedInput::ElicitForm { message, requested_schema } => {
                    assert!(message.eq_str("Sure?"));
                    assert_eq!(requested_schema.as_bytes(), br#"{"type":"object"}"#);
                }
                other => panic!("{other:?}"),
            });
            let url =
                InputRequest::ElicitUrl { message: "Sign \"in\"", url: "https://a.example/x", elicitation_id: "e1" };
            round_trip(url, version, |read| match read {
                ReceivedInput::ElicitUrl { message, url, elicitation_id } => {
                    assert!(message.eq_str("Sign \"in\""), "escapes are read");
                    assert!(url.eq_str("https://a.example/x"));
                    assert_eq!(elicitation_id.is_some(), version.era() == Era::Legacy);
                }
                other => panic!("{other:?}"),
            });
            round_trip(InputRequest::Sample { params: r#"{"messages":[],"maxTokens":5}"# }, version, |read| {
                assert!(matches!(read, ReceivedInput::Sample { params } if params.get("maxTokens").is_some()));
            });
            round_trip(InputRequest::ListRoots, version, |read| assert_eq!(read, ReceivedInput::ListRoots));
        }
    }

    #[test]
    fn a_retry_keeps_the_params_and_replaces_the_previous_round() {
        let params = parse(
            br#"{"name":"deploy","arguments":{"env":"prod"},"inputResponses":{"old":{}},"requestState":"s1","_meta":{"k":1}}"#,
            8,
        )
        .unwrap();
        let state = parse(br#""s2""#, 8).unwrap();
        let mut buf = [0u8; 256];
        let mut w = JsonWriter::new(&mut buf);
        write_retry_params(&mut w, Some(params), Some(state), &|w| w.raw(br#""ok":{"action":"accept"}"#));
        let len = w.len();
        assert_eq!(
            &buf[..len],
            br#"{"name":"deploy","arguments":{"env":"prod"},"_meta":{"k":1},"requestState":"s2","inputResponses":{"ok":{"action":"accept"}}}"#
        );
        let mut w = JsonWriter::new(&mut buf);
        write_retry_params(&mut w, None, None, &|_| {});
        let len = w.len();
        assert_eq!(&buf[..len], br#"{"inputResponses":{}}"#);
    }

    #[test]
    fn other_methods_and_incomplete_params_are_not_input() {
        fn read(text: &[u8]) -> Option<ReceivedInput<'_>> {
            ReceivedInput::from_entry(parse(text, 8).unwrap())
        }
        assert_eq!(read(br#"{"method":"ping"}"#), None);
        assert_eq!(read(br#"{"method":"elicitation/create","params":{"message":"m"}}"#), None, "no schema");
        assert_eq!(read(br#"{"method":"elicitation/create","params":{"mode":"url","message":"m"}}"#), None);
        assert_eq!(read(br#"{"method":"sampling/createMessage"}"#), None);
        assert_eq!(read(br#"{"method":"roots/list"}"#), Some(ReceivedInput::ListRoots));
        assert_eq!(read(br#"{"params":{}}"#), None);
    }
}
