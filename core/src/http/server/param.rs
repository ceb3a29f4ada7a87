//! `Mcp-Param-{Name}` headers (2026-07-28): a `tools/call` mirrors each argument whose input-schema
//! property carries `"x-mcp-header": "Name"` into that header, and the server checks they agree.

use super::request::header_text;
use super::status::Rejection;
use crate::http::header::{self, Headers, MAX_HEADER_VALUE_LEN, name};
use crate::json::{self, Kind};
use crate::jsonrpc::{Message, ParsedMessage, classify_recorded, code};

/// Longest `x-mcp-header` name checked (longer ones cannot name a header this server reads).
pub const MAX_PARAM_HEADER_NAME_LEN: usize = 64;
/// Most `x-mcp-header` properties checked per tool.
pub const MAX_PARAM_HEADERS: usize = 32;
/// JSON nesting a body is read with.
const BODY_DEPTH: usize = 64;

/// The tools whose `Mcp-Param-*` headers [`check_param_headers`] checks: each tool's name and input
/// schema (JSON text), by index. Every [`server::Handler`](crate::server::Handler) is one (its tool
/// table); the HTTP rules need nothing else of the server.
pub trait ToolSchemas {
    /// The name and input schema of the tool at `index`; `None` past the last one.
    fn tool_schema(&self, index: usize) -> Option<(&str, &str)>;
}

/// Checks the `Mcp-Param-*` headers of a 2026-07-28 `tools/call` in `body` against its
/// `arguments`, for the tool of that name in `handler`'s table: each property of the tool's
/// `inputSchema` with `"x-mcp-header": "Name"` must have `Mcp-Param-Name` exactly when the argument
/// is present and not null, with a value that matches it ([`matches_value`](header::matches_value)
/// after decoding). Other bodies, and unknown tools (the engine answers them), pass.
///
/// Call it on a request [`plan_post`](super::plan_post) accepted as 2026-07-28: the body is read
/// only when its `Mcp-Method` and `Mcp-Name` headers, which that plan checked against the body, name
/// `tools/call` of a tool whose schema may name a header.
pub fn check_param_headers<'b, H: Headers + ?Sized, A: ToolSchemas + ?Sized>(
    headers: &H,
    body: &'b [u8],
    handler: &A,
) -> Result<(), Rejection<'b>> {
    check(headers, body, None, handler)
}

/// [`check_param_headers`] of a body validated already (as
/// [`plan_post_parsed`](super::plan_post_parsed) read it): the same, reading it without validating
/// it again (unless it was validated with another depth limit than 64).
pub fn check_param_headers_parsed<'b, H: Headers + ?Sized, A: ToolSchemas + ?Sized>(
    headers: &H,
    body: &ParsedMessage<'b>,
    handler: &A,
) -> Result<(), Rejection<'b>> {
    check(headers, body.bytes(), Some(body), handler)
}

fn check<'b, H: Headers + ?Sized, A: ToolSchemas + ?Sized>(
    headers: &H,
    body: &'b [u8],
    parsed: Option<&ParsedMessage<'b>>,
    handler: &A,
) -> Result<(), Rejection<'b>> {
    // Every refusal needs a body that is a `tools/call` of a tool whose schema may name a header:
    // when the body read already says it is not one, no header is read.
    if let Some(parsed) = parsed.filter(|p| p.max_depth() == BODY_DEPTH)
        && !may_name_headers(parsed, handler)
    {
        return Ok(());
    }
    let mut scratch = None;
    if !matches!(header_text(headers, name::METHOD, &mut scratch), Ok(Some(b"tools/call"))) {
        return Ok(());
    }
    let mut scratch = None;
    let Ok(Some(named)) = header_text(headers, name::NAME, &mut scratch) else { return Ok(()) };
    let named = (0..).map_while(|i| handler.tool_schema(i)).find(|(name, _)| name.as_bytes() == named);
    if named.is_none_or(|(_, schema)| !schema.contains("x-mcp-header") && !schema.contains('\\')) {
        return Ok(());
    }
    let mut own;
    let (value, spans) = match parsed.filter(|p| p.max_depth() == BODY_DEPTH) {
        Some(parsed) => (parsed.value(), parsed.spans()),
        None => {
            own = json::Spans::default();
            (json::parse_spanned(body, BODY_DEPTH, &mut own), &own)
        }
    };
    let Ok(value) = value else { return Ok(()) };
    let Ok(Message::Request { id, method, params }) = classify_recorded(value, spans) else { return Ok(()) };
    if !method.eq_str("tools/call") {
        return Ok(());
    }
    let picked = parsed.filter(|p| p.max_depth() == BODY_DEPTH).and_then(ParsedMessage::picked);
    let [name, arguments] = match picked {
        Some(p) => [p.params.get("name"), p.params.get("arguments")],
        None => params.map_or([None; 2], |p| p.members_spanned(spans).find_all(["name", "arguments"])),
    };
    let Some(name) = name.and_then(|n| n.as_str()) else { return Ok(()) };
    let tool = (0..).map_while(|i| handler.tool_schema(i)).find(|(tool, _)| name.eq_str(tool));
    let Some((_, schema)) = tool else { return Ok(()) };
    // A schema that names no header (it would show `x-mcp-header`, or escape it) is not read.
    if !schema.contains("x-mcp-header") && !schema.contains('\\') {
        return Ok(());
    }
    let Ok(schema) = json::parse(schema.as_bytes(), 64) else { return Ok(()) };
    let Some(properties) = schema.get("properties").filter(|p| p.kind() == Kind::Object) else { return Ok(()) };
    let arguments = arguments.filter(|a| a.kind() == Kind::Object);
    let mismatch = |message| Rejection::with_id(400, code::HEADER_MISMATCH, message, Some(id));
    for (property, definition) in properties.members().take(MAX_PARAM_HEADERS) {
        let Some(suffix) = definition.get("x-mcp-header").and_then(|s| s.as_str()).and_then(|s| s.as_plain()) else {
            continue;
        };
        let mut header_name = heapless::String::<{ MAX_PARAM_HEADER_NAME_LEN + 10 }>::new();
        if suffix.len() > MAX_PARAM_HEADER_NAME_LEN || header_name.push_str("mcp-param-").is_err() {
            continue;
        }
        for c in suffix.chars() {
            let _ = header_name.push(c.to_ascii_lowercase());
        }
        let argument =
            arguments.and_then(|a| a.members_spanned(spans).find(|(k, _)| k.raw() == property.raw()).map(|(_, v)| v));
        let argument = argument.filter(|v| !v.is_null());
        if headers.count(&header_name) > 1 {
            return Err(mismatch("Header mismatch: repeated Mcp-Param header"));
        }
        match (argument, headers.get(&header_name)) {
            (None, None) => {}
            (None, Some(_)) => return Err(mismatch("Header mismatch: Mcp-Param header for an absent argument")),
            (Some(_), None) => return Err(mismatch("Header mismatch: missing Mcp-Param header")),
            (Some(argument), Some(raw)) => {
                let mut buf = [0u8; MAX_HEADER_VALUE_LEN];
                let decoded = header::decode_value(raw, &mut buf)
                    .map_err(|_| mismatch("Header mismatch: invalid Mcp-Param header value"))?;
                if !header::matches_value(decoded, argument) {
                    return Err(mismatch("Header mismatch: Mcp-Param header differs from the argument"));
                }
            }
        }
    }
    Ok(())
}

/// Whether `parsed` is a `tools/call` of a tool in `handler`'s table whose schema may name a header
/// (shows `x-mcp-header`, or escapes something): what [`check`] reads of the body, in its order.
fn may_name_headers<A: ToolSchemas + ?Sized>(parsed: &ParsedMessage<'_>, handler: &A) -> bool {
    if !matches!(parsed.message(), Some(Ok(Message::Request { method, .. })) if method.eq_str("tools/call")) {
        return false;
    }
    let name = parsed.picked().and_then(|p| p.params.get("name")).and_then(|n| n.as_str());
    let Some(name) = name else { return false };
    let plain = !name.has_escape();
    let tool = (0..).map_while(|i| handler.tool_schema(i)).find(|(tool, _)| name.is(plain, tool));
    tool.is_some_and(|(_, schema)| schema.contains("x-mcp-header") || schema.contains('\\'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::HeaderList;
    use crate::server::{Handler, Tool};

    static TOOLS: [Tool<'static>; 2] = [
        Tool::new(
            "lookup",
            "",
            r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"free":{"type":"string"}}}"#,
        ),
        Tool::new("plain", "", r#"{"type":"object","properties":{"region":{"type":"string"}}}"#),
    ];
    struct App;
    impl Handler for App {
        const TOOLS: &'static [Tool<'static>] = &TOOLS;
    }

    fn call(arguments: &str) -> std::string::String {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"lookup","arguments":{arguments}}}}}"#
        )
    }

    /// `pairs` after the `Mcp-Method` and `Mcp-Name` headers `plan_post` checked.
    fn planned<'p>(pairs: &[(&'p str, &'p [u8])]) -> std::vec::Vec<(&'p str, &'p [u8])> {
        let mut all = std::vec![("Mcp-Method", &b"tools/call"[..]), ("Mcp-Name", &b"lookup"[..])];
        all.extend_from_slice(pairs);
        all
    }

    fn check(arguments: &str, pairs: &[(&str, &[u8])]) -> Result<(), u16> {
        let body = call(arguments);
        check_param_headers(&HeaderList(&planned(pairs)), body.as_bytes(), &App).map_err(|r| {
            assert_eq!((r.code, r.id), (Some(code::HEADER_MISMATCH), Some(crate::jsonrpc::Id::Number(4))));
            r.status
        })
    }

    #[test]
    fn param_headers_must_mirror_their_arguments() {
        assert_eq!(
            check(r#"{"region":"eu","n":7,"free":"x"}"#, &[("Mcp-Param-Region", b"eu"), ("mcp-param-n", b"7")]),
            Ok(())
        );
        assert_eq!(check(r#"{"region":"\u00e9u"}"#, &[("Mcp-Param-Region", b"=?base64?w6l1?=")]), Ok(()));
        assert_eq!(check(r#"{}"#, &[]), Ok(()));
        assert_eq!(check(r#"{"region":null}"#, &[]), Ok(()));
        assert_eq!(check(r#"{"region":"eu"}"#, &[("Mcp-Param-Region", b"us")]), Err(400));
        assert_eq!(check(r#"{"region":"eu"}"#, &[]), Err(400));
        assert_eq!(check(r#"{}"#, &[("Mcp-Param-Region", b"eu")]), Err(400));
        assert_eq!(check(r#"{"n":7}"#, &[("Mcp-Param-N", b"8")]), Err(400));
        assert_eq!(check(r#"{"region":"eu"}"#, &[("Mcp-Param-Region", b"\xc3\xa9")]), Err(400));
        assert_eq!(check(r#"{"region":"eu"}"#, &[("Mcp-Param-Region", b"eu"), ("Mcp-Param-Region", b"eu")]), Err(400));
        // Other requests and unknown tools are not this check's business.
        let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert!(check_param_headers(&HeaderList(&[("Mcp-Method", b"tools/list")]), list, &App).is_ok());
        let other = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}"#;
        let nope = [("Mcp-Method", &b"tools/call"[..]), ("Mcp-Name", b"nope")];
        assert!(check_param_headers(&HeaderList(&nope), other, &App).is_ok());
        assert!(check_param_headers(&HeaderList(&planned(&[])), other, &App).is_ok(), "the body names no such tool");
        // Headers that do not name a call of a tool with header-named properties: the body is not
        // read (`plan_post` refuses such a request before this check).
        let body = call(r#"{"region":"eu"}"#);
        for pairs in [&[][..], &[("Mcp-Method", &b"tools/list"[..])], &[("Mcp-Method", b"tools/call")]] {
            assert!(check_param_headers(&HeaderList(pairs), body.as_bytes(), &App).is_ok(), "{pairs:?}");
        }
        for named in [&b"nope"[..], b"plain"] {
            let unread = [("Mcp-Method", &b"tools/call"[..]), ("Mcp-Name", named)];
            assert!(check_param_headers(&HeaderList(&unread), body.as_bytes(), &App).is_ok(), "{named:?}");
        }
    }

    #[test]
    fn a_parsed_body_is_checked_as_its_bytes_are() {
        let bodies = [
            call(r#"{"region":"eu"}"#),
            call(r#"{}"#),
            std::string::String::from(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plain"}}"#),
            std::string::String::from(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}"#),
            std::string::String::from(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"lookup"}}"#),
            std::string::String::from(r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"lookup"}}"#),
        ];
        let headers: [&[(&str, &[u8])]; 4] =
            [&[], &[("Mcp-Param-Region", b"eu")], &[("Mcp-Param-Region", b"us")], &[("Mcp-Param-N", b"1")]];
        for body in &bodies {
            for pairs in headers {
                for named in [&b"lookup"[..], b"plain", b"nope"] {
                    let mut all = std::vec![("Mcp-Method", &b"tools/call"[..]), ("Mcp-Name", named)];
                    all.extend_from_slice(pairs);
                    let list = HeaderList(&all);
                    let expected = check_param_headers(&list, body.as_bytes(), &App).map_err(|r| r.status);
                    for depth in [BODY_DEPTH, 8] {
                        let parsed = ParsedMessage::parse(body.as_bytes(), depth);
                        let got = check_param_headers_parsed(&list, &parsed, &App).map_err(|r| r.status);
                        assert_eq!(got, expected, "{body} {pairs:?} {named:?} {depth}");
                    }
                }
            }
        }
    }

    /// A tool whose two header names are `MAX_PARAM_HEADER_NAME_LEN` and one more characters long.
    struct Long(std::string::String);
    impl Handler for Long {
        /// A dynamic table: its capabilities are declared.
        fn capabilities(&self) -> crate::mcp::ServerCapabilities {
            crate::mcp::ServerCapabilities::NONE.with_tools(Default::default())
        }

        fn tool(&self, index: usize) -> Option<Tool<'_>> {
            (index == 0).then(|| Tool::new("lookup", "", &self.0))
        }
    }

    #[test]
    fn header_names_up_to_the_limit_are_checked_and_longer_ones_skipped() {
        let at = "H".repeat(MAX_PARAM_HEADER_NAME_LEN);
        let over = "O".repeat(MAX_PARAM_HEADER_NAME_LEN + 1);
        let app = Long(std::format!(
            r#"{{"properties":{{"at":{{"x-mcp-header":"{at}"}},"over":{{"x-mcp-header":"{over}"}}}}}}"#
        ));
        let header = std::format!("Mcp-Param-{at}");
        let run = |arguments: &str, pairs: &[(&str, &[u8])]| {
            check_param_headers(&HeaderList(&planned(pairs)), call(arguments).as_bytes(), &app).map_err(|r| r.status)
        };
        assert_eq!(run(r#"{"at":"x"}"#, &[(&header, b"x")]), Ok(()));
        assert_eq!(run(r#"{"at":"x"}"#, &[]), Err(400), "a name at the limit is checked");
        assert_eq!(run(r#"{"over":"x"}"#, &[]), Ok(()), "a longer name cannot be one this server reads");
    }
}
