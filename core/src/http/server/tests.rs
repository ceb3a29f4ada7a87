//! Request planning: heads and POST bodies of both eras.

use super::*;
use crate::endpoint::Framing;
use crate::frame::EventId;
use crate::http::{HeaderList, SessionId};
use crate::jsonrpc::{Id, code};

const SID: &str = "0123456789abcdef0123456789abcdef";
const BOTH: &[u8] = b"application/json, text/event-stream";

fn head(method: HttpMethod, path: &str, pairs: &[(&str, &[u8])]) -> Result<HeadPlan, Rejection<'static>> {
    plan_head(&Policy::default(), method, path.as_bytes(), &HeaderList(pairs))
}

fn post_headers() -> std::vec::Vec<(&'static str, &'static [u8])> {
    std::vec![("Host", b"localhost:3000"), ("Content-Type", b"application/json"), ("Accept", BOTH)]
}

#[test]
fn heads_are_checked_in_order() {
    let ok = post_headers();
    assert_eq!(head(HttpMethod::Post, "/mcp?x=1", &ok), Ok(HeadPlan::Post { session: None }));
    assert_eq!(head(HttpMethod::Post, "/other", &ok).unwrap_err().status, 404);
    let mut evil = ok.clone();
    evil[0] = ("Host", b"evil.example.com");
    assert_eq!(head(HttpMethod::Post, "/mcp", &evil).unwrap_err().status, 403);
    let mut text = ok.clone();
    text[1] = ("Content-Type", b"text/plain");
    assert_eq!(head(HttpMethod::Post, "/mcp", &text).unwrap_err().status, 415);
    let mut charset = ok.clone();
    charset[1] = ("content-type", b"Application/JSON; charset=utf-8");
    assert!(head(HttpMethod::Post, "/mcp", &charset).is_ok());
    let mut html = ok.clone();
    html[2] = ("Accept", b"text/html");
    assert_eq!(head(HttpMethod::Post, "/mcp", &html).unwrap_err().status, 406);
    let mut big = ok.clone();
    big.push(("Content-Length", b"4194305"));
    assert_eq!(head(HttpMethod::Post, "/mcp", &big).unwrap_err().status, 413);
    let mut at_limit = ok.clone();
    at_limit.push(("Content-Length", b"4194304"));
    assert_eq!(head(HttpMethod::Post, "/mcp", &at_limit), Ok(HeadPlan::Post { session: None }), "4 MiB fits");
    let mut smuggled = ok.clone();
    smuggled.push(("Content-Length", b"10"));
    smuggled.push(("Transfer-Encoding", b"chunked"));
    assert_eq!(head(HttpMethod::Post, "/mcp", &smuggled).unwrap_err().status, 400);
    let mut bad_session = ok.clone();
    bad_session.push(("Mcp-Session-Id", b"not-ours"));
    assert_eq!(head(HttpMethod::Post, "/mcp", &bad_session), Err(Rejection::unknown_session()));
    assert_eq!(head(HttpMethod::Other, "/mcp", &ok).unwrap_err().status, 405);
    // Content-Length: 1 to 19 digits, nothing else (20 digits could overflow).
    for (length, status) in
        [(&b"12x"[..], 400), (b"", 400), (b"99999999999999999999", 400), (b"1000000000000000000", 413)]
    {
        let mut with = ok.clone();
        with.push(("Content-Length", length));
        assert_eq!(head(HttpMethod::Post, "/mcp", &with).unwrap_err().status, status, "{length:?}");
    }
    // Either media type of the answer is enough.
    for accept in [&b"application/json"[..], b"text/event-stream"] {
        let mut one = ok.clone();
        one[2] = ("Accept", accept);
        assert_eq!(head(HttpMethod::Post, "/mcp", &one), Ok(HeadPlan::Post { session: None }));
    }
}

#[test]
fn a_refused_body_is_answered_with_its_request_id() {
    assert_eq!(request_id(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#), Some(Id::Number(7)));
    assert!(
        matches!(request_id(br#"{"jsonrpc":"2.0","id":"r","method":"ping"}"#), Some(Id::String(s)) if s.eq_str("r"))
    );
    assert_eq!(request_id(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), None);
    assert_eq!(request_id(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#), None, "a response is not refused");
    assert_eq!(request_id(b"{nope"), None);
}

#[test]
fn request_line_methods_are_read_exactly() {
    assert_eq!(HttpMethod::from_token(b"GET"), HttpMethod::Get);
    assert_eq!(HttpMethod::from_token(b"POST"), HttpMethod::Post);
    assert_eq!(HttpMethod::from_token(b"DELETE"), HttpMethod::Delete);
    for other in [&b"get"[..], b"PUT", b"OPTIONS", b""] {
        assert_eq!(HttpMethod::from_token(other), HttpMethod::Other);
    }
}

#[test]
fn get_and_delete_need_a_session() {
    let host: (&str, &[u8]) = ("Host", b"127.0.0.1");
    let accept: (&str, &[u8]) = ("Accept", b"text/event-stream");
    let session: (&str, &[u8]) = ("Mcp-Session-Id", SID.as_bytes());
    let sid = SessionId::parse(SID.as_bytes()).unwrap();
    assert_eq!(head(HttpMethod::Get, "/mcp", &[host, accept]).unwrap_err().status, 405);
    assert_eq!(head(HttpMethod::Delete, "/mcp", &[host]).unwrap_err().status, 405);
    assert_eq!(
        head(HttpMethod::Get, "/mcp", &[host, accept, session]),
        Ok(HeadPlan::OpenStream { session: sid, last_event: None })
    );
    let resume = [host, accept, session, ("Last-Event-ID", b"3-17")];
    assert_eq!(
        head(HttpMethod::Get, "/mcp", &resume),
        Ok(HeadPlan::OpenStream { session: sid, last_event: Some(EventId::new(3, 17)) })
    );
    let forged = [host, accept, session, ("Last-Event-ID", b"whatever")];
    assert_eq!(head(HttpMethod::Get, "/mcp", &forged).unwrap_err().status, 400);
    assert_eq!(
        head(HttpMethod::Get, "/mcp", &[host, session, ("Accept", b"application/json")]).unwrap_err().status,
        406
    );
    assert_eq!(head(HttpMethod::Delete, "/mcp", &[host, session]), Ok(HeadPlan::EndSession { session: sid }));
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn modern_call(name: &str) -> std::string::String {
    std::format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"{name}",{META}}}}}"#)
}

fn modern_headers<'a>(method: &'a [u8], name: Option<&'a [u8]>) -> std::vec::Vec<(&'a str, &'a [u8])> {
    let mut h = std::vec![("Accept", BOTH), ("MCP-Protocol-Version", &b"2026-07-28"[..]), ("Mcp-Method", method)];
    if let Some(name) = name {
        h.push(("Mcp-Name", name));
    }
    h
}

#[test]
fn modern_requests_go_stateless_as_json_when_their_headers_match() {
    let body = modern_call("test_simple_text");
    let plan =
        plan_post(&HeaderList(&modern_headers(b"tools/call", Some(b"test_simple_text"))), body.as_bytes(), false);
    assert_eq!(
        plan,
        Ok(PostPlan { serve: Serve::Stateless, framing: Framing::Body, is_request: true, json_accepted: true })
    );
    // The name may come base64-encoded; a progress token asks for SSE.
    let encoded = modern_headers(b"tools/call", Some(b"=?base64?dGVzdF9zaW1wbGVfdGV4dA==?="));
    assert!(plan_post(&HeaderList(&encoded), body.as_bytes(), false).is_ok());
    let progress = body.replace("\"_meta\":{", "\"_meta\":{\"progressToken\":1,");
    let plan = plan_post(&HeaderList(&encoded), progress.as_bytes(), false).unwrap();
    assert_eq!(plan.framing, Framing::Sse);
    // So do a log level and a listen, each alone.
    let logged = body.replace("\"_meta\":{", "\"_meta\":{\"io.modelcontextprotocol/logLevel\":\"info\",");
    assert_eq!(plan_post(&HeaderList(&encoded), logged.as_bytes(), false).unwrap().framing, Framing::Sse);
    let listen = std::format!(r#"{{"jsonrpc":"2.0","id":6,"method":"subscriptions/listen","params":{{{META}}}}}"#);
    let listen_headers = modern_headers(b"subscriptions/listen", None);
    assert_eq!(plan_post(&HeaderList(&listen_headers), listen.as_bytes(), false).unwrap().framing, Framing::Sse);
    // An SSE-only client gets SSE; a session header does not make a modern request legacy.
    let mut sse_only = encoded.clone();
    sse_only[0] = ("Accept", b"text/event-stream");
    sse_only.push(("Mcp-Session-Id", SID.as_bytes()));
    assert_eq!(plan_post(&HeaderList(&sse_only), body.as_bytes(), true).unwrap().framing, Framing::Sse);
}

#[test]
fn modern_header_mismatches_are_32020_with_the_request_id() {
    let body = modern_call("a");
    let check = |headers: &[(&str, &[u8])], expected: i32| {
        let rejection = plan_post(&HeaderList(headers), body.as_bytes(), false).unwrap_err();
        assert_eq!((rejection.status, rejection.code, rejection.id), (400, Some(expected), Some(Id::Number(5))));
    };
    check(&modern_headers(b"tools/call", Some(b"b")), code::HEADER_MISMATCH);
    check(&modern_headers(b"tools/call", None), code::HEADER_MISMATCH);
    check(&modern_headers(b"tools/list", Some(b"a")), code::HEADER_MISMATCH);
    check(&modern_headers(b"tools/call", Some(b"caf\xc3\xa9")), code::HEADER_MISMATCH);
    let mut wrong_version = modern_headers(b"tools/call", Some(b"a"));
    wrong_version[1] = ("MCP-Protocol-Version", b"2025-11-25");
    check(&wrong_version, code::HEADER_MISMATCH);
    let mut repeated = modern_headers(b"tools/call", Some(b"a"));
    repeated.push(("mcp-name", b"a"));
    check(&repeated, code::HEADER_MISMATCH);
    // No version header with modern _meta.
    check(&[("Accept", BOTH), ("Mcp-Method", b"tools/call"), ("Mcp-Name", b"a")], code::HEADER_MISMATCH);
}

#[test]
fn a_modern_header_without_meta_is_32602_and_unknown_versions_reach_the_engine() {
    let bare = br#"{"jsonrpc":"2.0","id":"x","method":"tools/list"}"#;
    let rejection = plan_post(&HeaderList(&modern_headers(b"tools/list", None)), bare, false).unwrap_err();
    assert_eq!((rejection.status, rejection.code), (400, Some(code::INVALID_PARAMS)));
    let future = std::format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{}}}}}"#,
        META.replace("2026-07-28", "2099-01-01")
    );
    let mut headers = modern_headers(b"tools/list", None);
    headers[1] = ("MCP-Protocol-Version", b"2099-01-01");
    let plan = plan_post(&HeaderList(&headers), future.as_bytes(), false).unwrap();
    assert_eq!(plan.serve, Serve::Stateless, "the engine answers -32022");
    // A modern notification is routed too (answered 202).
    let cancel =
        std::format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":1,{META}}}}}"#);
    let plan = plan_post(&HeaderList(&modern_headers(b"notifications/cancelled", None)), cancel.as_bytes(), false);
    assert_eq!(plan.map(|p| (p.serve, p.is_request)), Ok((Serve::Stateless, false)));
    // Its Mcp-Method is checked as a request's is.
    let plan = plan_post(&HeaderList(&modern_headers(b"notifications/progress", None)), cancel.as_bytes(), false);
    assert_eq!(plan.map_err(|r| r.code), Err(Some(code::HEADER_MISMATCH)));
    // A request's _meta needs both the version and the capabilities.
    for missing in ["io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"] {
        let body = modern_call("a").replace(missing, "x-other");
        let rejection = plan_post(&HeaderList(&modern_headers(b"tools/call", Some(b"a"))), body.as_bytes(), false);
        assert_eq!(rejection.map_err(|r| r.code), Err(Some(code::INVALID_PARAMS)), "without {missing}");
    }
}

#[test]
fn legacy_bodies_need_initialize_or_a_session() {
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let accept = [("Accept", BOTH)];
    assert_eq!(
        plan_post(&HeaderList(&accept), init, false),
        Ok(PostPlan { serve: Serve::NewSession, framing: Framing::Sse, is_request: true, json_accepted: true })
    );
    let json_only = [("Accept", &b"application/json"[..])];
    assert_eq!(plan_post(&HeaderList(&json_only), init, false).unwrap().framing, Framing::Body);
    // Only SSE accepted: a legacy answer may not become a JSON body.
    let sse_only = [("Accept", &b"text/event-stream"[..])];
    let plan = plan_post(&HeaderList(&sse_only), init, false).unwrap();
    assert_eq!((plan.framing, plan.json_accepted), (Framing::Sse, false));
    let list = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let missing = plan_post(&HeaderList(&accept), list, false).unwrap_err();
    assert_eq!((missing.status, missing.id), (400, Some(Id::Number(2))));
    let with_version = [("Accept", BOTH), ("MCP-Protocol-Version", &b"2025-06-18"[..])];
    assert_eq!(plan_post(&HeaderList(&with_version), list, true).unwrap().serve, Serve::Session);
    let bogus = [("Accept", BOTH), ("MCP-Protocol-Version", &b"1999-01-01"[..])];
    assert_eq!(plan_post(&HeaderList(&bogus), list, true).unwrap_err().status, 400);
    let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let plan = plan_post(&HeaderList(&accept), initialized, true).unwrap();
    assert_eq!((plan.serve, plan.is_request, plan.framing), (Serve::Session, false, Framing::Body));
    assert_eq!(plan_post(&HeaderList(&accept), b"[{}]", false).unwrap_err().status, 400);
    // Unparsable bodies are the engine's to answer.
    assert_eq!(plan_post(&HeaderList(&accept), b"{nope", false).unwrap().serve, Serve::Stateless);
}

#[test]
fn the_deprecated_sse_transport_has_its_own_two_paths_when_enabled() {
    let policy = Policy { sse: Some(SsePaths::DEFAULT), ..Policy::default() };
    let plan =
        |method, path: &str, pairs: &[(&str, &[u8])]| plan_head(&policy, method, path.as_bytes(), &HeaderList(pairs));
    let host: (&str, &[u8]) = ("Host", b"localhost");
    let sse: (&str, &[u8]) = ("Accept", b"text/event-stream");
    assert_eq!(plan(HttpMethod::Get, "/sse", &[host, sse]), Ok(HeadPlan::OpenSseSession));
    assert_eq!(plan(HttpMethod::Get, "/sse", &[host, ("Accept", b"application/json")]).unwrap_err().status, 406);
    assert_eq!(plan(HttpMethod::Post, "/sse", &[host]).unwrap_err().status, 405);
    assert_eq!(plan(HttpMethod::Get, "/sse", &[("Host", b"evil.example.com"), sse]).unwrap_err().status, 403);
    let json: (&str, &[u8]) = ("Content-Type", b"application/json");
    let sid = SessionId::parse(SID.as_bytes()).unwrap();
    let target = std::format!("/messages?x=1&sessionId={SID}");
    assert_eq!(plan(HttpMethod::Post, &target, &[host, json]), Ok(HeadPlan::SseMessage { session: sid }));
    let first = std::format!("/messages?sessionId={SID}");
    assert_eq!(plan(HttpMethod::Post, &first, &[host, json]), Ok(HeadPlan::SseMessage { session: sid }));
    assert_eq!(plan(HttpMethod::Post, &first, &[host]).unwrap_err().status, 415, "the message endpoint's POST checks");
    assert_eq!(plan(HttpMethod::Post, "/messages", &[host, json]).unwrap_err().status, 400);
    assert_eq!(plan(HttpMethod::Post, "/messages?sessionId=zz", &[host, json]).unwrap_err().status, 400);
    assert_eq!(plan(HttpMethod::Get, &target, &[host]).unwrap_err().status, 405);
    // Off by default.
    assert_eq!(head(HttpMethod::Get, "/sse", &[host, sse]).unwrap_err().status, 404);

    let mut out = [0u8; 128];
    let len = write_endpoint_event("/messages", sid, &mut out).unwrap();
    assert_eq!(&out[..len], std::format!("event: endpoint\ndata: /messages?sessionId={SID}\n\n").as_bytes());
    assert_eq!(write_endpoint_event("/a\nb", sid, &mut out), None);
    assert_eq!(len, "/messages".len() + 67);
    assert_eq!(write_endpoint_event("/messages", sid, &mut out[..len - 1]), None);
}

/// Bodies whose plans and answers must not depend on who validated them, or with which limit.
fn parsed_bodies() -> std::vec::Vec<std::string::String> {
    let deep = |n: usize| {
        std::format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"x":{}1{}}}}}"#,
            "[".repeat(n),
            "]".repeat(n)
        )
    };
    std::vec![
        modern_call("test_simple_text"),
        modern_call("nope"),
        std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#),
        std::format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{{META}}}}}"#),
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#.into(),
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#.into(),
        r#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#.into(),
        r#"{"jsonrpc":"2.0","id":2,"method":"ping""#.into(),
        r#"{"id":2}"#.into(),
        "".into(),
        deep(4),
        deep(20),
        deep(70),
    ]
}

#[test]
fn a_plan_of_a_parsed_body_is_the_plan_of_its_bytes_whatever_the_depth_it_was_parsed_with() {
    let headers = [
        modern_headers(b"tools/call", Some(b"test_simple_text")),
        modern_headers(b"tools/list", None),
        modern_headers(b"ping", None),
        post_headers(),
        std::vec![("Accept", &b"text/event-stream"[..]), ("MCP-Protocol-Version", b"2025-11-25")],
    ];
    for body in parsed_bodies() {
        for pairs in &headers {
            for session in [false, true] {
                let expected = plan_post(&HeaderList(pairs), body.as_bytes(), session);
                for depth in [64, 8, 300] {
                    let parsed = crate::jsonrpc::ParsedMessage::parse(body.as_bytes(), depth);
                    assert_eq!(plan_post_parsed(&HeaderList(pairs), &parsed, session), expected, "{body} {depth}");
                }
            }
        }
    }
}

#[test]
fn an_engine_answers_a_parsed_body_as_it_answers_its_bytes() {
    use crate::endpoint::{Route, StreamId};
    use crate::server::{Buffers, Config, Engine, Handler, Tool};
    use crate::time::Instant;

    static TOOLS: [Tool<'static>; 1] = [Tool::new("test_simple_text", "", r#"{"type":"object"}"#)];
    struct App;
    impl Handler for App {
        const TOOLS: &'static [Tool<'static>] = &TOOLS;
    }
    // What an engine with the depth limit `limit` answers, given the bytes or a body validated with `depth`.
    let answer = |body: &[u8], limit: usize, depth: Option<usize>| {
        let mut config = Config::new("parsed", "1.0.0");
        config.limits.max_depth = limit;
        let buffers = Buffers { rx: std::vec![0u8; 4096].leak(), tx: std::vec![0u8; 4096].leak() };
        let mut engine: Engine<'static> = Engine::new(config, buffers);
        let route = Route::new(StreamId(1), Framing::Body).ending_with_response();
        let received = match depth {
            None => engine.handle_message(Instant::ZERO, route, body, &mut App),
            Some(depth) => {
                let parsed = crate::jsonrpc::ParsedMessage::parse(body, depth);
                engine.handle_parsed(Instant::ZERO, route, &parsed, &mut App)
            }
        };
        let sent = engine.poll_transmit().map(|t| t.bytes.to_vec()).unwrap_or_default();
        (received, sent)
    };
    for body in parsed_bodies() {
        for limit in [64, 16] {
            let expected = answer(body.as_bytes(), limit, None);
            for depth in [64, 16, 300] {
                assert_eq!(answer(body.as_bytes(), limit, Some(depth)), expected, "{body} {limit} {depth}");
            }
        }
    }
}
