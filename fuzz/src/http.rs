//! Target `http`: the core's Streamable HTTP rules ([`mcp_sansio::http`]) under arbitrary heads,
//! header values and bodies.
//!
//! Input: a method byte, a path chunk, a header count and that many (name chunk, value chunk)
//! pairs, a session flag byte (which also enables the HTTP+SSE paths), then the body. Checks: planning never panics; access tokens and DPoP proofs are read as one word and a JWT; a refusal's body is a
//! JSON-RPC error naming its code (or absent); a decoded header value is the trimmed plain value
//! or decodes what a standard base64 encoder makes of it; session ids and SSE output events round
//! trip; statuses are among those the rules name.

use mcp_sansio::endpoint::Framing;
use mcp_sansio::frame::sse::{EventId, SseEvent, write_event};
use mcp_sansio::http::{
    self, HeaderList, HttpMethod, Policy, Rejection, SessionId, SsePaths, TokenScheme, access_token, bearer_token,
    decode_value, dpop_proof, first_transmit_status, plan_head, plan_post, response_status, sse_events,
};
use mcp_sansio::version::Era;

use crate::input::Input;

const NAMES: [&str; 12] = [
    "host",
    "origin",
    "accept",
    "content-type",
    "content-length",
    "transfer-encoding",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "mcp-session-id",
    "authorization",
    "dpop",
];

fn check_rejection(rejection: &Rejection<'_>) {
    assert!(matches!(rejection.status, 400 | 403 | 404 | 405 | 406 | 413 | 415 | 503), "{rejection:?}");
    let mut out = [0u8; 512];
    let len = rejection.write_body(&mut out);
    match rejection.code {
        None => assert_eq!(len, 0),
        Some(code) => {
            assert!(len > 0, "a body fits 512 bytes");
            let value: serde_json::Value = serde_json::from_slice(&out[..len]).expect("the body is JSON");
            assert_eq!(value["error"]["code"], code);
            assert_eq!(value["jsonrpc"], "2.0");
        }
    }
}

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Runs one input.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let method = match input.byte() % 4 {
        0 => HttpMethod::Post,
        1 => HttpMethod::Get,
        2 => HttpMethod::Delete,
        _ => HttpMethod::Other,
    };
    let path = input.chunk();
    let count = input.below(12);
    let mut pairs: Vec<(&str, &[u8])> = Vec::new();
    for _ in 0..count {
        let name = NAMES[input.below(NAMES.len())];
        pairs.push((name, input.chunk()));
    }
    let session = input.byte() & 1 == 1;
    let body = input.rest();
    let headers = HeaderList(&pairs);

    // The session flag also turns on the HTTP+SSE paths.
    let policy = Policy { max_body: 1 << 12, sse: session.then_some(SsePaths::DEFAULT), ..Policy::default() };
    if let Err(rejection) = plan_head(&policy, method, path, &headers) {
        check_rejection(&rejection);
    }
    match plan_post(&headers, body, session) {
        Ok(plan) => assert!(matches!(plan.framing, Framing::Body | Framing::Sse)),
        Err(rejection) => check_rejection(&rejection),
    }
    for era in [Era::Legacy, Era::Modern] {
        assert!(matches!(response_status(era, body), 200 | 400 | 404));
        assert!(matches!(first_transmit_status(era, Framing::Sse, body, true), 200 | 400 | 404));
    }

    // An access token is one visible word, a bearer one only under its scheme; a DPoP proof is
    // a JWT's three base64url parts.
    if let Some((scheme, token)) = access_token(&headers) {
        assert!(!token.is_empty() && token.bytes().all(|b| b.is_ascii_graphic()), "{token:?}");
        assert_eq!(bearer_token(&headers), (scheme == TokenScheme::Bearer).then_some(token));
    }
    if let Some(proof) = dpop_proof(&headers) {
        assert_eq!(proof.split('.').count(), 3, "{proof:?}");
        assert!(proof.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')));
    }

    // Header values: plain ones come back trimmed, encoded ones decode.
    for (_, value) in &pairs {
        let mut out = [0u8; 64];
        if let Ok(text) = decode_value(value, &mut out) {
            assert!(text.len() <= 64);
        }
        if let Ok(text) = std::str::from_utf8(value) {
            let encoded = format!("=?base64?{}?=", base64(text.as_bytes()));
            let mut out = vec![0u8; text.len()];
            assert_eq!(decode_value(encoded.as_bytes(), &mut out), Ok(text));
        }
    }

    // Session ids round trip; foreign ones do not parse as something else.
    let mut random = [0u8; http::SESSION_ID_RANDOM_BYTES];
    for (slot, b) in random.iter_mut().zip(body) {
        *slot = *b;
    }
    let id = SessionId::from_random(random);
    assert_eq!(SessionId::parse(id.as_str().as_bytes()), Some(id));
    if let Some(parsed) = SessionId::parse(body) {
        assert_eq!(parsed.as_str().as_bytes(), http::trim_ows(body));
    }

    // The output events of what the SSE encoder writes for `body` (as one data line) are exactly
    // what was written.
    if !body.contains(&b'\n') && !body.contains(&b'\r') {
        let mut out = vec![0u8; body.len() + 64];
        let event = SseEvent::new().with_id(EventId::new(7, u64::from(count as u8)));
        if let Ok(len) = write_event(&event, body, &mut out) {
            let twice = [&out[..len], &out[..len]].concat();
            let events: Vec<_> = sse_events(&twice).collect();
            assert_eq!(events.len(), 2);
            assert_eq!(events[0].bytes, &out[..len]);
            assert_eq!(events[0].data, body);
            assert_eq!(events[0].id, Some(EventId::new(7, u64::from(count as u8))));
        }
    }
    let consumed: usize = sse_events(body).map(|e| e.bytes.len()).sum();
    assert!(consumed <= body.len());
}

/// Encodes an input for [`run`]: `method` (0 POST, 1 GET, 2 DELETE, 3 other), the path, headers as
/// (index into the known names, value), the session flag and the body.
pub fn encode(method: u8, path: &[u8], headers: &[(&str, &[u8])], session: bool, body: &[u8]) -> Vec<u8> {
    let mut e = crate::input::Encoder::new();
    e.byte(method).chunk(path).byte(headers.len() as u8);
    for (name, value) in headers {
        let index = NAMES.iter().position(|n| n == name).expect("a known header name");
        e.byte(index as u8).chunk(value);
    }
    e.byte(u8::from(session)).bytes(body);
    e.finish()
}
