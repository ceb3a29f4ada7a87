//! The grants: authorization code with PKCE (after discovery and client identification) and
//! refresh, and the token endpoint's client authentication.

use std::io;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Deserialize;

use super::discovery::{self, Challenge, ServerMetadata};
use super::{OAuth, Registration, Tokens, dpop, fetch, form};

/// The JWT bearer grant (RFC 7523 §2.1).
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

fn refused(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, why)
}

/// The endpoints the flow uses, from metadata or the 2025-03-26 defaults.
struct Server {
    issuer: String,
    metadata: Option<ServerMetadata>,
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: Option<String>,
}

impl Server {
    fn from_metadata(metadata: ServerMetadata) -> Server {
        Server {
            issuer: metadata.issuer.clone(),
            authorization_endpoint: metadata.authorization_endpoint.clone(),
            token_endpoint: metadata.token_endpoint.clone(),
            registration_endpoint: metadata.registration_endpoint.clone(),
            metadata: Some(metadata),
        }
    }

    /// 2025-03-26: without metadata, the endpoints at fixed paths of the issuer.
    fn defaults(issuer: &str) -> Server {
        let base = issuer.trim_end_matches('/');
        Server {
            issuer: issuer.to_owned(),
            metadata: None,
            authorization_endpoint: format!("{base}/authorize"),
            token_endpoint: format!("{base}/token"),
            registration_endpoint: Some(format!("{base}/register")),
        }
    }
}

/// What the endpoint's resource metadata (or its absence) says: the issuer to use, the `resource`
/// parameter, the scopes the resource supports.
struct Resource {
    issuer: String,
    resource: String,
    scopes_supported: Option<Vec<String>>,
}

async fn find_resource(url: &str, challenge: &Challenge) -> io::Result<Resource> {
    match discovery::find_resource_metadata(url, challenge).await? {
        Some(metadata) => {
            let resource = metadata.resource.clone().unwrap_or_else(|| url.to_owned());
            if !discovery::covers(&resource, url) {
                return Err(refused(format!("the protected resource metadata is for {resource}, not {url}")));
            }
            Ok(Resource {
                issuer: metadata.authorization_servers[0].clone(),
                resource,
                scopes_supported: metadata.scopes_supported,
            })
        }
        // 2025-03-26: the authorization server is the endpoint's origin.
        None => {
            let (origin, _) = form::split_url(url).ok_or_else(|| refused(format!("not a URL: {url}")))?;
            Ok(Resource { issuer: origin.to_owned(), resource: url.to_owned(), scopes_supported: None })
        }
    }
}

/// The whole authorization-code flow for the endpoint `url`; the tokens.
pub(super) async fn authorize(
    oauth: &OAuth,
    url: &str,
    challenge: &Challenge,
    scope: Option<String>,
) -> io::Result<Tokens> {
    let resource = find_resource(url, challenge).await?;
    let server = match discovery::find_server_metadata(&resource.issuer).await? {
        Some(metadata) => Server::from_metadata(metadata),
        None => Server::defaults(&resource.issuer),
    };
    let registration = identify(oauth, &server).await?;
    let scope = scope.or_else(|| resource.scopes_supported.as_ref().map(|s| s.join(" "))).filter(|s| !s.is_empty());
    if oauth.config.flow == super::Flow::Enterprise {
        let assertion = identity_assertion(oauth, &server, &resource.resource, scope.as_deref()).await?;
        let grant = [("grant_type", JWT_BEARER), ("assertion", assertion.as_str())];
        return token_request(oauth, &server, &registration, &grant, scope.clone()).await;
    }
    if oauth.config.flow == super::Flow::Workload {
        let identity =
            oauth.config.workload.as_ref().ok_or_else(|| refused("no workload identity configured".into()))?;
        let assertion = identity.read().map_err(|error| refused(format!("the workload identity token: {error}")))?;
        let mut grant = vec![("grant_type", JWT_BEARER), ("assertion", &assertion), ("resource", &resource.resource)];
        if let Some(scope) = &scope {
            grant.push(("scope", scope));
        }
        return token_request(oauth, &server, &registration, &grant, scope.clone()).await;
    }
    if oauth.config.flow == super::Flow::ClientCredentials {
        let mut grant = vec![("grant_type", "client_credentials"), ("resource", resource.resource.as_str())];
        if let Some(scope) = &scope {
            grant.push(("scope", scope));
        }
        return token_request(oauth, &server, &registration, &grant, scope.clone()).await;
    }
    // A user's authorization should outlive the access token: `offline_access` where the
    // authorization server lists it (SEP-2207), never where it does not.
    let offers_offline = server
        .metadata
        .as_ref()
        .and_then(|m| m.scopes_supported.as_ref())
        .is_some_and(|s| s.iter().any(|s| s == "offline_access"));
    if let Some(metadata) = &server.metadata
        && !metadata.code_challenge_methods_supported.as_ref().is_some_and(|m| m.iter().any(|m| m == "S256"))
    {
        return Err(refused(format!("the authorization server {} does not support PKCE with S256", server.issuer)));
    }
    let scope = match scope {
        Some(scope) if offers_offline && !scope.split_whitespace().any(|s| s == "offline_access") => {
            Some(format!("{scope} offline_access"))
        }
        None if offers_offline => Some("offline_access".to_owned()),
        scope => scope,
    };
    let verifier = form::random_text(32)?;
    let state = form::random_text(16)?;
    let challenge_text = form::s256(&verifier);
    let config = &oauth.config;
    let mut query = vec![
        ("response_type", "code"),
        ("client_id", registration.client_id.as_str()),
        ("redirect_uri", config.redirect_uri.as_str()),
        ("code_challenge", challenge_text.as_str()),
        ("code_challenge_method", "S256"),
        ("state", state.as_str()),
    ];
    if let Some(scope) = &scope {
        query.push(("scope", scope));
    }
    query.push(("resource", &resource.resource));
    // RFC 9449 §10: the code is bound to the key the token request will prove.
    let thumbprint = if uses_dpop(oauth, &server) { Some(oauth.dpop.thumbprint(&*oauth.store)?) } else { None };
    if let Some(thumbprint) = &thumbprint {
        query.push(("dpop_jkt", thumbprint));
    }
    let redirect = oauth.user_agent.authorize(&form::with_query(&server.authorization_endpoint, &query)).await?;
    if let Some(error) = form::query_param(&redirect, "error") {
        let description = form::query_param(&redirect, "error_description").unwrap_or_default();
        return Err(refused(format!("authorization refused: {error} {description}")));
    }
    if form::query_param(&redirect, "state").as_deref() != Some(state.as_str()) {
        return Err(refused("the authorization response's state does not match".to_owned()));
    }
    check_iss(&server, form::query_param(&redirect, "iss").as_deref())?;
    let code = form::query_param(&redirect, "code").ok_or_else(|| refused("no code in the redirect".to_owned()))?;
    let grant = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", config.redirect_uri.as_str()),
        ("code_verifier", verifier.as_str()),
        ("resource", resource.resource.as_str()),
    ];
    token_request(oauth, &server, &registration, &grant, scope).await
}

/// RFC 9207: an `iss` in the authorization response must be the issuer; a server that says it
/// sends one must.
fn check_iss(server: &Server, iss: Option<&str>) -> io::Result<()> {
    let promised =
        server.metadata.as_ref().and_then(|m| m.authorization_response_iss_parameter_supported) == Some(true);
    match iss {
        Some(iss) if iss != server.issuer => {
            Err(refused(format!("the authorization response comes from {iss}, not {}", server.issuer)))
        }
        None if promised => Err(refused("the authorization response lacks the iss its server promised".to_owned())),
        _ => Ok(()),
    }
}

/// Enterprise-managed authorization, step one: the user's ID token exchanged at the identity
/// provider (RFC 8693) for an identity assertion grant for `server` and `resource`.
async fn identity_assertion(oauth: &OAuth, server: &Server, resource: &str, scope: Option<&str>) -> io::Result<String> {
    let idp = oauth.config.enterprise.as_ref().ok_or_else(|| refused("no identity provider configured".to_owned()))?;
    let mut body = vec![
        ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
        ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"),
        ("subject_token", idp.id_token.as_str()),
        ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
        ("audience", server.issuer.as_str()),
        ("resource", resource),
    ];
    if let Some(scope) = scope {
        body.push(("scope", scope));
    }
    let authorization = match &idp.client_secret {
        Some(secret) => Some(form::basic(&idp.client_id, secret)),
        None => {
            body.push(("client_id", idp.client_id.as_str()));
            None
        }
    };
    let headers = authorization.map(|value| ("authorization", value)).into_iter().collect();
    let response = fetch::post_form(&idp.token_endpoint, form::encode(&body), headers).await?;
    #[derive(Deserialize)]
    struct Exchanged {
        access_token: String,
        issued_token_type: Option<String>,
    }
    if !(200..300).contains(&response.status) {
        return Err(refused(format!(
            "the identity provider refused the token exchange (HTTP {}): {}",
            response.status,
            String::from_utf8_lossy(&response.body)
        )));
    }
    let exchanged: Exchanged = response.json()?;
    if exchanged.issued_token_type.as_deref().is_some_and(|t| t != "urn:ietf:params:oauth:token-type:id-jag") {
        return Err(refused(format!(
            "the identity provider issued a {:?}, not an ID-JAG",
            exchanged.issued_token_type
        )));
    }
    Ok(exchanged.access_token)
}

/// Refreshes `tokens` for the endpoint `url` at their issuer.
pub(super) async fn refresh(oauth: &OAuth, url: &str, tokens: &Tokens) -> io::Result<Tokens> {
    let refresh_token = tokens.refresh_token.as_deref().ok_or_else(|| refused("no refresh token".to_owned()))?;
    let server = match discovery::find_server_metadata(&tokens.issuer).await? {
        Some(metadata) => Server::from_metadata(metadata),
        None => Server::defaults(&tokens.issuer),
    };
    let registration = oauth
        .store
        .registration(&server.issuer)
        .or_else(|| preregistered(oauth))
        .ok_or_else(|| refused("no registration to refresh with".to_owned()))?;
    let grant = [("grant_type", "refresh_token"), ("refresh_token", refresh_token), ("resource", url)];
    let mut refreshed = token_request(oauth, &server, &registration, &grant, tokens.scope.clone()).await?;
    if refreshed.refresh_token.is_none() {
        refreshed.refresh_token = tokens.refresh_token.clone(); // kept unless rotated
    }
    Ok(refreshed)
}

fn preregistered(oauth: &OAuth) -> Option<Registration> {
    let method = oauth.config.private_key.as_ref().map(|_| "private_key_jwt".to_owned());
    oauth.config.client.as_ref().map(|(id, secret)| Registration {
        client_id: id.clone(),
        client_secret: secret.clone(),
        token_endpoint_auth_method: method,
    })
}

/// RFC 7523 client authentication: an assertion signed with the client's key, for `audience`
/// (the authorization server's issuer).
fn client_assertion(oauth: &OAuth, client_id: &str, audience: &str) -> io::Result<String> {
    let (pem, algorithm) =
        oauth.config.private_key.as_ref().ok_or_else(|| refused("private_key_jwt without a private key".to_owned()))?;
    let algorithm: jsonwebtoken::Algorithm =
        algorithm.parse().map_err(|_| refused(format!("unknown signing algorithm {algorithm}")))?;
    let key = match algorithm {
        jsonwebtoken::Algorithm::ES256 | jsonwebtoken::Algorithm::ES384 => {
            jsonwebtoken::EncodingKey::from_ec_pem(pem.as_bytes())
        }
        jsonwebtoken::Algorithm::EdDSA => jsonwebtoken::EncodingKey::from_ed_pem(pem.as_bytes()),
        _ => jsonwebtoken::EncodingKey::from_rsa_pem(pem.as_bytes()),
    }
    .map_err(|error| refused(format!("the client's private key: {error}")))?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let claims = serde_json::json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + 300,
        "jti": form::random_text(16)?,
    });
    jsonwebtoken::encode(&jsonwebtoken::Header::new(algorithm), &claims, &key)
        .map_err(|error| refused(format!("signing the client assertion: {error}")))
}

/// Identifies the client at `server`, in the spec's order; a new registration is kept.
async fn identify(oauth: &OAuth, server: &Server) -> io::Result<Registration> {
    if let Some(registration) = preregistered(oauth) {
        return Ok(registration);
    }
    let cimd = server.metadata.as_ref().and_then(|m| m.client_id_metadata_document_supported) == Some(true);
    if cimd && let Some(url) = &oauth.config.client_metadata_url {
        return Ok(Registration {
            client_id: url.clone(),
            client_secret: None,
            token_endpoint_auth_method: Some("none".to_owned()),
        });
    }
    if let Some(registration) = oauth.store.registration(&server.issuer) {
        return Ok(registration);
    }
    let endpoint = server.registration_endpoint.as_deref().ok_or_else(|| {
        refused(format!(
            "no way to identify this client at {}: pre-register it (no registration endpoint)",
            server.issuer
        ))
    })?;
    let config = &oauth.config;
    let native = ["http://localhost", "http://127.0.0.1", "http://[::1]"]
        .iter()
        .any(|loopback| config.redirect_uri.starts_with(loopback))
        || !config.redirect_uri.starts_with("http");
    let request = serde_json::json!({
        "client_name": config.client_name,
        "redirect_uris": [config.redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "application_type": if native { "native" } else { "web" },
    });
    #[derive(Deserialize)]
    struct Registered {
        client_id: String,
        client_secret: Option<String>,
        token_endpoint_auth_method: Option<String>,
    }
    let registered: Registered = fetch::post_json(endpoint, &request).await?.json()?;
    let registration = Registration {
        client_id: registered.client_id,
        client_secret: registered.client_secret,
        token_endpoint_auth_method: registered.token_endpoint_auth_method,
    };
    oauth.store.save_registration(&server.issuer, &registration);
    Ok(registration)
}

/// The client authentication for the token endpoint: as registered, else the best the server
/// supports for what the client has (RFC 8414's default is `client_secret_basic`).
fn auth_method(server: &Server, registration: &Registration) -> String {
    if let Some(method) = &registration.token_endpoint_auth_method {
        return method.clone();
    }
    if registration.client_secret.is_none() {
        return "none".to_owned();
    }
    let supported = server.metadata.as_ref().and_then(|m| m.token_endpoint_auth_methods_supported.clone());
    match supported {
        Some(methods) if !methods.iter().any(|m| m == "client_secret_basic") => {
            if methods.iter().any(|m| m == "client_secret_post") {
                "client_secret_post".to_owned()
            } else {
                "none".to_owned()
            }
        }
        _ => "client_secret_basic".to_owned(),
    }
}

/// Whether tokens from `server` are bound to this client's key: the authorization server supports
/// DPoP proofs signed with ES256 and the client did not turn DPoP off.
fn uses_dpop(oauth: &OAuth, server: &Server) -> bool {
    let algorithms = server.metadata.as_ref().and_then(|m| m.dpop_signing_alg_values_supported.as_ref());
    oauth.config.dpop && algorithms.is_some_and(|algorithms| algorithms.iter().any(|a| a == dpop::ALGORITHM))
}

/// POSTs `grant` to the token endpoint with the client's authentication (and a DPoP proof where
/// the server supports DPoP: sent again once with the server's nonce if it asks for one); the
/// tokens.
async fn token_request(
    oauth: &OAuth,
    server: &Server,
    registration: &Registration,
    grant: &[(&str, &str)],
    asked_scope: Option<String>,
) -> io::Result<Tokens> {
    let dpop = uses_dpop(oauth, server);
    let mut response = token_post(oauth, server, registration, grant, dpop).await?;
    if dpop && let Some(nonce) = response.dpop_nonce.clone() {
        let fresh = oauth.dpop.save_nonce(&server.token_endpoint, &nonce);
        #[derive(Deserialize)]
        struct TokenError {
            error: String,
        }
        let asks = response.status == 400
            && serde_json::from_slice::<TokenError>(&response.body).is_ok_and(|e| e.error == dpop::USE_DPOP_NONCE);
        if asks && fresh {
            response = token_post(oauth, server, registration, grant, dpop).await?;
            if let Some(nonce) = &response.dpop_nonce {
                oauth.dpop.save_nonce(&server.token_endpoint, nonce);
            }
        }
    }
    #[derive(Deserialize)]
    struct TokenResponse {
        access_token: String,
        token_type: Option<String>,
        expires_in: Option<u64>,
        refresh_token: Option<String>,
        scope: Option<String>,
    }
    if !(200..300).contains(&response.status) {
        return Err(refused(format!(
            "the token endpoint refused (HTTP {}): {}",
            response.status,
            String::from_utf8_lossy(&response.body)
        )));
    }
    let token: TokenResponse = response.json()?;
    // A server may answer a proof with a bearer token (RFC 9449 §5); a DPoP one only to a proof.
    let bound = match token.token_type.as_deref() {
        Some(t) if dpop && t.eq_ignore_ascii_case("dpop") => true,
        Some(t) if !t.eq_ignore_ascii_case("bearer") => {
            return Err(refused(format!("an access token of type {t:?}, not Bearer")));
        }
        _ => false,
    };
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    Ok(Tokens {
        access_token: token.access_token,
        refresh_token: token.refresh_token,
        scope: token.scope.or(asked_scope),
        expires_at: token.expires_in.map(|s| now + s),
        issuer: server.issuer.clone(),
        dpop_jkt: if bound { Some(oauth.dpop.thumbprint(&*oauth.store)?) } else { None },
    })
}

/// One token request: `grant` with the client's authentication, and a fresh proof if `dpop`.
async fn token_post(
    oauth: &OAuth,
    server: &Server,
    registration: &Registration,
    grant: &[(&str, &str)],
    dpop: bool,
) -> io::Result<fetch::Fetched> {
    let mut body: Vec<(&str, &str)> = grant.to_vec();
    let secret = registration.client_secret.as_deref().unwrap_or_default();
    let mut headers = Vec::new();
    let assertion;
    match auth_method(server, registration).as_str() {
        "private_key_jwt" => {
            assertion = client_assertion(oauth, &registration.client_id, &server.issuer)?;
            body.push(("client_id", &registration.client_id));
            body.push(("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"));
            body.push(("client_assertion", &assertion));
        }
        "client_secret_basic" => headers.push(("authorization", form::basic(&registration.client_id, secret))),
        "client_secret_post" => {
            body.push(("client_id", &registration.client_id));
            body.push(("client_secret", secret));
        }
        _ => body.push(("client_id", &registration.client_id)),
    }
    if dpop {
        headers.push(("dpop", oauth.dpop.proof(&*oauth.store, "POST", &server.token_endpoint, None)?));
    }
    fetch::post_form(&server.token_endpoint, form::encode(&body), headers).await
}
