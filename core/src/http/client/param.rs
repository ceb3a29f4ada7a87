//! `x-mcp-header` (2026-07-28, SEP-2243) on the client's side: which tools a client keeps
//! ([`check_param_annotations`]) and the `Mcp-Param-{Name}` headers of a `tools/call`
//! ([`param_headers`]).
//!
//! A property of a tool's `inputSchema` may carry `"x-mcp-header": "Name"`; a Streamable HTTP
//! client then mirrors that argument of each `tools/call` into the header `Mcp-Param-Name`, which a
//! server checks against the body. A tool whose annotations are invalid MUST be dropped by the
//! client (never called).

use core::fmt;

use crate::http::{HeaderValueError, MAX_HEADER_VALUE_LEN, encode_value, standard_header_values};
use crate::json::{JsonStr, Kind, Value};
use crate::jsonrpc::{Message, ParsedMessage};
use crate::version::Era;

use super::{MAX_ENCODED_VALUE_LEN, PostContext};

/// Longest `x-mcp-header` name a client mirrors: a tool whose annotation is longer is refused
/// ([`InvalidParamAnnotation::TooLong`]), since its calls could not carry the header a server
/// requires.
pub const MAX_PARAM_NAME_LEN: usize = 64;

/// Why a tool's `x-mcp-header` annotations are invalid ([`check_param_annotations`]): the client
/// drops the tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum InvalidParamAnnotation {
    /// The annotation is not a string, or is empty.
    Empty,
    /// The name holds a character that cannot be in a header name (a space, a colon, a control
    /// character, non-ASCII: only the RFC 9110 token characters are allowed).
    Charset,
    /// The name is longer than [`MAX_PARAM_NAME_LEN`].
    TooLong,
    /// The annotated property's `type` is not `"string"`, `"integer"` or `"boolean"` (objects,
    /// arrays, `null`, `number` and untyped properties cannot be mirrored).
    NotPrimitive,
    /// Two properties name the same header (compared case-insensitively, as header names are).
    Duplicate,
}

impl fmt::Display for InvalidParamAnnotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InvalidParamAnnotation::Empty => "an x-mcp-header annotation is empty or not a string",
            InvalidParamAnnotation::Charset => "an x-mcp-header name holds a character a header name cannot",
            InvalidParamAnnotation::TooLong => "an x-mcp-header name is too long",
            InvalidParamAnnotation::NotPrimitive => "an x-mcp-header annotates a property that is not a primitive",
            InvalidParamAnnotation::Duplicate => "two x-mcp-header annotations name the same header",
        })
    }
}

impl core::error::Error for InvalidParamAnnotation {}

/// Whether `c` may be in a header name (an RFC 9110 `tchar`).
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// The annotated properties of `input_schema`: each property of its `properties` object with an
/// `x-mcp-header` member, with that member.
fn annotated<'a>(input_schema: Value<'a>) -> impl Iterator<Item = (JsonStr<'a>, Value<'a>, Value<'a>)> {
    let properties = input_schema.get("properties").filter(|p| p.kind() == Kind::Object);
    properties
        .into_iter()
        .flat_map(|p| p.members())
        .filter_map(|(property, definition)| Some((property, definition, definition.get("x-mcp-header")?)))
}

/// The header name of one annotation, checked.
fn annotation_name(annotation: Value<'_>) -> Result<JsonStr<'_>, InvalidParamAnnotation> {
    let name = annotation.as_str().filter(|n| n.chars().next().is_some()).ok_or(InvalidParamAnnotation::Empty)?;
    if !name.chars().all(is_token_char) {
        return Err(InvalidParamAnnotation::Charset);
    }
    if name.chars().count() > MAX_PARAM_NAME_LEN {
        return Err(InvalidParamAnnotation::TooLong);
    }
    Ok(name)
}

/// Checks the `x-mcp-header` annotations of a tool's `input_schema` (the properties of its
/// `properties` object): each must be a non-empty header name of token characters, at most
/// [`MAX_PARAM_NAME_LEN`] long, on a property whose `type` is `"string"`, `"integer"` or
/// `"boolean"`, and no two may name the same header in any case. Returns how many there are; an
/// error means the client MUST drop the tool. A schema without annotations passes (0).
pub fn check_param_annotations(input_schema: Value<'_>) -> Result<usize, InvalidParamAnnotation> {
    let mut count = 0;
    for (i, (_, definition, annotation)) in annotated(input_schema).enumerate() {
        let name = annotation_name(annotation)?;
        let primitive = definition
            .get("type")
            .and_then(|t| t.as_str())
            .is_some_and(|t| t.eq_str("string") || t.eq_str("integer") || t.eq_str("boolean"));
        if !primitive {
            return Err(InvalidParamAnnotation::NotPrimitive);
        }
        let same = |other: JsonStr<'_>| {
            other.chars().map(|c| c.to_ascii_lowercase()).eq(name.chars().map(|c| c.to_ascii_lowercase()))
        };
        if annotated(input_schema).take(i).any(|(_, _, earlier)| earlier.as_str().is_some_and(same)) {
            return Err(InvalidParamAnnotation::Duplicate);
        }
        count += 1;
    }
    Ok(count)
}

/// The `Mcp-Param-{Name}` headers of `message`, a `tools/call` of the tool whose `inputSchema` is
/// `input_schema` (the client keeps it from `tools/list`): for each annotated property whose
/// argument is present and not `null`, calls `put` with `Name` (the header is `Mcp-Param-` and
/// it) and the value: a string's text, a number or boolean as written, each encoded as
/// [`encode_value`] says (`=?base64?…?=` for non-ASCII, control characters, leading or trailing
/// whitespace). Other arguments (objects, arrays) are not mirrored.
///
/// Only a 2026-07-28 message (one whose `_meta` names the version, or any once `context` says the
/// connection is 2026-07-28) has them; other messages, other methods, and a schema whose
/// annotations are invalid ([`check_param_annotations`]) put nothing. Fails with
/// [`HeaderValueError::TooLong`] when an argument's text is longer than [`MAX_HEADER_VALUE_LEN`]
/// bytes (the request cannot be sent as the server requires).
pub fn param_headers(
    message: &ParsedMessage<'_>,
    context: PostContext<'_>,
    input_schema: Value<'_>,
    put: &mut dyn FnMut(&str, &[u8]),
) -> Result<(), HeaderValueError> {
    let modern = standard_header_values(message).protocol_version.is_some()
        || context.version.is_some_and(|v| v.era() == Era::Modern);
    let Some(Ok(Message::Request { method, params: Some(params), .. })) = message.message() else { return Ok(()) };
    if !modern || !method.eq_str("tools/call") || check_param_annotations(input_schema).is_err() {
        return Ok(());
    }
    let arguments = params.get("arguments").filter(|a| a.kind() == Kind::Object);
    for (property, _, annotation) in annotated(input_schema) {
        let argument = arguments.and_then(|a| a.members().find(|(key, _)| key.chars().eq(property.chars())));
        let Some((_, argument)) = argument else { continue };
        let mut text = [0u8; MAX_HEADER_VALUE_LEN];
        let text = match argument.kind() {
            Kind::String => {
                argument.as_str().and_then(|s| s.unescape_into(&mut text)).ok_or(HeaderValueError::TooLong)?
            }
            Kind::Number | Kind::True | Kind::False => {
                core::str::from_utf8(argument.as_bytes()).map_err(|_| HeaderValueError::InvalidCharacter)?
            }
            _ => continue,
        };
        let mut name = [0u8; MAX_PARAM_NAME_LEN * 4];
        let Some(name) = annotation.as_str().and_then(|n| n.unescape_into(&mut name)) else { continue };
        let mut out = [0u8; MAX_ENCODED_VALUE_LEN];
        put(name, encode_value(text, &mut out)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::string::String;
    use std::vec::Vec;

    use super::*;
    use crate::http::{HeaderList, check_param_headers, decode_value};
    use crate::json::parse;
    use crate::version::ProtocolVersion;

    fn check(schema: &str) -> Result<usize, InvalidParamAnnotation> {
        check_param_annotations(parse(schema.as_bytes(), 16).unwrap())
    }

    fn property(definition: &str) -> String {
        std::format!(r#"{{"type":"object","properties":{{"p":{definition}}}}}"#)
    }

    #[test]
    fn invalid_annotations_drop_the_tool() {
        assert_eq!(check(r#"{"type":"object"}"#), Ok(0));
        assert_eq!(check(&property(r#"{"type":"string"}"#)), Ok(0));
        for valid in [
            r#"{"type":"string","x-mcp-header":"Region"}"#,
            r#"{"type":"integer","x-mcp-header":"Priority"}"#,
            r#"{"type":"boolean","x-mcp-header":"X-Debug_1.v~2"}"#,
        ] {
            assert_eq!(check(&property(valid)), Ok(1), "{valid}");
        }
        let cases = [
            (r#"{"type":"string","x-mcp-header":""}"#, InvalidParamAnnotation::Empty),
            (r#"{"type":"string","x-mcp-header":7}"#, InvalidParamAnnotation::Empty),
            (r#"{"type":"string","x-mcp-header":"My Region"}"#, InvalidParamAnnotation::Charset),
            (r#"{"type":"string","x-mcp-header":"Region:Primary"}"#, InvalidParamAnnotation::Charset),
            (r#"{"type":"string","x-mcp-header":"Région"}"#, InvalidParamAnnotation::Charset),
            (r#"{"type":"string","x-mcp-header":"R\u00e9gion"}"#, InvalidParamAnnotation::Charset),
            (r#"{"type":"string","x-mcp-header":"Region\t1"}"#, InvalidParamAnnotation::Charset),
            (r#"{"type":"object","x-mcp-header":"Data"}"#, InvalidParamAnnotation::NotPrimitive),
            (
                r#"{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}"#,
                InvalidParamAnnotation::NotPrimitive,
            ),
            (r#"{"type":"null","x-mcp-header":"Nil"}"#, InvalidParamAnnotation::NotPrimitive),
            (r#"{"type":"number","x-mcp-header":"Ratio"}"#, InvalidParamAnnotation::NotPrimitive),
            (r#"{"x-mcp-header":"Untyped"}"#, InvalidParamAnnotation::NotPrimitive),
            (r#"{"type":["string","null"],"x-mcp-header":"Either"}"#, InvalidParamAnnotation::NotPrimitive),
        ];
        for (definition, why) in cases {
            assert_eq!(check(&property(definition)), Err(why), "{definition}");
        }
        let long = "H".repeat(MAX_PARAM_NAME_LEN);
        assert_eq!(check(&property(&std::format!(r#"{{"type":"string","x-mcp-header":"{long}"}}"#))), Ok(1));
        let longer = "H".repeat(MAX_PARAM_NAME_LEN + 1);
        assert_eq!(
            check(&property(&std::format!(r#"{{"type":"string","x-mcp-header":"{longer}"}}"#))),
            Err(InvalidParamAnnotation::TooLong)
        );
        for (a, b) in [("Region", "Region"), ("MyField", "myfield")] {
            let schema = std::format!(
                r#"{{"type":"object","properties":{{"a":{{"type":"string","x-mcp-header":"{a}"}},"b":{{"type":"string","x-mcp-header":"{b}"}}}}}}"#
            );
            assert_eq!(check(&schema), Err(InvalidParamAnnotation::Duplicate), "{a} {b}");
        }
    }

    const SCHEMA: &str = r#"{"type":"object","properties":{
        "region":{"type":"string","x-mcp-header":"Region"},"priority":{"type":"integer","x-mcp-header":"Priority"},
        "verbose":{"type":"boolean","x-mcp-header":"Verbose"},"empty":{"type":"string","x-mcp-header":"Empty"},
        "method":{"type":"string","x-mcp-header":"Method"},"wide":{"type":"string","x-mcp-header":"Wide"},
        "padded":{"type":"string","x-mcp-header":"Padded"},"lines":{"type":"string","x-mcp-header":"Lines"},
        "query":{"type":"string"}}}"#;
    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn headers(body: &str, context: PostContext<'_>, schema: &str) -> Result<Vec<(String, String)>, HeaderValueError> {
        let parsed = ParsedMessage::parse(body.as_bytes(), 32);
        let mut out = Vec::new();
        param_headers(&parsed, context, parse(schema.as_bytes(), 16).unwrap(), &mut |name, value| {
            out.push((String::from(name), String::from_utf8(value.to_vec()).unwrap()))
        })?;
        Ok(out)
    }

    fn call(arguments: &str) -> String {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"t","arguments":{arguments},{META}}}}}"#
        )
    }

    #[test]
    fn a_modern_call_mirrors_its_annotated_arguments() {
        let body = call(
            r#"{"region":"us-west1","priority":42,"verbose":false,"empty":"","method":"m","wide":"Hello, \u4e16\u754c",
                "padded":" x ","lines":"a\r\nb","query":"SELECT 1"}"#,
        );
        let got = headers(&body, PostContext::default(), SCHEMA).unwrap();
        let pairs: Vec<(&str, &str)> = got.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        assert_eq!(
            pairs[..5],
            [("Region", "us-west1"), ("Priority", "42"), ("Verbose", "false"), ("Empty", ""), ("Method", "m")]
        );
        let mut out = [0u8; 64];
        for (name, text) in [("Wide", "Hello, 世界"), ("Padded", " x "), ("Lines", "a\r\nb")] {
            let (_, value) = pairs.iter().find(|(n, _)| *n == name).unwrap();
            assert!(value.starts_with("=?base64?"), "{name}: {value}");
            assert_eq!(decode_value(value.as_bytes(), &mut out), Ok(text));
        }
        assert_eq!(pairs.len(), 8, "query has no annotation");
        // The server's own rules accept them.
        let named: Vec<(String, String)> =
            got.iter().map(|(n, v)| (std::format!("Mcp-Param-{n}"), v.clone())).collect();
        let mut list: Vec<(&str, &[u8])> = std::vec![("Mcp-Method", b"tools/call"), ("Mcp-Name", b"t")];
        list.extend(named.iter().map(|(n, v)| (n.as_str(), v.as_bytes())));
        let tools = [("t", SCHEMA)];
        assert!(check_param_headers(&HeaderList(&list), body.as_bytes(), &Tools(&tools)).is_ok());
    }

    struct Tools<'t>(&'t [(&'t str, &'t str)]);
    impl crate::http::ToolSchemas for Tools<'_> {
        fn tool_schema(&self, index: usize) -> Option<(&str, &str)> {
            self.0.get(index).copied()
        }
    }

    #[test]
    fn nulls_absent_arguments_and_other_messages_put_nothing() {
        assert_eq!(
            headers(&call(r#"{"verbose":null,"region":"eu"}"#), PostContext::default(), SCHEMA).unwrap().len(),
            1
        );
        assert!(headers(&call(r#"{"region":{"a":1}}"#), PostContext::default(), SCHEMA).unwrap().is_empty());
        assert!(headers(&call("{}"), PostContext::default(), SCHEMA).unwrap().is_empty());
        // Legacy: no `_meta` version and a legacy connection.
        let legacy =
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"region":"eu"}}}"#;
        let context = PostContext { version: Some(ProtocolVersion::V2025_11_25), session_id: None };
        assert!(headers(legacy, context, SCHEMA).unwrap().is_empty());
        // ... unless the connection is 2026-07-28.
        let context = PostContext { version: Some(ProtocolVersion::V2026_07_28), session_id: None };
        assert_eq!(headers(legacy, context, SCHEMA).unwrap().len(), 1);
        let list = std::format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{{META}}}}}"#);
        assert!(headers(&list, PostContext::default(), SCHEMA).unwrap().is_empty());
        let invalid = r#"{"type":"object","properties":{"region":{"type":"object","x-mcp-header":"Region"}}}"#;
        assert!(headers(&call(r#"{"region":"eu"}"#), PostContext::default(), invalid).unwrap().is_empty());
        let long = "x".repeat(MAX_HEADER_VALUE_LEN + 1);
        let body = call(&std::format!(r#"{{"region":"{long}"}}"#));
        assert_eq!(headers(&body, PostContext::default(), SCHEMA), Err(HeaderValueError::TooLong));
    }
}
