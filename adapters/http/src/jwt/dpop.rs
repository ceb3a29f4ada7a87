//! DPoP proofs (RFC 9449 §4.3) of requests presenting a DPoP-bound token (`cnf.jkt`).
//!
//! A proof is accepted when: it is at most [`JwtConfig::max_token_bytes`] long; its header has
//! `typ` `dpop+jwt`, an asymmetric `alg` of [`JwtAlgorithm::ALL`] and a public `jwk` (no private
//! or symmetric key members); its signature verifies with that key; its `htm` is the request's
//! method and its `htu` the request's URL (the audience's origin and the request's path, both
//! normalized, no query or fragment); its `iat` is within [`JwtConfig::dpop_proof_lifetime`] of
//! now (leeway added); its `ath` is the hash of the token presented; its `jti` was not seen in
//! another proof within that time. The thumbprint of its key (RFC 7638) is what the token must
//! be bound to. Server nonces (RFC 9449 §9) are not asked for.

use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::{JwtAlgorithm, JwtConfig, JwtError};
use crate::config::{ProofRequest, VerifiedProof};

/// Longest `jti` remembered.
const MAX_JTI_LEN: usize = 256;

/// Checks proofs for one endpoint, and remembers their `jti`s.
pub(super) struct ProofChecker {
    /// `scheme://host[:port]` of the audience, normalized.
    origin: String,
    max_bytes: usize,
    /// How far `iat` may be from now, leeway included, in seconds.
    window: u64,
    seen: Mutex<Seen>,
    max_seen: usize,
}

/// The `jti`s of accepted proofs, oldest first, with when each may be forgotten.
#[derive(Default)]
struct Seen {
    order: VecDeque<(u64, String)>,
    jtis: HashSet<String>,
}

#[derive(Deserialize)]
struct Claims {
    jti: String,
    htm: String,
    htu: String,
    iat: u64,
    ath: Option<String>,
}

impl ProofChecker {
    pub(super) fn new(config: &JwtConfig) -> ProofChecker {
        ProofChecker {
            origin: normalized(&config.audience).map(|(origin, _)| origin).unwrap_or_default(),
            max_bytes: config.max_token_bytes,
            window: (config.dpop_proof_lifetime + config.leeway).as_secs(),
            seen: Mutex::new(Seen::default()),
            max_seen: config.max_dpop_proofs,
        }
    }

    /// Checks `request`'s proof (see the module docs): the thumbprint of its key, its `jti`, and
    /// how long a replay of it would pass these checks.
    pub(super) fn check(&self, request: &ProofRequest<'_>) -> Result<VerifiedProof, JwtError> {
        let proof = request.proof;
        if proof.len() > self.max_bytes {
            return Err(JwtError::TooLarge);
        }
        let header = proof.split('.').next().and_then(|part| URL_SAFE_NO_PAD.decode(part).ok());
        let header: serde_json::Value =
            header.and_then(|h| serde_json::from_slice(&h).ok()).ok_or(JwtError::Malformed)?;
        if header["typ"] != "dpop+jwt" {
            return Err(JwtError::Malformed);
        }
        let alg = header["alg"].as_str().and_then(JwtAlgorithm::from_name).ok_or(JwtError::AlgorithmNotAccepted)?;
        let jwk = &header["jwk"];
        let thumbprint = thumbprint(jwk).ok_or(JwtError::Malformed)?;
        let parsed: jsonwebtoken::jwk::Jwk = serde_json::from_value(jwk.clone()).map_err(|_| JwtError::Malformed)?;
        let key = jsonwebtoken::DecodingKey::from_jwk(&parsed).map_err(|_| JwtError::Malformed)?;
        let mut validation = jsonwebtoken::Validation::new(alg.to_jose());
        validation.validate_exp = false;
        validation.validate_aud = false;
        validation.required_spec_claims.clear();
        let claims = jsonwebtoken::decode::<Claims>(proof, &key, &validation)?.claims;
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let expected_url = format!("{}{}", self.origin, request.path.split(['?', '#']).next().unwrap_or("/"));
        let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(request.access_token.as_bytes()));
        let wrong = if claims.htm != request.method {
            Some("htm")
        } else if normalized(&claims.htu).is_none_or(|(origin, path)| format!("{origin}{path}") != expected_url) {
            Some("htu")
        } else if claims.iat.abs_diff(now) > self.window {
            Some("iat")
        } else if claims.ath.as_deref() != Some(ath.as_str()) {
            Some("ath")
        } else if claims.jti.is_empty() || claims.jti.len() > MAX_JTI_LEN {
            Some("jti")
        } else {
            None
        };
        if let Some(claim) = wrong {
            return Err(JwtError::DpopProof(claim));
        }
        self.remember(claims.jti.clone(), now)?;
        // Accepted while |iat - now| <= window: until iat + window, at most 2 windows from now.
        let replayable_for = Duration::from_secs(claims.iat.saturating_add(self.window).saturating_sub(now));
        Ok(VerifiedProof::new(thumbprint, claims.jti, replayable_for))
    }

    /// Remembers `jti` until the window has passed; refuses one seen within it, or any while
    /// [`JwtConfig::max_dpop_proofs`] are remembered.
    fn remember(&self, jti: String, now: u64) -> Result<(), JwtError> {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        while let Some((forget_at, _)) = seen.order.front()
            && *forget_at <= now
        {
            if let Some((_, old)) = seen.order.pop_front() {
                seen.jtis.remove(&old);
            }
        }
        if seen.jtis.contains(&jti) {
            return Err(JwtError::DpopProof("jti (replayed)"));
        }
        if seen.jtis.len() >= self.max_seen {
            tracing::warn!(max = self.max_seen, "DPoP proofs refused: as many jtis remembered as allowed");
            return Err(JwtError::DpopProof("jti (too many proofs)"));
        }
        // A proof is good until `iat` + window; `iat` may be up to the window ahead of now.
        seen.order.push_back((now + 2 * self.window, jti.clone()));
        seen.jtis.insert(jti);
        Ok(())
    }

    /// The proof lifetime, for tests.
    #[cfg(test)]
    fn window(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.window)
    }
}

/// The RFC 7638 thumbprint of a public JWK (base64url SHA-256 of its required members in order),
/// `None` for a private or symmetric key, or another key type.
pub(super) fn thumbprint(jwk: &serde_json::Value) -> Option<String> {
    let member = |name: &str| jwk.get(name)?.as_str().map(|v| serde_json::to_string(v).unwrap_or_default());
    let private = ["d", "p", "q", "dp", "dq", "qi", "k"].iter().any(|m| jwk.get(m).is_some());
    if private {
        return None;
    }
    let canonical = match jwk.get("kty")?.as_str()? {
        "EC" => format!(r#"{{"crv":{},"kty":"EC","x":{},"y":{}}}"#, member("crv")?, member("x")?, member("y")?),
        "RSA" => format!(r#"{{"e":{},"kty":"RSA","n":{}}}"#, member("e")?, member("n")?),
        "OKP" => format!(r#"{{"crv":{},"kty":"OKP","x":{}}}"#, member("crv")?, member("x")?),
        _ => return None,
    };
    Some(URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes())))
}

/// `url` as (origin, path): scheme and host in lower case, the scheme's default port left out,
/// no query or fragment, `/` for an empty path (RFC 3986 §6.2.2 and §6.2.3, as RFC 9449 §4.3
/// compares `htu`).
fn normalized(url: &str) -> Option<(String, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = rest[..end].to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "https" => ":443",
        "http" => ":80",
        _ => return None,
    };
    let authority = authority.strip_suffix(default_port).unwrap_or(&authority);
    let path = rest[end..].split(['?', '#']).next().unwrap_or_default();
    Some((format!("{scheme}://{authority}"), if path.is_empty() { "/" } else { path }))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn urls_are_compared_normalized() {
        assert_eq!(normalized("HTTPS://MCP.Example:443/mcp?x#y"), Some(("https://mcp.example".into(), "/mcp")));
        assert_eq!(normalized("http://h:8080"), Some(("http://h:8080".into(), "/")));
        assert_eq!(normalized("ftp://h/x"), None);
        assert_eq!(normalized("no-scheme"), None);
    }

    #[test]
    fn thumbprints_follow_rfc_7638() {
        // RFC 7638 §3.1's example key and thumbprint.
        let jwk = serde_json::json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        });
        assert_eq!(thumbprint(&jwk).as_deref(), Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"));
        let mut private = jwk.clone();
        private["d"] = "secret".into();
        assert_eq!(thumbprint(&private), None);
        assert_eq!(thumbprint(&serde_json::json!({"kty": "oct", "k": "abc"})), None);
    }

    #[test]
    fn a_jti_is_refused_again_within_the_window_and_memory_is_bounded() {
        let config = JwtConfig::new("https://as", "https://mcp.example/mcp", "https://as/jwks")
            .with_dpop_proof_lifetime(Duration::from_secs(10))
            .with_leeway(Duration::ZERO)
            .with_max_dpop_proofs(2);
        let checker = ProofChecker::new(&config);
        assert_eq!(checker.window(), Duration::from_secs(10));
        checker.remember("a".into(), 100).unwrap();
        assert_eq!(checker.remember("a".into(), 101), Err(JwtError::DpopProof("jti (replayed)")));
        checker.remember("b".into(), 101).unwrap();
        assert_eq!(checker.remember("c".into(), 102), Err(JwtError::DpopProof("jti (too many proofs)")));
        // Once `a` can no longer be a valid proof's, it is forgotten and there is room again.
        checker.remember("c".into(), 120).unwrap();
        assert!(!checker.seen.lock().unwrap().jtis.contains("a"));
    }
}
