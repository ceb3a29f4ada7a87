//! Bearer-token authorization (OAuth 2.1 resource server, RFC 6750 and RFC 9728): reading the
//! token (as `Bearer`, or as `DPoP` with its proof, RFC 9449), and the `WWW-Authenticate`
//! challenges that point clients to the resource metadata.

use crate::http::header::{Headers, trim_ows};

/// The path of the protected resource metadata document (RFC 9728 §3), at the root; the
/// path-inserted form for an endpoint `/mcp` is this followed by `/mcp`.
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if well-formed
/// (RFC 6750 §2.1 `b64token` characters). Tokens are never taken from the query string.
pub fn bearer_token<H: Headers + ?Sized>(headers: &H) -> Option<&str> {
    match access_token(headers)? {
        (TokenScheme::Bearer, token) => Some(token),
        (TokenScheme::Dpop, _) => None,
    }
}

/// How an access token is presented.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenScheme {
    /// `Authorization: Bearer <token>` (RFC 6750).
    Bearer,
    /// `Authorization: DPoP <token>`, with a proof in the `DPoP` header (RFC 9449 §7.1).
    Dpop,
}

/// The scheme and token of the one `Authorization` header, `Bearer` or `DPoP` (case-insensitive),
/// if the token is well-formed (`b64token` characters, RFC 6750 §2.1 and RFC 9449 §7.1).
pub fn access_token<H: Headers + ?Sized>(headers: &H) -> Option<(TokenScheme, &str)> {
    if headers.count("authorization") != 1 {
        return None;
    }
    let value = trim_ows(headers.get("authorization")?);
    let space = value.iter().position(|&b| b == b' ')?;
    let (scheme, token) = (&value[..space], &value[space..]);
    let scheme = match scheme {
        s if s.eq_ignore_ascii_case(b"bearer") => TokenScheme::Bearer,
        s if s.eq_ignore_ascii_case(b"dpop") => TokenScheme::Dpop,
        _ => return None,
    };
    let token = trim_ows(token);
    let valid = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/');
    let body = token.iter().rposition(|&b| b != b'=').map_or(&[][..], |end| &token[..=end]);
    if body.is_empty() || !body.iter().all(valid) {
        return None;
    }
    Some((scheme, core::str::from_utf8(token).ok()?))
}

/// The DPoP proof of a request: the one `DPoP` header (RFC 9449 §4.3: more than one is an
/// error), if it is a JWT's compact form (three base64url parts).
pub fn dpop_proof<H: Headers + ?Sized>(headers: &H) -> Option<&str> {
    if headers.count("dpop") != 1 {
        return None;
    }
    let proof = trim_ows(headers.get("dpop")?);
    let base64url = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
    let dots = proof.iter().filter(|&&b| b == b'.').count();
    (dots == 2 && proof.iter().all(base64url)).then(|| core::str::from_utf8(proof).ok()).flatten()
}

/// Whether a path is one the resource metadata document is served at: the root form or the
/// form path-inserted for `endpoint`.
pub fn is_resource_metadata_path(path: &[u8], endpoint: &str) -> bool {
    let path = path.split(|&b| b == b'?').next().unwrap_or(&[]);
    path == RESOURCE_METADATA_PATH.as_bytes()
        || path.strip_prefix(RESOURCE_METADATA_PATH.as_bytes()) == Some(endpoint.as_bytes())
}

/// A `WWW-Authenticate` challenge for a 401 (missing or invalid token, `insufficient_scope: None`)
/// or a 403 (`Some(scopes)`: the scopes the operation needs), naming the metadata document.
/// Written into `out`; `None` if it does not fit, or a value holds `"` or a line break.
pub fn write_challenge<'o>(
    resource_metadata: &str,
    insufficient_scope: Option<&str>,
    out: &'o mut [u8],
) -> Option<&'o str> {
    let safe = |s: &str| !s.bytes().any(|b| matches!(b, b'"' | b'\\' | b'\r' | b'\n'));
    if !safe(resource_metadata) || !insufficient_scope.is_none_or(safe) {
        return None;
    }
    let mut len = 0;
    let mut put = |part: &str| -> Option<()> {
        out.get_mut(len..len + part.len())?.copy_from_slice(part.as_bytes());
        len += part.len();
        Some(())
    };
    put("Bearer ")?;
    if let Some(scope) = insufficient_scope {
        put("error=\"insufficient_scope\", scope=\"")?;
        put(scope)?;
        put("\", ")?;
    }
    put("resource_metadata=\"")?;
    put(resource_metadata)?;
    put("\"")?;
    core::str::from_utf8(out.get(..len)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::HeaderList;

    #[test]
    fn bearer_tokens_are_read_strictly() {
        let token = |v: &'static [u8]| {
            let pairs = [("Authorization", v)];
            bearer_token(&HeaderList(&pairs)).map(std::string::String::from)
        };
        assert_eq!(token(b"Bearer abc.DEF-12_~+/=").as_deref(), Some("abc.DEF-12_~+/="));
        assert_eq!(token(b"bearer  xyz ").as_deref(), Some("xyz"));
        assert_eq!(token(b"Basic abc"), None);
        assert_eq!(token(b"Bearer "), None);
        assert_eq!(token(b"Bearer a b"), None);
        assert_eq!(token(b"Bearer a=b"), None);
        let twice: [(&str, &[u8]); 2] = [("Authorization", b"Bearer a"), ("authorization", b"Bearer b")];
        assert_eq!(bearer_token(&HeaderList(&twice)), None);
        assert_eq!(bearer_token(&HeaderList(&[])), None);
        assert_eq!(token(b"DPoP abc"), None, "a DPoP token is not a bearer token");
    }

    #[test]
    fn dpop_tokens_and_proofs_are_read_strictly() {
        let read = |v: &'static [u8]| access_token(&HeaderList(&[("Authorization", v)])).map(|(s, t)| (s, t.len()));
        assert_eq!(read(b"DPoP abc"), Some((TokenScheme::Dpop, 3)));
        assert_eq!(read(b"dpop   abc "), Some((TokenScheme::Dpop, 3)));
        assert_eq!(read(b"Bearer abc"), Some((TokenScheme::Bearer, 3)));
        assert_eq!(read(b"DPoPabc"), None);
        assert_eq!(read(b"DPoP a,b"), None);
        let proof = |pairs: &[(&str, &'static [u8])]| dpop_proof(&HeaderList(pairs)).map(std::string::String::from);
        assert_eq!(proof(&[("DPoP", b" aa.bb-_.cc ")]).as_deref(), Some("aa.bb-_.cc"));
        assert_eq!(proof(&[("DPoP", b"aa.bb")]), None, "not a JWT");
        assert_eq!(proof(&[("DPoP", b"aa.b=b.cc")]), None);
        assert_eq!(proof(&[("DPoP", b"a.b.c"), ("dpop", b"a.b.c")]), None, "two proofs");
        assert_eq!(proof(&[]), None);
    }

    #[test]
    fn challenges_and_metadata_paths() {
        let mut out = [0u8; 256];
        let url = "https://mcp.example/.well-known/oauth-protected-resource/mcp";
        assert_eq!(write_challenge(url, None, &mut out), Some(&*std::format!("Bearer resource_metadata=\"{url}\"")));
        let mut out = [0u8; 256];
        assert_eq!(
            write_challenge(url, Some("tools:call"), &mut out),
            Some(&*std::format!(
                "Bearer error=\"insufficient_scope\", scope=\"tools:call\", resource_metadata=\"{url}\""
            ))
        );
        assert_eq!(write_challenge("a\"b", None, &mut [0u8; 64]), None);
        assert_eq!(write_challenge(url, None, &mut [0u8; 16]), None);
        assert!(is_resource_metadata_path(b"/.well-known/oauth-protected-resource", "/mcp"));
        assert!(is_resource_metadata_path(b"/.well-known/oauth-protected-resource/mcp", "/mcp"));
        assert!(!is_resource_metadata_path(b"/.well-known/oauth-protected-resource/other", "/mcp"));
    }
}
