//! OAuth 2.1 authorization for the Streamable HTTP client (feature `oauth`), as the MCP
//! authorization spec (2025-11-25) asks of a client:
//!
//! 1. A request answered `401` starts the flow. The `WWW-Authenticate` challenge
//!    ([`Challenge`]) may name the protected resource metadata (RFC 9728); otherwise it is looked
//!    for at the well-known URI with the endpoint's path inserted, then at the root. Its `resource`
//!    must cover the endpoint (same origin, the endpoint's path at or under it); its first
//!    authorization server is used. Without resource metadata, the 2025-03-26 rule applies: the
//!    authorization server is the endpoint's origin.
//! 2. The authorization server metadata is looked for in the spec's order (RFC 8414 with the path
//!    inserted, OpenID Connect Discovery inserted, then appended); its `issuer` must be the issuer
//!    exactly. Without any, the 2025-03-26 default endpoints (`/authorize`, `/token`,
//!    `/register` at the issuer) are used.
//! 3. The client is identified in the spec's order: the credentials it was given
//!    ([`OAuthConfig::with_client`]), a client ID metadata document URL if the server supports
//!    them ([`OAuthConfig::with_client_metadata_url`]), a registration kept in the
//!    [`CredentialStore`], or dynamic client registration (RFC 7591), whose secret is kept.
//! 4. For a machine, instead of a user's authorization: client credentials
//!    ([`Flow::ClientCredentials`]), an enterprise identity provider's assertion
//!    ([`Flow::Enterprise`]) or the workload's own identity token ([`Flow::Workload`]).
//!    Otherwise, authorization code with PKCE (S256; a server whose metadata does not list S256 is refused),
//!    `state`, and the `resource` parameter (RFC 8707); the scopes of the challenge, else the
//!    resource's `scopes_supported`, else none; with `offline_access` where the authorization
//!    server lists it (for a refresh token). The user agent ([`UserAgent`]; [`Headless`] for
//!    tests and CI) returns the redirect; its `state` must match and its `iss` (RFC 9207) must be the
//!    issuer when present, and be present when the server says it sends one.
//! 5. The code is exchanged at the token endpoint with the client authentication the
//!    registration names, else the best the server supports (`client_secret_basic`,
//!    `client_secret_post`, `none`). Tokens are kept per endpoint in the [`CredentialStore`].
//! 6. A later `401` refreshes the token when there is a refresh token, else authorizes again; a
//!    `403` with `error="insufficient_scope"` authorizes again for the union of the granted and the
//!    challenged scopes (step-up), at most [`OAuthConfig::max_step_ups`] times per request and
//!    never twice for the same scopes. The request is then sent again with the new token.
//!
//! 7. Where the authorization server supports DPoP with ES256 (its
//!    `dpop_signing_alg_values_supported`), the tokens are bound to a key of this client (RFC 9449;
//!    the MCP extension of SEP-1932, on by default: [`OAuthConfig::dpop`]): the authorization
//!    request names the key (`dpop_jkt`), the token requests and every request to the endpoint carry
//!    a fresh proof (the `DPoP` header), the token goes as `Authorization: DPoP …`, and a server's
//!    `use_dpop_nonce` is answered by the same request with its nonce. The key is kept in the
//!    [`CredentialStore`] ([`FileStore`] and [`MemoryStore`] keep it), else lives as long as the
//!    [`OAuth`]; a kept token bound to another key ([`Tokens::dpop_jkt`]) is not sent.
//!
//! Every request of the flow is bounded ([`MAX_AUTH_RESPONSE`] bytes, [`AUTH_REQUEST_TIMEOUT`]);
//! one flow runs at a time per [`OAuth`], and requests that got `401` meanwhile use its token. A
//! token is only ever sent to the endpoint it was obtained for.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

mod discovery;
mod dpop;
mod fetch;
mod form;
mod grant;
mod store;
mod user_agent;

pub use discovery::Challenge;
pub use fetch::{AUTH_REQUEST_TIMEOUT, MAX_AUTH_RESPONSE};

/// New tokens one request may get (refresh, authorization, step-up) before the server's `401` or
/// `403` stands: a server that refuses every token is not asked forever.
pub const MAX_RENEWALS: u32 = 3;
pub use store::{FileStore, MemoryStore};
pub use user_agent::{Browser, Headless};

/// How the client identifies itself to authorization servers.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct OAuthConfig {
    /// `client_name` of a dynamic registration.
    pub client_name: String,
    /// Where the authorization server sends the user back (`http://localhost:<port>/callback`
    /// for a native application).
    pub redirect_uri: String,
    /// The URL of this client's metadata document, used as its `client_id` where the server
    /// supports client ID metadata documents.
    pub client_metadata_url: Option<String>,
    /// Pre-registered credentials: the client id, and its secret for a confidential client.
    pub client: Option<(String, Option<String>)>,
    /// Step-ups (re-authorizations for more scopes) one request may cause.
    pub max_step_ups: u32,
    /// The grant: a user's authorization code (the default), or the client's own credentials.
    pub flow: Flow,
    /// A private key (PKCS#8 PEM) and its algorithm (`ES256`, `RS256`, `EdDSA`, …) that
    /// authenticate the client at the token endpoint with a signed assertion (`private_key_jwt`,
    /// RFC 7523) instead of a secret.
    pub private_key: Option<(String, String)>,
    /// The identity provider of [`Flow::Enterprise`].
    pub enterprise: Option<EnterpriseIdp>,
    /// The workload's identity token of [`Flow::Workload`].
    pub workload: Option<WorkloadIdentity>,
    /// Bind tokens to a key of this client (DPoP, RFC 9449) where the authorization server
    /// supports it with ES256; `true` unless [`OAuthConfig::with_dpop`] turned it off.
    pub dpop: bool,
}

/// How tokens are obtained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Flow {
    /// Authorization code with PKCE, through the [`UserAgent`]: on behalf of a user.
    #[default]
    AuthorizationCode,
    /// Client credentials (the `io.modelcontextprotocol/oauth-client-credentials` extension,
    /// SEP-1046): a machine acting for itself, with the pre-registered credentials
    /// ([`OAuthConfig::for_machine`]); no user agent.
    ClientCredentials,
    /// Enterprise-managed authorization (the
    /// `io.modelcontextprotocol/enterprise-managed-authorization` extension, SEP-990): the user's
    /// ID token from the enterprise identity provider is exchanged there (RFC 8693) for an
    /// identity assertion grant (ID-JAG) for the authorization server, which gives the access
    /// token for it (JWT bearer grant, RFC 7523); no user agent ([`OAuthConfig::for_enterprise`]).
    Enterprise,
    /// Workload identity federation (the `io.modelcontextprotocol/auth/wif` extension, SEP-1933):
    /// a workload's identity token from its platform (a Kubernetes service account token, a CI
    /// job's OIDC token) is the assertion of a JWT bearer grant (RFC 7523); no user agent
    /// ([`OAuthConfig::for_workload`]). A refused grant is not retried with another.
    Workload,
}

/// Where a workload's identity token comes from ([`Flow::Workload`]): read again for each token
/// request, as platforms rotate them.
#[derive(Clone)]
pub struct WorkloadIdentity {
    read: std::sync::Arc<dyn Fn() -> io::Result<String> + Send + Sync>,
}

impl WorkloadIdentity {
    /// A token given once.
    pub fn token(token: impl Into<String>) -> Self {
        let token = token.into();
        WorkloadIdentity::from_fn(move || Ok(token.clone()))
    }

    /// The token in the file at `path` (a projected service account token), read for each token
    /// request, surrounding whitespace trimmed.
    pub fn file(path: impl Into<std::path::PathBuf>) -> Self {
        let path = path.into();
        WorkloadIdentity::from_fn(move || Ok(std::fs::read_to_string(&path)?.trim().to_owned()))
    }

    /// The token `read` returns, called for each token request.
    pub fn from_fn(read: impl Fn() -> io::Result<String> + Send + Sync + 'static) -> Self {
        WorkloadIdentity { read: std::sync::Arc::new(read) }
    }

    /// The current token.
    pub(crate) fn read(&self) -> io::Result<String> {
        (self.read)()
    }
}

impl std::fmt::Debug for WorkloadIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WorkloadIdentity")
    }
}

/// The enterprise identity provider of [`Flow::Enterprise`], and the user's ID token from it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct EnterpriseIdp {
    /// The identity provider's token endpoint (token exchange).
    pub token_endpoint: String,
    /// This client's id at the identity provider.
    pub client_id: String,
    /// Its secret there, if it is confidential.
    pub client_secret: Option<String>,
    /// The user's ID token (from the enterprise sign-in).
    pub id_token: String,
}

impl EnterpriseIdp {
    /// The identity provider whose token endpoint is `token_endpoint`, this client's id there, and
    /// the user's `id_token`.
    pub fn new(token_endpoint: impl Into<String>, client_id: impl Into<String>, id_token: impl Into<String>) -> Self {
        EnterpriseIdp {
            token_endpoint: token_endpoint.into(),
            client_id: client_id.into(),
            client_secret: None,
            id_token: id_token.into(),
        }
    }
}

impl OAuthConfig {
    /// A client named `client_name` whose authorization responses go to `redirect_uri`.
    pub fn new(client_name: impl Into<String>, redirect_uri: impl Into<String>) -> Self {
        OAuthConfig {
            client_name: client_name.into(),
            redirect_uri: redirect_uri.into(),
            client_metadata_url: None,
            client: None,
            max_step_ups: 2,
            flow: Flow::AuthorizationCode,
            private_key: None,
            enterprise: None,
            workload: None,
            dpop: true,
        }
    }

    /// Enterprise-managed authorization: the ID token of `idp` exchanged for access, this client
    /// known to the authorization server as `client_id` (with `secret`, if confidential).
    pub fn for_enterprise(idp: EnterpriseIdp, client_id: impl Into<String>, secret: Option<String>) -> Self {
        let mut config = OAuthConfig::new("", "").with_client(client_id, secret);
        config.flow = Flow::Enterprise;
        config.enterprise = Some(idp);
        config
    }

    /// Workload identity federation: the workload's `identity` token as the assertion of a JWT
    /// bearer grant, this client known to the authorization server as `client_id`.
    pub fn for_workload(client_id: impl Into<String>, identity: WorkloadIdentity) -> Self {
        let mut config = OAuthConfig::new("", "").with_client(client_id, None);
        config.flow = Flow::Workload;
        config.workload = Some(identity);
        config
    }

    /// A machine client authenticated by a signed assertion (`private_key_jwt`): its `client_id`,
    /// its PKCS#8 PEM `private_key` and the key's `algorithm` (client credentials).
    pub fn for_machine_with_key(
        client_id: impl Into<String>,
        private_key: impl Into<String>,
        algorithm: impl Into<String>,
    ) -> Self {
        let mut config = OAuthConfig::new("", "").with_client(client_id, None);
        config.flow = Flow::ClientCredentials;
        config.private_key = Some((private_key.into(), algorithm.into()));
        config
    }

    /// A machine client with its pre-registered `client_id` and `secret` (client credentials).
    pub fn for_machine(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        let mut config = OAuthConfig::new("", "").with_client(client_id, Some(secret.into()));
        config.flow = Flow::ClientCredentials;
        config
    }

    /// With a client ID metadata document at `url`.
    #[must_use]
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// With DPoP where the authorization server supports it (`true`, the default), or never.
    #[must_use]
    pub fn with_dpop(mut self, dpop: bool) -> Self {
        self.dpop = dpop;
        self
    }

    /// With pre-registered credentials.
    #[must_use]
    pub fn with_client(mut self, client_id: impl Into<String>, secret: Option<String>) -> Self {
        self.client = Some((client_id.into(), secret));
        self
    }
}

/// A boxed future of the [`UserAgent`].
pub type AuthorizeFuture<'a> = Pin<Box<dyn Future<Output = io::Result<String>> + Send + 'a>>;

/// The user-agent step: takes the user to the authorization URL (a browser) and gives back the URL
/// the authorization server redirected to (the redirect URI with `code`, `state`, `iss`).
pub trait UserAgent: Send + Sync {
    /// Authorizes at `url`; the redirect URL.
    fn authorize<'a>(&'a self, url: &'a str) -> AuthorizeFuture<'a>;
}

/// Tokens for one endpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Tokens {
    /// The access token.
    pub access_token: String,
    /// The refresh token, if one was issued.
    pub refresh_token: Option<String>,
    /// The scopes granted (as the token response says, else as asked).
    pub scope: Option<String>,
    /// When the access token expires (seconds since the Unix epoch), if said.
    pub expires_at: Option<u64>,
    /// The authorization server that issued them.
    pub issuer: String,
    /// The thumbprint (RFC 7638) of the key the tokens are bound to, for DPoP-bound tokens.
    #[serde(default)]
    pub dpop_jkt: Option<String>,
}

/// The client's registration at one authorization server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Registration {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret`, for a confidential client.
    pub client_secret: Option<String>,
    /// `token_endpoint_auth_method` as registered, if said.
    pub token_endpoint_auth_method: Option<String>,
}

/// Where tokens (per endpoint URL) and registrations (per issuer) are kept.
pub trait CredentialStore: Send + Sync {
    /// The tokens for `resource`.
    fn tokens(&self, resource: &str) -> Option<Tokens>;
    /// Keeps `tokens` for `resource`.
    fn save_tokens(&self, resource: &str, tokens: &Tokens);
    /// The registration at `issuer`.
    fn registration(&self, issuer: &str) -> Option<Registration>;
    /// Keeps `registration` at `issuer` (with its secret: refreshing needs it).
    fn save_registration(&self, issuer: &str, registration: &Registration);
    /// The client's DPoP key (PKCS#8), if one is kept: tokens bound to it stay usable by the next
    /// process. By default none is kept, and a process's tokens are bound to its own key.
    fn dpop_key(&self) -> Option<Vec<u8>> {
        None
    }
    /// Keeps the client's DPoP key (a private key: keep it as safely as the tokens).
    fn save_dpop_key(&self, pkcs8: &[u8]) {
        let _ = pkcs8;
    }
}

/// OAuth for the connections of one MCP server ([`connect_with_oauth`](crate::client::connect_with_oauth)).
pub struct OAuth {
    config: OAuthConfig,
    user_agent: Box<dyn UserAgent>,
    store: Box<dyn CredentialStore>,
    /// Scopes already asked for in a step-up, per endpoint: asking again cannot help.
    stepped_up: Mutex<HashMap<String, Vec<String>>>,
    /// One flow at a time.
    flow: tokio::sync::Mutex<()>,
    /// Why the last flow failed.
    last_error: Mutex<Option<String>>,
    /// The DPoP key and the servers' nonces.
    dpop: dpop::Dpop,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth").field("config", &self.config).finish_non_exhaustive()
    }
}

impl OAuth {
    /// OAuth with `config`, the [`Headless`] user agent and a [`MemoryStore`].
    pub fn new(config: OAuthConfig) -> Self {
        OAuth {
            config,
            user_agent: Box::new(Headless),
            store: Box::new(MemoryStore::default()),
            stepped_up: Mutex::new(HashMap::new()),
            flow: tokio::sync::Mutex::new(()),
            last_error: Mutex::new(None),
            dpop: dpop::Dpop::default(),
        }
    }

    /// With `user_agent` for the authorization step.
    #[must_use]
    pub fn with_user_agent(mut self, user_agent: impl UserAgent + 'static) -> Self {
        self.user_agent = Box::new(user_agent);
        self
    }

    /// With `store` for tokens and registrations.
    #[must_use]
    pub fn with_store(mut self, store: impl CredentialStore + 'static) -> Self {
        self.store = Box::new(store);
        self
    }

    /// The tokens kept for the endpoint `resource`.
    pub fn tokens(&self, resource: &str) -> Option<Tokens> {
        self.store.tokens(resource)
    }

    /// Why the last authorization failed (the request it was for failed with an HTTP error), if
    /// it did: to tell the user.
    pub fn last_error(&self) -> Option<String> {
        self.last_error.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The tokens for `resource` this client can present: not those bound to another key.
    fn usable_tokens(&self, resource: &str) -> Option<Tokens> {
        self.store
            .tokens(resource)
            .filter(|t| t.dpop_jkt.as_deref().is_none_or(|jkt| self.dpop.holds(&*self.store, jkt)))
    }

    /// What a `method` request to `url` at the endpoint `resource` carries: its token, with a
    /// fresh proof if the token is DPoP-bound.
    pub(crate) fn present(&self, resource: &str, method: &str, url: &str) -> io::Result<Presented> {
        let Some(tokens) = self.usable_tokens(resource) else { return Ok(Presented::default()) };
        let proof = match tokens.dpop_jkt {
            Some(_) => Some(self.dpop.proof(&*self.store, method, url, Some(&tokens.access_token))?),
            None => None,
        };
        let scheme = if proof.is_some() { "DPoP" } else { "Bearer" };
        Ok(Presented {
            authorization: Some(format!("{scheme} {}", tokens.access_token)),
            proof,
            token: Some(tokens.access_token),
        })
    }

    /// Keeps the `DPoP-Nonce` a response to `url` carried; `true` if it is new.
    pub(crate) fn save_dpop_nonce(&self, url: &str, nonce: &str) -> bool {
        self.dpop.save_nonce(url, nonce)
    }

    /// After `status` (401 or 403) with `challenge` to a request to `resource` that carried `sent`:
    /// gets a new token if that can help (`Ok(true)`: send the request again), `Ok(false)` if not
    /// (the response stands). `step_ups`: how many this request caused already.
    pub(crate) async fn renew(
        &self,
        resource: &str,
        status: u16,
        challenge: &Challenge,
        sent: Option<&str>,
        step_ups: u32,
    ) -> io::Result<bool> {
        let _flow = self.flow.lock().await;
        let current = self.usable_tokens(resource);
        if current.as_ref().map(|t| t.access_token.as_str()) != sent {
            return Ok(true); // another request got a new token meanwhile
        }
        let step_up = status == 403 && challenge.is_insufficient_scope();
        if status == 403 && !step_up {
            return Ok(false);
        }
        let mut scope = challenge.scope.clone();
        if step_up {
            let wanted = words(challenge.scope.as_deref());
            let mut stepped = self.stepped_up.lock().unwrap_or_else(PoisonError::into_inner);
            let asked = stepped.entry(resource.to_owned()).or_default();
            if step_ups >= self.config.max_step_ups || wanted.iter().all(|w| asked.contains(w)) {
                tracing::debug!(resource, ?wanted, "insufficient scope again: not authorizing again");
                return Ok(false);
            }
            asked.extend(wanted.iter().cloned());
            let granted = current.as_ref().and_then(|t| t.scope.clone());
            scope = union(granted.as_deref(), challenge.scope.as_deref());
        } else if let Some(tokens) = &current
            && tokens.refresh_token.is_some()
        {
            match grant::refresh(self, resource, tokens).await {
                Ok(tokens) => {
                    self.store.save_tokens(resource, &tokens);
                    return Ok(true);
                }
                Err(error) => tracing::debug!(resource, %error, "refresh failed: authorizing again"),
            }
        }
        match grant::authorize(self, resource, challenge, scope).await {
            Ok(tokens) => {
                self.store.save_tokens(resource, &tokens);
                *self.last_error.lock().unwrap_or_else(PoisonError::into_inner) = None;
                Ok(true)
            }
            Err(error) => {
                tracing::warn!(resource, %error, "authorization failed");
                *self.last_error.lock().unwrap_or_else(PoisonError::into_inner) = Some(error.to_string());
                Err(error)
            }
        }
    }
}

/// What one request to a protected endpoint carries.
#[derive(Debug, Default)]
pub(crate) struct Presented {
    /// The token, if there is one.
    token: Option<String>,
    /// `Bearer <token>` or `DPoP <token>`.
    authorization: Option<String>,
    /// The DPoP proof, with a DPoP-bound token.
    proof: Option<String>,
}

impl Presented {
    /// The request's `authorization` and `dpop` headers.
    pub(crate) fn headers(&self) -> Vec<(&'static str, &str)> {
        let authorization = self.authorization.as_deref().map(|value| ("authorization", value));
        authorization.into_iter().chain(self.proof.as_deref().map(|proof| ("dpop", proof))).collect()
    }

    /// The access token sent.
    pub(crate) fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Whether a DPoP proof went with it.
    pub(crate) fn is_dpop(&self) -> bool {
        self.proof.is_some()
    }
}

/// The words of a space-separated scope.
fn words(scope: Option<&str>) -> Vec<String> {
    scope.unwrap_or_default().split_whitespace().map(str::to_owned).collect()
}

/// The union of two scopes, in order, without repeats (`None` if empty).
fn union(a: Option<&str>, b: Option<&str>) -> Option<String> {
    let mut all: Vec<String> = Vec::new();
    for word in words(a).into_iter().chain(words(b)) {
        if !all.contains(&word) {
            all.push(word);
        }
    }
    (!all.is_empty()).then(|| all.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_unite_in_order_without_repeats() {
        assert_eq!(union(Some("a b"), Some("b c")).as_deref(), Some("a b c"));
        assert_eq!(union(None, Some("x")).as_deref(), Some("x"));
        assert_eq!(union(None, None), None);
    }
}
