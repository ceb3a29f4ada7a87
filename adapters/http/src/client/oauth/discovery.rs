//! Finding the authorization server: the `WWW-Authenticate` challenge, the protected resource's
//! metadata (RFC 9728) and the authorization server's (RFC 8414, OpenID Connect Discovery), in the
//! order the MCP authorization spec gives.

use std::io;

use serde::Deserialize;

use super::fetch;
use super::form::split_url;

/// A `Bearer` or `DPoP` challenge of `WWW-Authenticate` (RFC 6750 §3, RFC 9728 §5.1, RFC 9449
/// §7.1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Challenge {
    /// `resource_metadata`: where the protected resource's metadata is.
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs.
    pub scope: Option<String>,
    /// `error` (`invalid_token`, `insufficient_scope`, `use_dpop_nonce`, …).
    pub error: Option<String>,
}

/// Where the scheme `name` (lower case) starts a challenge in `header` (lower case).
fn scheme_at(header: &str, name: &str) -> Option<usize> {
    header.match_indices(name).map(|(at, _)| at).find(|&at| {
        let before = header[..at].chars().next_back();
        let after = header[at + name.len()..].chars().next();
        before.is_none_or(|c| c == ' ' || c == ',') && after.is_none_or(|c| c == ' ' || c == ',')
    })
}

impl Challenge {
    /// The first `Bearer` or `DPoP` challenge in the value of a `WWW-Authenticate` header (`None`
    /// without one).
    pub fn parse(header: &str) -> Option<Challenge> {
        let lower = header.to_ascii_lowercase();
        let (at, scheme) =
            [scheme_at(&lower, "bearer").map(|at| (at, "bearer")), scheme_at(&lower, "dpop").map(|at| (at, "dpop"))]
                .into_iter()
                .flatten()
                .min()?;
        let mut rest = &header[at + scheme.len()..];
        let mut challenge = Challenge::default();
        loop {
            rest = rest.trim_start_matches([' ', '\t', ',']);
            let Some(eq) = rest.find('=') else { break };
            let name = rest[..eq].trim().to_ascii_lowercase();
            if name.contains(' ') {
                break; // the next challenge's scheme
            }
            rest = rest[eq + 1..].trim_start();
            let value;
            if let Some(quoted) = rest.strip_prefix('"') {
                let mut text = String::new();
                let mut chars = quoted.char_indices();
                let mut end = quoted.len();
                while let Some((i, c)) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some((_, next)) = chars.next() {
                                text.push(next);
                            }
                        }
                        '"' => {
                            end = i + 1;
                            break;
                        }
                        c => text.push(c),
                    }
                }
                value = text;
                rest = &quoted[end.min(quoted.len())..];
            } else {
                let end = rest.find([',', ' ']).unwrap_or(rest.len());
                value = rest[..end].to_owned();
                rest = &rest[end..];
            }
            match name.as_str() {
                "resource_metadata" => challenge.resource_metadata = Some(value),
                "scope" => challenge.scope = Some(value),
                "error" => challenge.error = Some(value),
                _ => {}
            }
        }
        Some(challenge)
    }

    /// Whether it asks for more scopes (`403` with `error="insufficient_scope"`).
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    /// Whether it asks for a DPoP proof with the server's nonce (`error="use_dpop_nonce"`, RFC
    /// 9449 §9).
    pub fn asks_for_dpop_nonce(&self) -> bool {
        self.error.as_deref() == Some(super::dpop::USE_DPOP_NONCE)
    }
}

/// Protected resource metadata (RFC 9728 §2): the fields the flow uses.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ResourceMetadata {
    pub(crate) resource: Option<String>,
    #[serde(default)]
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// Authorization server metadata (RFC 8414 §2): the fields the flow uses.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    pub(crate) client_id_metadata_document_supported: Option<bool>,
    pub(crate) authorization_response_iss_parameter_supported: Option<bool>,
    /// RFC 9449 §5.1: the algorithms of DPoP proofs the server accepts.
    pub(crate) dpop_signing_alg_values_supported: Option<Vec<String>>,
}

/// Where to look for the metadata of the protected resource at `url`: the challenge's
/// `resource_metadata`, then the well-known URI with the path inserted, then at the root.
pub(crate) fn resource_metadata_urls(url: &str, challenge: &Challenge) -> Vec<String> {
    let mut urls = Vec::new();
    if let Some(named) = &challenge.resource_metadata {
        urls.push(named.clone());
    }
    if let Some((origin, path)) = split_url(url) {
        if path != "/" {
            urls.push(format!("{origin}/.well-known/oauth-protected-resource{}", path.trim_end_matches('/')));
        }
        urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
    }
    urls
}

/// Where to look for the metadata of the authorization server `issuer`, in the spec's order.
pub(crate) fn server_metadata_urls(issuer: &str) -> Vec<String> {
    let Some((origin, path)) = split_url(issuer) else { return Vec::new() };
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// The first protected resource metadata found for `url` (`None`: none anywhere; an error for
/// one too long to read).
pub(crate) async fn find_resource_metadata(url: &str, challenge: &Challenge) -> io::Result<Option<ResourceMetadata>> {
    for candidate in resource_metadata_urls(url, challenge) {
        match fetch::get(&candidate).await.and_then(|r| r.json::<ResourceMetadata>()) {
            Ok(metadata) if !metadata.authorization_servers.is_empty() => return Ok(Some(metadata)),
            Ok(_) => tracing::debug!(url = %candidate, "resource metadata names no authorization server"),
            Err(error) if error.kind() == io::ErrorKind::FileTooLarge => return Err(error),
            Err(error) => tracing::debug!(url = %candidate, %error, "no resource metadata"),
        }
    }
    Ok(None)
}

/// The metadata of the authorization server `issuer`, whose `issuer` must be `issuer` exactly
/// (RFC 8414 §3.3). `Ok(None)` if no well-known URI has any.
pub(crate) async fn find_server_metadata(issuer: &str) -> io::Result<Option<ServerMetadata>> {
    for candidate in server_metadata_urls(issuer) {
        let response = match fetch::get(&candidate).await {
            Ok(response) => response,
            // Too long: refused, not taken for the absence of metadata.
            Err(error) if error.kind() == io::ErrorKind::FileTooLarge => return Err(error),
            Err(_) => continue,
        };
        if !(200..300).contains(&response.status) {
            continue;
        }
        let metadata: ServerMetadata = response.json()?;
        if metadata.issuer != issuer {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the authorization server metadata names issuer {} instead of {issuer}", metadata.issuer),
            ));
        }
        return Ok(Some(metadata));
    }
    Ok(None)
}

/// Whether the protected resource `resource` (from its metadata) covers the server at `url`:
/// the same origin, and `url`'s path at or under the resource's (RFC 8707 resource indicators).
pub(crate) fn covers(resource: &str, url: &str) -> bool {
    let (Some((r_origin, r_path)), Some((origin, path))) = (split_url(resource), split_url(url)) else {
        return false;
    };
    if !r_origin.eq_ignore_ascii_case(origin) {
        return false;
    }
    let r_path = r_path.trim_end_matches('/');
    path == r_path || path.starts_with(&format!("{r_path}/")) || r_path.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_challenges_are_read_with_quoted_and_bare_values() {
        let c = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="http://h/.well-known/x\"y""#,
        )
        .unwrap();
        assert_eq!(c.scope.as_deref(), Some("mcp:read mcp:write"));
        assert_eq!(c.resource_metadata.as_deref(), Some("http://h/.well-known/x\"y"));
        assert!(c.is_insufficient_scope());
        let bare = Challenge::parse("Basic realm=\"a\", Bearer error=invalid_token,scope=s").unwrap();
        assert_eq!((bare.error.as_deref(), bare.scope.as_deref()), (Some("invalid_token"), Some("s")));
        assert_eq!(Challenge::parse("Bearer"), Some(Challenge::default()));
        assert_eq!(Challenge::parse("Basic realm=x"), None);
    }

    #[test]
    fn dpop_challenges_are_read_and_a_nonce_request_told() {
        let c = Challenge::parse(r#"DPoP error="use_dpop_nonce", resource_metadata="http://h/m""#).unwrap();
        assert!(c.asks_for_dpop_nonce());
        assert_eq!(c.resource_metadata.as_deref(), Some("http://h/m"));
        // The first of the two schemes; a scheme name inside a value is none.
        let both = Challenge::parse(r#"DPoP algs="ES256", Bearer scope="a""#).unwrap();
        assert_eq!(both.scope, None);
        let quoted = Challenge::parse(r#"Basic realm="dpop bearer", Bearer scope="b""#).unwrap();
        assert_eq!(quoted.scope.as_deref(), Some("b"));
        assert!(!Challenge::parse("Bearer error=invalid_token").unwrap().asks_for_dpop_nonce());
    }

    #[test]
    fn metadata_is_looked_for_in_the_specs_order() {
        let challenge = Challenge { resource_metadata: Some("http://h/custom.json".into()), ..Challenge::default() };
        assert_eq!(
            resource_metadata_urls("http://h:1/mcp", &challenge),
            [
                "http://h/custom.json",
                "http://h:1/.well-known/oauth-protected-resource/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            resource_metadata_urls("http://h/", &Challenge::default()),
            ["http://h/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            server_metadata_urls("https://as/tenant1"),
            [
                "https://as/.well-known/oauth-authorization-server/tenant1",
                "https://as/.well-known/openid-configuration/tenant1",
                "https://as/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            server_metadata_urls("https://as"),
            ["https://as/.well-known/oauth-authorization-server", "https://as/.well-known/openid-configuration"]
        );
    }

    #[test]
    fn a_resource_covers_its_own_path_and_below_on_its_origin_only() {
        assert!(covers("http://h:1/mcp", "http://h:1/mcp"));
        assert!(covers("http://h:1", "http://h:1/mcp"));
        assert!(covers("http://h:1/", "http://h:1/mcp"));
        assert!(!covers("http://h:1/mcp", "http://h:1/mcpx"));
        assert!(!covers("http://h:2/mcp", "http://h:1/mcp"));
        assert!(!covers("http://evil/mcp", "http://h:1/mcp"));
    }
}
