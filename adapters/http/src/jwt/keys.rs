//! The issuer's key set: the signature keys of a JWKS document (RFC 7517), ready to verify with.

use std::io;

use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};

use super::config::{JwtAlgorithm, MAX_KEYS};

/// One usable key.
pub(super) struct Key {
    pub(super) kid: Option<String>,
    /// The key's own `alg`, if it names one: then only that algorithm is verified with it.
    alg: Option<JwtAlgorithm>,
    shape: Shape,
    pub(super) key: DecodingKey,
}

/// The key's type and curve, which decide the algorithms it can verify.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Rsa,
    P256,
    P384,
    Ed25519,
}

impl Key {
    /// Whether a token signed with `alg` may be verified with this key.
    pub(super) fn fits(&self, alg: JwtAlgorithm) -> bool {
        use JwtAlgorithm as A;
        let shape_fits = match self.shape {
            Shape::Rsa => matches!(alg, A::RS256 | A::RS384 | A::RS512 | A::PS256 | A::PS384 | A::PS512),
            Shape::P256 => alg == A::ES256,
            Shape::P384 => alg == A::ES384,
            Shape::Ed25519 => alg == A::EdDSA,
        };
        shape_fits && self.alg.is_none_or(|own| own == alg)
    }
}

/// The keys of one JWKS document.
#[derive(Default)]
pub(super) struct KeySet {
    pub(super) keys: Vec<Key>,
}

impl KeySet {
    /// Reads a JWKS document. Keys for encryption (`use: "enc"`), symmetric keys, keys of
    /// unsupported types, curves or algorithms, and malformed keys are skipped (one such key does
    /// not make the others unusable); at most [`MAX_KEYS`] are kept.
    pub(super) fn parse(document: &[u8]) -> io::Result<KeySet> {
        #[derive(serde::Deserialize)]
        struct Document {
            keys: Vec<serde_json::Value>,
        }
        let document: Document =
            serde_json::from_slice(document).map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))?;
        let keys: Vec<Key> = document.keys.into_iter().filter_map(Key::from_value).take(MAX_KEYS).collect();
        Ok(KeySet { keys })
    }

    /// The key named `kid`; for a token without one, the only key that fits `alg` (if exactly one
    /// does).
    pub(super) fn find(&self, kid: Option<&str>, alg: JwtAlgorithm) -> Option<&Key> {
        match kid {
            Some(kid) => self.keys.iter().find(|key| key.kid.as_deref() == Some(kid)),
            None => {
                let mut fitting = self.keys.iter().filter(|key| key.fits(alg));
                let key = fitting.next()?;
                fitting.next().is_none().then_some(key)
            }
        }
    }
}

impl Key {
    fn from_value(value: serde_json::Value) -> Option<Key> {
        // The key's `alg`, read before the JWK parse (which refuses names it does not know).
        let alg = match value.get("alg") {
            None => None,
            Some(name) => Some(JwtAlgorithm::from_name(name.as_str()?)?),
        };
        let jwk: Jwk = serde_json::from_value(value).ok()?;
        if matches!(jwk.common.public_key_use, Some(ref usage) if *usage != PublicKeyUse::Signature) {
            return None;
        }
        let shape = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => Shape::Rsa,
            AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
                EllipticCurve::P256 => Shape::P256,
                EllipticCurve::P384 => Shape::P384,
                _ => return None,
            },
            AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => Shape::Ed25519,
            _ => return None,
        };
        let key = DecodingKey::from_jwk(&jwk).ok()?;
        Some(Key { kid: jwk.common.key_id, alg, shape, key })
    }
}
