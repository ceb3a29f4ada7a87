//! Bearer-token authorization (OAuth 2.1 resource server, RFC 6750 and RFC 9728): reading the
//! token, and the `WWW-Authenticate` challenges that point clients to the resource metadata.

use crate::http::header::{Headers, trim_ows};

/// The path of the protected resource metadata document (RFC 9728 §3), at the root; the
/// path-inserted form for an endpoint `/mcp` is this followed by `/mcp`.
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if well-formed
/// (RFC 6750 §2.1 `b64token` characters). Tokens are never taken from the query string.
pub fn bearer_token<H: Headers + ?Sized>(headers: &H) -> Option<&str> {
    if headers.count("authorization") != 1 {
        return None;
    }
    let value = trim_ows(headers.get("authorization")?);
    let (scheme, token) = (value.get(..7)?, value.get(7..)?);
    if !scheme.eq_ignore_ascii_case(b"bearer ") {
        return None;
    }
    let token = trim_ows(token);
    let valid = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/');
    let body = token.iter().rposition(|&b| b != b'=').map_or(&[][..], |end| &token[..=end]);
    if body.is_empty() || !body.iter().all(valid) {
        return None;
    }
    core::str::from_utf8(token).ok()
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
