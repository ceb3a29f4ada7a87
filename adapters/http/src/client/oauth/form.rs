//! The small encodings of OAuth: `application/x-www-form-urlencoded` bodies and queries, URL
//! parts, base64url, and PKCE (RFC 7636, S256).

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use sha2::{Digest, Sha256};

/// `pairs` as `application/x-www-form-urlencoded` text (for a body or a query).
pub(crate) fn encode(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        escape(name, &mut out);
        out.push('=');
        escape(value, &mut out);
    }
    out
}

/// Percent-encodes `text` for a form or query: unreserved characters as they are, space as `+`.
fn escape(text: &str, out: &mut String) {
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(byte as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
}

/// The pairs of a query or form body, decoded (`+` as space, `%XX` escapes; a malformed escape
/// is kept as it is).
pub(crate) fn decode(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (unescape(name), unescape(value))
        })
        .collect()
}

fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The value of `name` in the query of `url` (the first, decoded).
pub(crate) fn query_param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or_default();
    decode(query).into_iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// `url` with `pairs` added to its query.
pub(crate) fn with_query(url: &str, pairs: &[(&str, &str)]) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}{}", encode(pairs))
}

/// The parts of an absolute `http(s)` URL: `scheme://authority` and the path (without query or
/// fragment; `/` when empty).
pub(crate) fn split_url(url: &str) -> Option<(&str, &str)> {
    let scheme_end = url.find("://")?;
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).map_or(url.len(), |i| scheme_end + 3 + i);
    let origin = &url[..authority_end];
    let path = url[authority_end..].split(['?', '#']).next().unwrap_or_default();
    Some((origin, if path.is_empty() { "/" } else { path }))
}

/// base64url without padding (RFC 4648 §5), as PKCE and `state` use.
pub(crate) fn base64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Standard base64 with padding (HTTP Basic credentials).
pub(crate) fn base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// `count` random bytes as base64url: a PKCE verifier (32 bytes: 43 characters) or a `state`.
pub(crate) fn random_text(count: usize) -> std::io::Result<String> {
    let mut bytes = vec![0u8; count];
    getrandom::fill(&mut bytes).map_err(|error| std::io::Error::other(error.to_string()))?;
    Ok(base64url(&bytes))
}

/// The S256 challenge of a PKCE verifier: `BASE64URL(SHA256(verifier))`.
pub(crate) fn s256(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}

/// HTTP Basic credentials for a client (RFC 6749 §2.3.1: id and secret form-encoded first).
pub(crate) fn basic(client_id: &str, secret: &str) -> String {
    let mut id = String::new();
    escape(client_id, &mut id);
    let mut password = String::new();
    escape(secret, &mut password);
    format!("Basic {}", base64(format!("{id}:{password}").as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_round_trip_and_escape_reserved_characters() {
        let text = encode(&[("a b", "x&y=z"), ("redirect_uri", "http://localhost:3000/cb?q=1"), ("e", "é")]);
        assert_eq!(text, "a+b=x%26y%3Dz&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fcb%3Fq%3D1&e=%C3%A9");
        assert_eq!(
            decode(&text),
            [("a b", "x&y=z"), ("redirect_uri", "http://localhost:3000/cb?q=1"), ("e", "é")]
                .map(|(n, v)| (n.to_owned(), v.to_owned()))
        );
        assert_eq!(decode("x=%zz&y=%4"), [("x".to_owned(), "%zz".to_owned()), ("y".to_owned(), "%4".to_owned())]);
    }

    #[test]
    fn query_parameters_and_url_parts_are_read() {
        let url = "http://localhost:3000/callback?code=abc%20d&state=s1&iss=http%3A%2F%2Fas#frag";
        assert_eq!(query_param(url, "code").as_deref(), Some("abc d"));
        assert_eq!(query_param(url, "iss").as_deref(), Some("http://as"));
        assert_eq!(query_param(url, "nope"), None);
        assert_eq!(split_url("https://as.example:8443/tenant/x?y#z"), Some(("https://as.example:8443", "/tenant/x")));
        assert_eq!(split_url("http://as"), Some(("http://as", "/")));
        assert_eq!(with_query("http://as/authorize", &[("a", "1")]), "http://as/authorize?a=1");
    }

    #[test]
    fn pkce_matches_rfc_7636_appendix_b() {
        assert_eq!(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        assert_eq!(random_text(32).unwrap().len(), 43);
    }

    #[test]
    fn basic_credentials_are_form_encoded_then_base64() {
        assert_eq!(basic("id", "s e"), format!("Basic {}", base64(b"id:s+e")));
    }
}
