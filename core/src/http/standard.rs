//! The 2026-07-28 standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`): what each
//! must say of a given message. A client writes them from [`standard_header_values`]; a server
//! checks the ones it received against the same values ([`plan_post`](super::plan_post)), after
//! decoding them ([`decode_value`](super::decode_value)) and comparing them as
//! [`matches_value`](super::matches_value) does.

use crate::json::{JsonStr, Kind, Value};
use crate::jsonrpc::{Message, ParsedMessage};
use crate::mcp::meta::META_PROTOCOL_VERSION;

/// What the 2026-07-28 standard headers of one message must say: each is the value of a member of
/// the message (as the body holds it, still escaped), or `None` when the message gives that header
/// nothing to say (a client omits it).
///
/// To write one: the text of a string is [`JsonStr::unescape_into`] (of
/// [`Value::as_str`]), then [`encode_value`](super::encode_value) makes the header value (as it is,
/// or `=?base64?…?=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StandardHeaders<'b> {
    /// `MCP-Protocol-Version` ([`name::PROTOCOL_VERSION`](super::name::PROTOCOL_VERSION)): the
    /// `io.modelcontextprotocol/protocolVersion` member of the message's `_meta` (a string in a
    /// well-formed request). `None` without one; a message of a legacy session sends the version
    /// the session negotiated instead.
    pub protocol_version: Option<Value<'b>>,
    /// `Mcp-Method` ([`name::METHOD`](super::name::METHOD)): the method of a request or a
    /// notification; `None` for responses and for what is not a message.
    pub method: Option<JsonStr<'b>>,
    /// `Mcp-Name` ([`name::NAME`](super::name::NAME)): `params.name` of `tools/call` and
    /// `prompts/get`, `params.uri` of `resources/read`, `params.taskId` of `tasks/get`,
    /// `tasks/update` and `tasks/cancel`; `None` for other methods, and when that parameter is
    /// absent.
    pub name: Option<Value<'b>>,
}

/// What the 2026-07-28 standard headers of `message` must say ([`StandardHeaders`]): the values a
/// client writes them with, and the values a server checks them against. Only the members named
/// above are read (found when `message` was parsed).
pub fn standard_header_values<'b>(message: &ParsedMessage<'b>) -> StandardHeaders<'b> {
    let (method, params) = match message.message() {
        Some(Ok(Message::Request { method, params, .. } | Message::Notification { method, params })) => {
            (Some(method), params)
        }
        _ => (None, None),
    };
    let spans = message.spans();
    let plain = method.is_some_and(|m| !m.has_escape());
    let is_task =
        method.is_some_and(|m| m.is(plain, "tasks/get") || m.is(plain, "tasks/update") || m.is(plain, "tasks/cancel"));
    let (protocol_version, name_param, uri_param) = match message.picked() {
        Some(p) if is_task => (p.meta.protocol_version, p.params.get("taskId"), None),
        Some(p) => (p.meta.protocol_version, p.params.get("name"), p.params.get("uri")),
        None => {
            // `params` is not an object (`picked` reads every object): it has no members, read anyway.
            let name_key = if is_task { "taskId" } else { "name" };
            let [meta, name, uri] = params.map_or([None; 3], |p| {
                p.members_spanned(spans).find_all(["_meta", name_key, "uri"]).map(|v| v.map(|v| v.within(p)))
            });
            let version = meta.filter(|m| m.kind() == Kind::Object).and_then(|m| {
                let [version] = m.members_spanned(spans).find_all([META_PROTOCOL_VERSION]);
                version.map(|v| v.within(m))
            });
            (version, name, uri)
        }
    };
    // The method is compared several times: whether it has an escape is looked up once (`plain`).
    let name = match method {
        Some(_) if is_task => name_param,
        Some(m) if m.is(plain, "tools/call") || m.is(plain, "prompts/get") => name_param,
        Some(m) if m.is(plain, "resources/read") => uri_param,
        _ => None,
    };
    StandardHeaders { protocol_version, method, name }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{HeaderList, decode_value, encode_value, plan_post};

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    /// The text of a JSON value as a header says it: a string's unescaped text, other values as
    /// they are.
    fn text(value: Value<'_>, buf: &mut [u8]) -> std::string::String {
        match value.as_str() {
            Some(s) => s.unescape_into(buf).unwrap().into(),
            None => core::str::from_utf8(value.as_bytes()).unwrap().into(),
        }
    }

    /// The standard headers a client writes for `body`, encoded.
    fn written(body: &str) -> std::vec::Vec<(&'static str, std::vec::Vec<u8>)> {
        let parsed = ParsedMessage::parse(body.as_bytes(), 64);
        let values = standard_header_values(&parsed);
        let mut buf = [0u8; 256];
        let mut out = [0u8; 512];
        let mut headers = std::vec::Vec::new();
        let mut put = |name, text: std::string::String| {
            headers.push((name, encode_value(&text, &mut out).unwrap().to_vec()));
        };
        if let Some(version) = values.protocol_version {
            put("MCP-Protocol-Version", text(version, &mut buf));
        }
        if let Some(method) = values.method {
            put("Mcp-Method", method.unescape_into(&mut buf).unwrap().into());
        }
        if let Some(name) = values.name {
            put("Mcp-Name", text(name, &mut buf));
        }
        headers
    }

    fn decoded(headers: &[(&'static str, std::vec::Vec<u8>)]) -> std::vec::Vec<(&'static str, std::string::String)> {
        let mut out = [0u8; 512];
        headers.iter().map(|(name, value)| (*name, decode_value(value, &mut out).unwrap().into())).collect()
    }

    #[test]
    fn each_header_says_the_member_of_its_message() {
        let call =
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo",{META}}}}}"#);
        assert_eq!(
            decoded(&written(&call)),
            [
                ("MCP-Protocol-Version", "2026-07-28".into()),
                ("Mcp-Method", "tools/call".into()),
                ("Mcp-Name", "echo".into())
            ]
        );
        let prompt =
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{{{META},"name":"p"}}}}"#);
        assert_eq!(decoded(&written(&prompt))[2], ("Mcp-Name", "p".into()));
        let read = std::format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"name":"n","uri":"file:///a b",{META}}}}}"#
        );
        assert_eq!(decoded(&written(&read))[2], ("Mcp-Name", "file:///a b".into()));
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let task = std::format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{META},"taskId":"t1","name":"n"}}}}"#
            );
            assert_eq!(decoded(&written(&task))[2], ("Mcp-Name", "t1".into()), "{method}");
        }
        let result =
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/result","params":{{{META},"taskId":"t1"}}}}"#);
        assert_eq!(decoded(&written(&result)).len(), 2, "no Mcp-Name for a method without one");
        // Other methods name nothing, even with a `name` parameter; a missing parameter names nothing.
        let list = std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"name":"x",{META}}}}}"#);
        assert_eq!(decoded(&written(&list)).len(), 2);
        let nameless = std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{META}}}}}"#);
        assert_eq!(decoded(&written(&nameless)).len(), 2);
        // An escaped method is still the method; text a header cannot carry as it is is encoded.
        let escaped =
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{{"name":"caf\u00e9",{META}}}}}"#);
        let headers = written(&escaped);
        assert_eq!(headers[2].1, b"=?base64?Y2Fmw6k=?=");
        assert_eq!(decoded(&headers)[1..], [("Mcp-Method", "tools/call".into()), ("Mcp-Name", "caf\u{e9}".into())]);
        // A legacy message has no `_meta` version; a response has no method; neither has a name.
        let legacy = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#;
        assert_eq!(decoded(&written(legacy)), [("Mcp-Method", "tools/call".into()), ("Mcp-Name", "echo".into())]);
        let parsed = ParsedMessage::parse(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, 64);
        assert_eq!(
            standard_header_values(&parsed),
            StandardHeaders { protocol_version: None, method: None, name: None }
        );
        let odd = ParsedMessage::parse(br#"{"jsonrpc":"2.0","method":"tools/call","params":[1]}"#, 64);
        assert_eq!(standard_header_values(&odd).name, None);
        assert_eq!(standard_header_values(&ParsedMessage::parse(b"{nope", 64)).method, None);
    }

    #[test]
    fn a_server_accepts_the_headers_written_from_them_and_refuses_others() {
        let bodies = [
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo",{META}}}}}"#),
            std::format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{{"name":" lead\u00e9",{META}}}}}"#
            ),
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"mem://x",{META}}}}}"#),
            std::format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{{"name":"=?base64?aGk=?=",{META}}}}}"#
            ),
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#),
            std::format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":1,{META}}}}}"#),
        ];
        for body in &bodies {
            let headers = written(body);
            let mut pairs: std::vec::Vec<(&str, &[u8])> =
                headers.iter().map(|(name, value)| (*name, value.as_slice())).collect();
            pairs.push(("Accept", b"application/json, text/event-stream"));
            assert!(plan_post(&HeaderList(&pairs), body.as_bytes(), false).is_ok(), "{body}");
            // Any one of them changed is a mismatch.
            for i in 0..headers.len() {
                let mut changed = pairs.clone();
                changed[i].1 = b"x";
                let refused = plan_post(&HeaderList(&changed), body.as_bytes(), false).unwrap_err();
                assert_eq!(refused.code, Some(crate::jsonrpc::code::HEADER_MISMATCH), "{body} {i}");
            }
        }
    }
}
