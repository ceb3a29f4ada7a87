//! JWT access tokens (feature `jwt`): an OAuth 2.1 resource server's token check for
//! [`HttpConfig::auth`](crate::HttpConfig::auth), with the issuer's keys from its JWKS.
//!
//! ```no_run
//! use mcp_sansio_http::jwt::{JwtConfig, JwtValidator};
//! # async fn run(mut http: mcp_sansio_http::HttpConfig) -> std::io::Result<()> {
//! let config = JwtConfig::new(
//!     "https://auth.example",
//!     "https://mcp.example/mcp",
//!     "https://auth.example/.well-known/jwks.json",
//! )
//! .require_scope("mcp:tools");
//! let validator = JwtValidator::new(config).await?; // fetches the key set once
//! http.auth = Some(validator.bearer_auth());
//! # Ok(())
//! # }
//! ```
//!
//! Each request's token is checked synchronously against the cached key set: its `alg` must be
//! one of [`JwtConfig::algorithms`] (never `none`, never a shared-secret one), its `kid` must name
//! a key that fits that algorithm, its signature must verify, `iss` must be the issuer, `aud`
//! must name the audience, `exp` (required) and `nbf` must hold within the leeway, and its `scope`
//! or `scp` must grant every required scope.
//!
//! **Keys.** [`JwtValidator::new`] fetches the JWKS; it is fetched again every
//! [`JwtConfig::refresh_interval`] in the background. A token naming a `kid` the cached set lacks
//! is refused (401) and starts a background fetch, at most one per [`JwtConfig::refetch_cooldown`]
//! however many such tokens come: once the fetched set lists the key, the client's next attempt
//! passes. A failed fetch keeps the keys there were.
//!
//! **DPoP.** A token with a `cnf.jkt` claim is bound to a client's key (RFC 9449 §6.1): it is
//! accepted only as `Authorization: DPoP <token>` with a `DPoP` proof of the request signed by that
//! key ([`BearerAuth::verify_proof`]; what a proof must hold: the `dpop` module's docs), never as
//! a bearer token; a token without one only as a bearer token. The metadata document lists the
//! proof algorithms (`dpop_signing_alg_values_supported`).

mod config;
mod dpop;
mod fetch;
mod keys;

use std::fmt;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::Instant;

use jsonwebtoken::errors::ErrorKind;

pub use config::{
    DEFAULT_DPOP_PROOF_LIFETIME, DEFAULT_FETCH_TIMEOUT, DEFAULT_LEEWAY, DEFAULT_MAX_DPOP_PROOFS,
    DEFAULT_MAX_JWKS_BYTES, DEFAULT_MAX_TOKEN_BYTES, DEFAULT_REFETCH_COOLDOWN, DEFAULT_REFRESH_INTERVAL, JwtAlgorithm,
    JwtConfig, MAX_KEYS,
};
use keys::KeySet;

use crate::config::{
    BearerAuth, ProofRequest, ProofVerifier, TokenGrant, TokenRejection, TokenValidator, VerifiedProof,
};

/// Why a token was refused, in more detail than the [`TokenRejection`] a client gets.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JwtError {
    /// Longer than [`JwtConfig::max_token_bytes`].
    TooLarge,
    /// Not a well-formed JWS compact serialization (or a header naming an unknown `alg`, `none`
    /// included).
    Malformed,
    /// An `alg` not in [`JwtConfig::algorithms`], or one the key does not fit.
    AlgorithmNotAccepted,
    /// No key in the cached set for the token's `kid` (a fetch of the set may have started).
    UnknownKey,
    /// The signature does not verify.
    BadSignature,
    /// `exp` is past, beyond the leeway.
    Expired,
    /// `nbf` is ahead, beyond the leeway.
    NotYetValid,
    /// `iss` is not the issuer.
    WrongIssuer,
    /// `aud` does not name the audience.
    WrongAudience,
    /// A claim the check needs (`exp`, `iss`, `aud`) is missing.
    MissingClaim(String),
    /// Valid, but without these required scopes (space-separated).
    InsufficientScope(String),
    /// A DPoP proof whose claim (`htm`, `htu`, `iat`, `ath`, `jti`) does not hold.
    DpopProof(&'static str),
}

impl fmt::Display for JwtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JwtError::TooLarge => f.write_str("token too large"),
            JwtError::Malformed => f.write_str("malformed token"),
            JwtError::AlgorithmNotAccepted => f.write_str("signature algorithm not accepted"),
            JwtError::UnknownKey => f.write_str("no key for the token's key id"),
            JwtError::BadSignature => f.write_str("bad signature"),
            JwtError::Expired => f.write_str("token expired"),
            JwtError::NotYetValid => f.write_str("token not yet valid"),
            JwtError::WrongIssuer => f.write_str("token from another issuer"),
            JwtError::WrongAudience => f.write_str("token issued for another resource"),
            JwtError::MissingClaim(claim) => write!(f, "token without the `{claim}` claim"),
            JwtError::InsufficientScope(scopes) => write!(f, "token lacks scopes: {scopes}"),
            JwtError::DpopProof(claim) => write!(f, "DPoP proof with a wrong {claim}"),
        }
    }
}

impl std::error::Error for JwtError {}

impl From<JwtError> for TokenRejection {
    fn from(error: JwtError) -> Self {
        match error {
            JwtError::InsufficientScope(scopes) => TokenRejection::InsufficientScope(scopes),
            _ => TokenRejection::Invalid,
        }
    }
}

impl From<jsonwebtoken::errors::Error> for JwtError {
    fn from(error: jsonwebtoken::errors::Error) -> Self {
        match error.into_kind() {
            ErrorKind::InvalidSignature => JwtError::BadSignature,
            ErrorKind::ExpiredSignature => JwtError::Expired,
            ErrorKind::ImmatureSignature => JwtError::NotYetValid,
            ErrorKind::InvalidIssuer => JwtError::WrongIssuer,
            ErrorKind::InvalidAudience => JwtError::WrongAudience,
            ErrorKind::MissingRequiredClaim(claim) => JwtError::MissingClaim(claim),
            ErrorKind::InvalidAlgorithm | ErrorKind::MissingAlgorithm => JwtError::AlgorithmNotAccepted,
            _ => JwtError::Malformed,
        }
    }
}

/// Checks JWT access tokens for one MCP endpoint; cheap to clone (one shared key cache).
#[derive(Clone)]
pub struct JwtValidator {
    inner: Arc<Inner>,
}

struct Inner {
    config: JwtConfig,
    /// The required scopes, space-separated (the 403 challenge's `scope`).
    required: String,
    keys: RwLock<Arc<KeySet>>,
    /// When the last fetch caused by an unknown `kid` started.
    last_refetch: Mutex<Option<Instant>>,
    /// JWKS fetches started.
    fetches: AtomicU64,
    /// The runtime `new` ran on, for background fetches started outside one.
    runtime: tokio::runtime::Handle,
    /// DPoP proofs, and the `jti`s seen.
    proofs: dpop::ProofChecker,
}

impl fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtValidator").field("config", &self.inner.config).finish_non_exhaustive()
    }
}

impl JwtValidator {
    /// A validator for `config`, with the key set fetched once (an error if that fails, or if
    /// `config` accepts no algorithm or names no issuer or audience); starts the periodic refresh
    /// on the current tokio runtime, which ends when the last clone is dropped.
    pub async fn new(config: JwtConfig) -> io::Result<Self> {
        if config.algorithms.is_empty() || config.issuer.is_empty() || config.audience.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a JWT check needs algorithms, issuer and audience",
            ));
        }
        let required = config.required_scopes.join(" ");
        let proofs = dpop::ProofChecker::new(&config);
        let validator = JwtValidator {
            inner: Arc::new(Inner {
                config,
                required,
                keys: RwLock::new(Arc::default()),
                last_refetch: Mutex::new(None),
                fetches: AtomicU64::new(0),
                runtime: tokio::runtime::Handle::current(),
                proofs,
            }),
        };
        validator.refresh().await?;
        let period = validator.inner.config.refresh_interval;
        if !period.is_zero() {
            tokio::spawn(refresh_periodically(Arc::downgrade(&validator.inner), period));
        }
        Ok(validator)
    }

    /// The settings.
    pub fn config(&self) -> &JwtConfig {
        &self.inner.config
    }

    /// Fetches the JWKS now and replaces the cached key set (kept as it was if the fetch fails).
    pub async fn refresh(&self) -> io::Result<()> {
        self.inner.refresh().await
    }

    /// JWKS fetches started so far (the first one, periodic refreshes, those for unknown key ids
    /// and [`JwtValidator::refresh`]).
    pub fn jwks_fetches(&self) -> u64 {
        self.inner.fetches.load(Ordering::Relaxed)
    }

    /// Checks `token` (see the module docs), with the reason it is refused.
    pub fn check(&self, token: &str) -> Result<(), JwtError> {
        self.claims(token).map(|_| ())
    }

    /// [`JwtValidator::check`], giving the claims the adapter reads.
    fn claims(&self, token: &str) -> Result<ScopeClaims, JwtError> {
        let inner = &*self.inner;
        if token.len() > inner.config.max_token_bytes {
            return Err(JwtError::TooLarge);
        }
        let header = jsonwebtoken::decode_header(token).map_err(|_| JwtError::Malformed)?;
        let alg = JwtAlgorithm::from_jose(header.alg)
            .filter(|alg| inner.config.algorithms.contains(alg))
            .ok_or(JwtError::AlgorithmNotAccepted)?;
        let keys = Arc::clone(&inner.keys.read().unwrap_or_else(PoisonError::into_inner));
        let Some(key) = keys.find(header.kid.as_deref(), alg) else {
            if let Some(kid) = header.kid.as_deref() {
                tracing::debug!(kid, "token names an unknown key id");
                Arc::clone(&self.inner).refetch_soon();
            }
            return Err(JwtError::UnknownKey);
        };
        if !key.fits(alg) {
            return Err(JwtError::AlgorithmNotAccepted);
        }
        let mut validation = jsonwebtoken::Validation::new(alg.to_jose());
        validation.leeway = inner.config.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&inner.config.issuer]);
        validation.set_audience(&[&inner.config.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let claims = jsonwebtoken::decode::<ScopeClaims>(token, &key.key, &validation)?.claims;
        let missing: Vec<&str> =
            inner.config.required_scopes.iter().map(String::as_str).filter(|s| !claims.grants(s)).collect();
        if !missing.is_empty() {
            // The challenge names every required scope: a token asked for with those is enough.
            return Err(JwtError::InsufficientScope(inner.required.clone()));
        }
        Ok(claims)
    }

    /// [`JwtValidator::check`] as the adapter's hook sees it: the token's subject (`sub`), or 401
    /// or 403.
    pub fn validate(&self, token: &str) -> Result<TokenGrant, TokenRejection> {
        match self.claims(token) {
            Ok(claims) => {
                let dpop_jkt = claims.cnf.and_then(|cnf| cnf.jkt);
                Ok(TokenGrant { subject: claims.sub, dpop_jkt, ..TokenGrant::default() })
            }
            Err(error) => {
                tracing::debug!(%error, "bearer token refused");
                Err(TokenRejection::from(error))
            }
        }
    }

    /// This validator as [`BearerAuth::validate`].
    pub fn token_validator(&self) -> TokenValidator {
        let validator = self.clone();
        Arc::new(move |token: &str| validator.validate(token))
    }

    /// Checks the DPoP proof of `request` (see the module docs): the thumbprint of its key, its
    /// `jti`, how long a replay of it would pass.
    pub fn check_proof(&self, request: &ProofRequest<'_>) -> Result<VerifiedProof, JwtError> {
        self.inner.proofs.check(request)
    }

    /// This validator's proof check as [`BearerAuth::verify_proof`].
    pub fn proof_verifier(&self) -> ProofVerifier {
        let validator = self.clone();
        Arc::new(move |request: &ProofRequest<'_>| {
            validator.check_proof(request).map_err(|error| {
                tracing::debug!(%error, "DPoP proof refused");
                TokenRejection::Invalid
            })
        })
    }

    /// The URL of the protected resource metadata document (RFC 9728 §3.1): the well-known path
    /// inserted before the audience's path (`https://mcp.example/.well-known/oauth-protected-resource/mcp`).
    pub fn resource_metadata_url(&self) -> String {
        let audience = &self.inner.config.audience;
        let after_scheme = audience.find("://").map_or(0, |at| at + 3);
        let path_at = audience[after_scheme..].find(['/', '?', '#']).map_or(audience.len(), |at| after_scheme + at);
        let path = audience[path_at..].split(['?', '#']).next().unwrap_or_default().trim_end_matches('/');
        format!("{}{}{path}", &audience[..path_at], mcp_sansio::http::RESOURCE_METADATA_PATH)
    }

    /// The protected resource metadata document (RFC 9728 JSON): `resource` (the audience),
    /// `authorization_servers`, `scopes_supported`, `bearer_methods_supported`,
    /// `dpop_signing_alg_values_supported`.
    pub fn resource_metadata(&self) -> String {
        let config = &self.inner.config;
        let servers = match config.authorization_servers.is_empty() {
            true => std::slice::from_ref(&config.issuer),
            false => &config.authorization_servers[..],
        };
        let scopes = match config.scopes_supported.is_empty() {
            true => &config.required_scopes,
            false => &config.scopes_supported,
        };
        let mut document = serde_json::json!({
            "resource": config.audience,
            "authorization_servers": servers,
            "bearer_methods_supported": ["header"],
            "dpop_signing_alg_values_supported": JwtAlgorithm::ALL.map(JwtAlgorithm::name),
        });
        if !scopes.is_empty() {
            document["scopes_supported"] = serde_json::json!(scopes);
        }
        document.to_string()
    }

    /// [`HttpConfig::auth`](crate::HttpConfig::auth) for this validator: the hook, the metadata
    /// document and its URL.
    pub fn bearer_auth(&self) -> BearerAuth {
        BearerAuth {
            validate: self.token_validator(),
            resource_metadata_url: self.resource_metadata_url(),
            resource_metadata: self.resource_metadata(),
            verify_proof: Some(self.proof_verifier()),
        }
    }
}

impl Inner {
    async fn refresh(&self) -> io::Result<()> {
        self.fetches.fetch_add(1, Ordering::Relaxed);
        let config = &self.config;
        let fetched = fetch::get(&config.jwks_url, config.max_jwks_bytes, config.fetch_timeout).await;
        let keys = fetched.and_then(|document| KeySet::parse(&document));
        match keys {
            Ok(keys) => {
                tracing::debug!(keys = keys.keys.len(), url = %config.jwks_url, "JWKS fetched");
                *self.keys.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(keys);
                Ok(())
            }
            Err(error) => {
                tracing::warn!(%error, url = %config.jwks_url, "JWKS fetch failed; the cached keys stay");
                Err(error)
            }
        }
    }

    /// Starts a background fetch for an unknown key id, unless one started within the cooldown.
    fn refetch_soon(self: Arc<Self>) {
        {
            let mut last = self.last_refetch.lock().unwrap_or_else(PoisonError::into_inner);
            let now = Instant::now();
            if last.is_some_and(|at| now.duration_since(at) < self.config.refetch_cooldown) {
                return;
            }
            *last = Some(now);
        }
        let runtime = tokio::runtime::Handle::try_current().unwrap_or_else(|_| self.runtime.clone());
        runtime.spawn(async move {
            let _ = self.refresh().await;
        });
    }
}

/// Fetches the key set every `period` while a validator is alive.
async fn refresh_periodically(inner: Weak<Inner>, period: std::time::Duration) {
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        let _ = inner.refresh().await;
    }
}

/// The scope claims of an access token: `scope` (RFC 9068, space-separated) and `scp` (an array,
/// or a string, as some issuers write it).
#[derive(serde::Deserialize)]
struct ScopeClaims {
    /// The subject: who the token speaks for.
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    scope: Option<serde_json::Value>,
    #[serde(default)]
    scp: Option<serde_json::Value>,
    /// The key a DPoP-bound token is bound to (`cnf.jkt`).
    #[serde(default)]
    cnf: Option<Confirmation>,
}

/// A token's `cnf` claim (RFC 7800): the thumbprint of the key it is bound to (RFC 9449 §6.1).
#[derive(serde::Deserialize)]
struct Confirmation {
    jkt: Option<String>,
}

impl ScopeClaims {
    fn grants(&self, wanted: &str) -> bool {
        [&self.scope, &self.scp].into_iter().flatten().any(|claim| match claim {
            serde_json::Value::String(scopes) => scopes.split_ascii_whitespace().any(|s| s == wanted),
            serde_json::Value::Array(scopes) => scopes.iter().any(|s| s.as_str() == Some(wanted)),
            _ => false,
        })
    }
}
