//! [`JwtConfig`]: what a [`JwtValidator`](super::JwtValidator) accepts, and its limits.

use std::time::Duration;

/// A JWS signature algorithm a token may be signed with: asymmetric ones only, so a key set
/// fetched from the issuer can never verify a token signed with a shared secret, and `none` is
/// not one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JwtAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// RSASSA-PSS with SHA-256.
    PS256,
    /// RSASSA-PSS with SHA-384.
    PS384,
    /// RSASSA-PSS with SHA-512.
    PS512,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// ECDSA on P-384 with SHA-384.
    ES384,
    /// Ed25519.
    EdDSA,
}

impl JwtAlgorithm {
    /// Every algorithm the validator supports (the default of [`JwtConfig::algorithms`]).
    pub const ALL: [JwtAlgorithm; 9] = [
        JwtAlgorithm::RS256,
        JwtAlgorithm::RS384,
        JwtAlgorithm::RS512,
        JwtAlgorithm::PS256,
        JwtAlgorithm::PS384,
        JwtAlgorithm::PS512,
        JwtAlgorithm::ES256,
        JwtAlgorithm::ES384,
        JwtAlgorithm::EdDSA,
    ];

    /// The name in a JOSE header's `alg` (`"RS256"` …).
    pub fn name(self) -> &'static str {
        match self {
            JwtAlgorithm::RS256 => "RS256",
            JwtAlgorithm::RS384 => "RS384",
            JwtAlgorithm::RS512 => "RS512",
            JwtAlgorithm::PS256 => "PS256",
            JwtAlgorithm::PS384 => "PS384",
            JwtAlgorithm::PS512 => "PS512",
            JwtAlgorithm::ES256 => "ES256",
            JwtAlgorithm::ES384 => "ES384",
            JwtAlgorithm::EdDSA => "EdDSA",
        }
    }

    /// The algorithm named `name` (exactly, as in a JOSE header), if supported.
    pub fn from_name(name: &str) -> Option<JwtAlgorithm> {
        JwtAlgorithm::ALL.into_iter().find(|alg| alg.name() == name)
    }

    pub(super) fn to_jose(self) -> jsonwebtoken::Algorithm {
        use jsonwebtoken::Algorithm as A;
        match self {
            JwtAlgorithm::RS256 => A::RS256,
            JwtAlgorithm::RS384 => A::RS384,
            JwtAlgorithm::RS512 => A::RS512,
            JwtAlgorithm::PS256 => A::PS256,
            JwtAlgorithm::PS384 => A::PS384,
            JwtAlgorithm::PS512 => A::PS512,
            JwtAlgorithm::ES256 => A::ES256,
            JwtAlgorithm::ES384 => A::ES384,
            JwtAlgorithm::EdDSA => A::EdDSA,
        }
    }

    pub(super) fn from_jose(alg: jsonwebtoken::Algorithm) -> Option<JwtAlgorithm> {
        JwtAlgorithm::ALL.into_iter().find(|ours| ours.to_jose() == alg)
    }
}

/// Default [`JwtConfig::leeway`]: 30 s.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
/// Default [`JwtConfig::refetch_cooldown`]: 30 s.
pub const DEFAULT_REFETCH_COOLDOWN: Duration = Duration::from_secs(30);
/// Default [`JwtConfig::refresh_interval`]: 15 min.
pub const DEFAULT_REFRESH_INTERVAL: Duration = Duration::from_secs(15 * 60);
/// Default [`JwtConfig::max_token_bytes`]: 8 KiB.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 8 * 1024;
/// Default [`JwtConfig::max_jwks_bytes`]: 64 KiB.
pub const DEFAULT_MAX_JWKS_BYTES: usize = 64 * 1024;
/// Default [`JwtConfig::fetch_timeout`]: 10 s.
pub const DEFAULT_FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// Most keys kept from one JWKS (the first ones usable for signatures).
pub const MAX_KEYS: usize = 32;
/// Default [`JwtConfig::dpop_proof_lifetime`]: 60 s.
pub const DEFAULT_DPOP_PROOF_LIFETIME: Duration = Duration::from_secs(60);
/// Default [`JwtConfig::max_dpop_proofs`]: the `jti`s of 65,536 proofs.
pub const DEFAULT_MAX_DPOP_PROOFS: usize = 65_536;

/// What a [`JwtValidator`](super::JwtValidator) accepts: who issues the tokens, for which
/// resource, signed how, with which scopes; where the keys are; and its limits. Built with
/// [`JwtConfig::new`] and the `with_*`/`require_scope` methods.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct JwtConfig {
    /// The issuer identifier (`iss` must equal it): the authorization server.
    pub issuer: String,
    /// The canonical URI of this MCP endpoint (`https://mcp.example/mcp`): `aud` must name it
    /// (RFC 8707), and it is the `resource` of the metadata document.
    pub audience: String,
    /// The issuer's JWKS (`jwks_uri` of its metadata). `https://` needs the `tls` feature.
    pub jwks_url: String,
    /// Algorithms accepted in a token's `alg` (all of [`JwtAlgorithm::ALL`]); a key whose own
    /// `alg` differs, or whose type or curve does not fit, is not used.
    pub algorithms: Vec<JwtAlgorithm>,
    /// Clock skew allowed on `exp` and `nbf` (30 s).
    pub leeway: Duration,
    /// Scopes every request needs, all of them (none): from `scope` (space-separated) or `scp`
    /// (an array, or a space-separated string). A token lacking one gets 403 `insufficient_scope`.
    pub required_scopes: Vec<String>,
    /// The metadata document's `scopes_supported` (empty: `required_scopes`).
    pub scopes_supported: Vec<String>,
    /// The metadata document's `authorization_servers` (empty: `issuer`).
    pub authorization_servers: Vec<String>,
    /// Least time between two JWKS fetches caused by tokens naming an unknown `kid` (30 s): a
    /// flood of made-up key ids costs the issuer at most one fetch per this interval.
    pub refetch_cooldown: Duration,
    /// The JWKS is fetched again this often in the background (15 min), so that keys the issuer
    /// publishes ahead of a rotation are known before the first token signed with them. Zero: never.
    pub refresh_interval: Duration,
    /// Longest token accepted (8 KiB): longer ones are refused before any parsing.
    pub max_token_bytes: usize,
    /// Longest JWKS document read (64 KiB).
    pub max_jwks_bytes: usize,
    /// Time for one JWKS fetch, connection included (10 s).
    pub fetch_timeout: Duration,
    /// How far a DPoP proof's `iat` may be from now, either way (leeway added): older proofs
    /// are refused, and a proof's `jti` is remembered this long to refuse it again.
    pub dpop_proof_lifetime: Duration,
    /// Most DPoP proof `jti`s remembered at once (each for [`JwtConfig::dpop_proof_lifetime`]);
    /// while that many are, new proofs are refused (401) until the oldest age out.
    pub max_dpop_proofs: usize,
}

impl JwtConfig {
    /// Tokens from `issuer` for `audience` (this endpoint's canonical URI), checked with the keys
    /// at `jwks_url`; every other setting at its default.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>, jwks_url: impl Into<String>) -> Self {
        JwtConfig {
            issuer: issuer.into(),
            audience: audience.into(),
            jwks_url: jwks_url.into(),
            algorithms: JwtAlgorithm::ALL.to_vec(),
            leeway: DEFAULT_LEEWAY,
            required_scopes: Vec::new(),
            scopes_supported: Vec::new(),
            authorization_servers: Vec::new(),
            refetch_cooldown: DEFAULT_REFETCH_COOLDOWN,
            refresh_interval: DEFAULT_REFRESH_INTERVAL,
            max_token_bytes: DEFAULT_MAX_TOKEN_BYTES,
            max_jwks_bytes: DEFAULT_MAX_JWKS_BYTES,
            fetch_timeout: DEFAULT_FETCH_TIMEOUT,
            dpop_proof_lifetime: DEFAULT_DPOP_PROOF_LIFETIME,
            max_dpop_proofs: DEFAULT_MAX_DPOP_PROOFS,
        }
    }

    /// Sets [`JwtConfig::dpop_proof_lifetime`].
    #[must_use]
    pub fn with_dpop_proof_lifetime(mut self, lifetime: Duration) -> Self {
        self.dpop_proof_lifetime = lifetime;
        self
    }

    /// Sets [`JwtConfig::max_dpop_proofs`].
    #[must_use]
    pub fn with_max_dpop_proofs(mut self, proofs: usize) -> Self {
        self.max_dpop_proofs = proofs;
        self
    }

    /// Sets [`JwtConfig::algorithms`].
    pub fn with_algorithms(mut self, algorithms: impl IntoIterator<Item = JwtAlgorithm>) -> Self {
        self.algorithms = algorithms.into_iter().collect();
        self
    }

    /// Sets [`JwtConfig::leeway`].
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Adds one scope (or several, space-separated) to [`JwtConfig::required_scopes`].
    pub fn require_scope(mut self, scope: &str) -> Self {
        self.required_scopes.extend(scope.split_ascii_whitespace().map(str::to_owned));
        self
    }

    /// Sets [`JwtConfig::scopes_supported`].
    pub fn with_scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`JwtConfig::authorization_servers`].
    pub fn with_authorization_servers(mut self, servers: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.authorization_servers = servers.into_iter().map(Into::into).collect();
        self
    }

    /// Sets [`JwtConfig::refetch_cooldown`].
    pub fn with_refetch_cooldown(mut self, cooldown: Duration) -> Self {
        self.refetch_cooldown = cooldown;
        self
    }

    /// Sets [`JwtConfig::refresh_interval`] (zero: no periodic refresh).
    pub fn with_refresh_interval(mut self, interval: Duration) -> Self {
        self.refresh_interval = interval;
        self
    }

    /// Sets [`JwtConfig::max_token_bytes`].
    pub fn with_max_token_bytes(mut self, bytes: usize) -> Self {
        self.max_token_bytes = bytes;
        self
    }

    /// Sets [`JwtConfig::max_jwks_bytes`].
    pub fn with_max_jwks_bytes(mut self, bytes: usize) -> Self {
        self.max_jwks_bytes = bytes;
        self
    }

    /// Sets [`JwtConfig::fetch_timeout`].
    pub fn with_fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch_timeout = timeout;
        self
    }
}
