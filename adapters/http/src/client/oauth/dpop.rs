//! DPoP (RFC 9449; the MCP extension of SEP-1932): tokens bound to a key of this client, each
//! request carrying a fresh proof that it holds the key.
//!
//! One P-256 key per [`OAuth`](super::OAuth), made when it is first needed and kept in its
//! [`CredentialStore`] if the store keeps one (else a token bound to it is useless to another
//! process: [`Tokens::dpop_jkt`](super::Tokens) tells which key a kept token needs). Proofs are ES256 JWTs (`typ` `dpop+jwt`, the public key as `jwk`)
//! whose claims name the request (`htm`, `htu` without query or fragment), its time (`iat`), a
//! random `jti`, the access token's hash (`ath`) on resource requests, and the server's nonce once
//! it asked for one (`use_dpop_nonce`, RFC 9449 §8 and §9). Nonces are kept per URL they were
//! given for (the token endpoint, the MCP endpoint), the last one each.

use std::collections::HashMap;
use std::io;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::CredentialStore;
use super::form::{base64url, random_text, s256};

/// The only proof algorithm this client signs with.
pub(crate) const ALGORITHM: &str = "ES256";

/// The `error` of a challenge or token error that asks for a nonce.
pub(crate) const USE_DPOP_NONCE: &str = "use_dpop_nonce";

/// The key, its public JWK and thumbprint, and the nonces servers gave.
#[derive(Default)]
pub(crate) struct Dpop {
    key: OnceLock<Key>,
    /// Held while the key is loaded or made: one key, and the store keeps that one.
    making: Mutex<()>,
    nonces: Mutex<HashMap<String, String>>,
}

struct Key {
    pair: EcdsaKeyPair,
    /// The public key as a JWK (RFC 7517), for the proofs' header.
    jwk: serde_json::Value,
    /// Its SHA-256 thumbprint (RFC 7638), base64url: what a bound token's `cnf.jkt` names.
    thumbprint: String,
}

impl Dpop {
    /// The key: the one in memory, else the one `store` keeps, else (if `make`) a new one, which
    /// `store` is given to keep.
    fn key(&self, store: &dyn CredentialStore, make: bool) -> io::Result<Option<&Key>> {
        if let Some(key) = self.key.get() {
            return Ok(Some(key));
        }
        let _making = self.making.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(key) = self.key.get() {
            return Ok(Some(key));
        }
        let key = match store.dpop_key().and_then(|pkcs8| Key::from_pkcs8(&pkcs8).ok()) {
            Some(key) => key,
            None if make => {
                let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                    .map_err(|_| io::Error::other("DPoP key: generating failed"))?;
                store.save_dpop_key(pkcs8.as_ref());
                Key::from_pkcs8(pkcs8.as_ref())?
            }
            None => return Ok(None),
        };
        Ok(Some(self.key.get_or_init(|| key)))
    }

    /// The key, loaded or made.
    fn made(&self, store: &dyn CredentialStore) -> io::Result<&Key> {
        self.key(store, true)?.ok_or_else(|| io::Error::other("DPoP key: none made"))
    }

    /// The thumbprint of this client's key (RFC 7638): the `dpop_jkt` of an authorization
    /// request, and of the tokens bound to it.
    pub(crate) fn thumbprint(&self, store: &dyn CredentialStore) -> io::Result<String> {
        Ok(self.made(store)?.thumbprint.clone())
    }

    /// Whether `jkt` is this client's key (a key neither made nor kept is no token's).
    pub(crate) fn holds(&self, store: &dyn CredentialStore, jkt: &str) -> bool {
        matches!(self.key(store, false), Ok(Some(key)) if key.thumbprint == jkt)
    }

    /// A fresh proof for `method` on `url`, with the hash of `access_token` on a resource request
    /// and the nonce last given for `url`.
    pub(crate) fn proof(
        &self,
        store: &dyn CredentialStore,
        method: &str,
        url: &str,
        access_token: Option<&str>,
    ) -> io::Result<String> {
        let nonce = self.nonces.lock().unwrap_or_else(PoisonError::into_inner).get(htu(url)).cloned();
        self.made(store)?.proof(method, htu(url), access_token, nonce.as_deref())
    }

    /// Keeps `nonce` (a `DPoP-Nonce` header) for `url`; `true` if it is new.
    pub(crate) fn save_nonce(&self, url: &str, nonce: &str) -> bool {
        let mut nonces = self.nonces.lock().unwrap_or_else(PoisonError::into_inner);
        let previous = nonces.insert(htu(url).to_owned(), nonce.to_owned());
        previous.as_deref() != Some(nonce)
    }
}

impl Key {
    fn from_pkcs8(pkcs8: &[u8]) -> io::Result<Key> {
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8, &SystemRandom::new())
            .map_err(|_| io::Error::other("DPoP key: not a P-256 key"))?;
        // Uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = pair.public_key().as_ref();
        let (x, y) = (base64url(&point[1..33]), base64url(&point[33..65]));
        // RFC 7638 §3.2: the required members only, in lexicographic order, no whitespace.
        let thumbprint = base64url(&Sha256::digest(format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#)));
        let jwk = json!({"kty": "EC", "crv": "P-256", "x": x, "y": y});
        Ok(Key { pair, jwk, thumbprint })
    }

    fn proof(&self, method: &str, htu: &str, access_token: Option<&str>, nonce: Option<&str>) -> io::Result<String> {
        let header = json!({"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.jwk});
        let iat = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let mut claims = json!({"jti": random_text(16)?, "htm": method, "htu": htu, "iat": iat});
        if let Some(token) = access_token {
            claims["ath"] = s256(token).into();
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = nonce.into();
        }
        let signed =
            format!("{}.{}", base64url(header.to_string().as_bytes()), base64url(claims.to_string().as_bytes()));
        let signature = self
            .pair
            .sign(&SystemRandom::new(), signed.as_bytes())
            .map_err(|_| io::Error::other("DPoP proof: signing failed"))?;
        Ok(format!("{signed}.{}", base64url(signature.as_ref())))
    }
}

/// `url` without its query and fragment (RFC 9449 §4.2: `htu`).
pub(crate) fn htu(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};
    use serde_json::Value;

    use super::*;
    use crate::client::oauth::MemoryStore;

    /// A store that keeps no key.
    struct NoKey;

    impl CredentialStore for NoKey {
        fn tokens(&self, _: &str) -> Option<super::super::Tokens> {
            None
        }
        fn save_tokens(&self, _: &str, _: &super::super::Tokens) {}
        fn registration(&self, _: &str) -> Option<super::super::Registration> {
            None
        }
        fn save_registration(&self, _: &str, _: &super::super::Registration) {}
    }

    fn part(jwt: &str, index: usize) -> Vec<u8> {
        URL_SAFE_NO_PAD.decode(jwt.split('.').nth(index).unwrap()).unwrap()
    }

    /// Checks `proof` as a resource server would: its signature by the key in its own header.
    fn verified(proof: &str) -> (Value, Value) {
        let header: Value = serde_json::from_slice(&part(proof, 0)).unwrap();
        let mut point = vec![4u8];
        point.extend(URL_SAFE_NO_PAD.decode(header["jwk"]["x"].as_str().unwrap()).unwrap());
        point.extend(URL_SAFE_NO_PAD.decode(header["jwk"]["y"].as_str().unwrap()).unwrap());
        let signed = &proof[..proof.rfind('.').unwrap()];
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point).verify(signed.as_bytes(), &part(proof, 2)).unwrap();
        (header, serde_json::from_slice(&part(proof, 1)).unwrap())
    }

    #[test]
    fn a_proof_is_signed_by_the_key_in_its_header_and_names_its_request() {
        let dpop = Dpop::default();
        let proof = dpop.proof(&NoKey, "POST", "https://mcp.example/mcp?x=1#f", Some("token-1")).unwrap();
        let (header, claims) = verified(&proof);
        assert_eq!((header["typ"].as_str(), header["alg"].as_str()), (Some("dpop+jwt"), Some("ES256")));
        assert_eq!(header["jwk"]["kty"], "EC");
        assert!(header["jwk"].get("d").is_none(), "no private key in the header");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        assert_eq!(claims["ath"].as_str(), Some(s256("token-1").as_str()));
        assert!(claims.get("nonce").is_none());
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
        assert!(claims["iat"].as_u64().unwrap().abs_diff(now) < 60);
        // A token request's proof has no `ath`; every proof has its own `jti`.
        let (_, other) = verified(&dpop.proof(&NoKey, "POST", "https://as.example/token", None).unwrap());
        assert!(other.get("ath").is_none());
        assert_ne!(claims["jti"], other["jti"]);
    }

    #[test]
    fn the_thumbprint_is_rfc_7638s_of_the_header_key_and_stays() {
        let dpop = Dpop::default();
        assert!(!dpop.holds(&NoKey, "anything"), "no key before one is needed");
        let proof = dpop.proof(&NoKey, "GET", "http://localhost/mcp", None).unwrap();
        let (header, _) = verified(&proof);
        let jwk = &header["jwk"];
        let canonical = format!(
            r#"{{"crv":"{}","kty":"{}","x":"{}","y":"{}"}}"#,
            jwk["crv"].as_str().unwrap(),
            jwk["kty"].as_str().unwrap(),
            jwk["x"].as_str().unwrap(),
            jwk["y"].as_str().unwrap()
        );
        let thumbprint = dpop.thumbprint(&NoKey).unwrap();
        assert_eq!(thumbprint, base64url(&Sha256::digest(canonical)));
        assert!(dpop.holds(&NoKey, &thumbprint));
        assert!(!Dpop::default().holds(&NoKey, &thumbprint), "another client's key is another");
    }

    #[test]
    fn a_kept_key_is_the_next_clients_key() {
        let store = MemoryStore::default();
        let first = Dpop::default();
        assert!(!first.holds(&store, "x") && store.dpop_key().is_none(), "holding asks nothing to be made");
        let thumbprint = first.thumbprint(&store).unwrap();
        assert!(store.dpop_key().is_some());
        let next = Dpop::default();
        assert!(next.holds(&store, &thumbprint));
        let (header, _) = verified(&next.proof(&store, "POST", "http://h/mcp", None).unwrap());
        assert_eq!(header["jwk"], first.made(&store).unwrap().jwk);
        // A kept key that is not one is replaced.
        store.save_dpop_key(b"not a key");
        let other = Dpop::default();
        assert_ne!(other.thumbprint(&store).unwrap(), thumbprint);
    }

    #[test]
    fn a_nonce_is_sent_to_the_url_it_was_given_for() {
        let dpop = Dpop::default();
        assert!(dpop.save_nonce("https://as.example/token", "n1"));
        assert!(!dpop.save_nonce("https://as.example/token?ignored", "n1"), "the same nonce again is not new");
        let (_, claims) = verified(&dpop.proof(&NoKey, "POST", "https://as.example/token", None).unwrap());
        assert_eq!(claims["nonce"], "n1");
        let (_, claims) = verified(&dpop.proof(&NoKey, "POST", "https://mcp.example/mcp", Some("t")).unwrap());
        assert!(claims.get("nonce").is_none(), "another server's nonce is not sent");
        assert!(dpop.save_nonce("https://as.example/token", "n2"));
        let (_, claims) = verified(&dpop.proof(&NoKey, "POST", "https://as.example/token", None).unwrap());
        assert_eq!(claims["nonce"], "n2");
    }
}
