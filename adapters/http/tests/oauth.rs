//! The OAuth client (`client::oauth`) against a scripted authorization server and protected MCP
//! endpoints in this process: what the conformance suite does not try. Oversized metadata is
//! refused, a failing token endpoint is asked once per request (nothing retried forever), a token
//! goes only to the endpoint it was obtained for, an expired token is refreshed (or, when the
//! refresh fails, the user authorizes again), and DPoP-bound tokens go with proofs this server
//! verifies (signature, key binding, method, URL, token hash, fresh `jti`, its nonces).
#![cfg(feature = "oauth")]

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use mcp_sansio::client::{self, EraPolicy};
use mcp_sansio_driver::host::Host;
use mcp_sansio_http::client::connect_with_oauth;
use mcp_sansio_http::client::oauth::{
    CredentialStore, FileStore, MAX_AUTH_RESPONSE, OAuth, OAuthConfig, Registration, Tokens, WorkloadIdentity,
};
use serde_json::{Value as Json, json};

/// What the scripted servers do, and what they saw.
#[derive(Default)]
struct Script {
    /// Pad the authorization server's metadata past the client's limit.
    oversized_metadata: bool,
    /// The token endpoint refuses every request.
    token_fails: bool,
    /// The refresh grant is refused (the user must authorize again).
    refresh_fails: bool,
    /// Tokens issued so far (the valid ones are the last per endpoint).
    issued: u32,
    /// Requests seen per path: method/grant and the Authorization header.
    seen: Vec<(String, String, Option<String>)>,
    /// The valid token of each MCP endpoint path.
    valid: HashMap<String, String>,
    /// DPoP: the metadata offers ES256 proofs, a token request with a proof gets a token bound to
    /// its key (one without, a bearer token), and each endpoint wants the bound token with a proof.
    /// Both the token endpoint and the endpoints want their nonce.
    dpop: bool,
    /// The key thumbprint each DPoP-bound token is bound to.
    bound: HashMap<String, String>,
    /// Every verified proof: the path it came to, its claims.
    proofs: Vec<(String, Json)>,
    /// The `dpop_jkt` of each authorization request.
    dpop_jkts: Vec<Option<String>>,
    /// `use_dpop_nonce` answers given, per path.
    nonce_challenges: Vec<String>,
    /// The assertions of JWT bearer grants (which get no refresh token).
    assertions: Vec<String>,
}

/// The nonces the scripted servers want in proofs.
const AS_NONCE: &str = "as-nonce-1";
const RS_NONCE: &str = "rs-nonce-1";

fn b64(text: &[u8]) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, text)
}

fn unb64(text: &str) -> Result<Vec<u8>, String> {
    base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, text).map_err(|e| e.to_string())
}

/// Verifies a DPoP proof as RFC 9449 §4.3 asks: an ES256 JWT of type `dpop+jwt` signed by the
/// public key in its header, for `method` on `url`, with the hash of `token` if one is presented;
/// the key's thumbprint and the claims.
fn verify_proof(proof: &str, method: &str, url: &str, token: Option<&str>) -> Result<(String, Json), String> {
    let parts: Vec<&str> = proof.split('.').collect();
    let [header, claims, signature] = parts[..] else { return Err("not a JWT".into()) };
    let header: Json = serde_json::from_slice(&unb64(header)?).map_err(|e| e.to_string())?;
    let claims: Json = serde_json::from_slice(&unb64(claims)?).map_err(|e| e.to_string())?;
    if header["typ"] != "dpop+jwt" || header["alg"] != "ES256" || header["jwk"].get("d").is_some() {
        return Err(format!("bad header {header}"));
    }
    let jwk = &header["jwk"];
    let (x, y) = (jwk["x"].as_str().unwrap_or_default(), jwk["y"].as_str().unwrap_or_default());
    let mut point = vec![4u8];
    point.extend(unb64(x)?);
    point.extend(unb64(y)?);
    let signed = &proof[..proof.rfind('.').unwrap()];
    ring::signature::UnparsedPublicKey::new(&ring::signature::ECDSA_P256_SHA256_FIXED, &point)
        .verify(signed.as_bytes(), &unb64(signature)?)
        .map_err(|_| "the signature does not verify".to_owned())?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let ath = token.map(|t| b64(ring::digest::digest(&ring::digest::SHA256, t.as_bytes()).as_ref()));
    if claims["htm"] != method
        || claims["htu"] != url
        || !claims["jti"].is_string()
        || claims["iat"].as_u64().is_none_or(|iat| iat.abs_diff(now) > 60)
        || claims["ath"].as_str() != ath.as_deref()
    {
        return Err(format!("bad claims {claims} for {method} {url}"));
    }
    let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
    Ok((b64(ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes()).as_ref()), claims))
}

fn use_dpop_nonce(status: u16, nonce: &str, challenge: Option<String>) -> Response<Full<Bytes>> {
    let mut response = json_response(status, json!({"error": "use_dpop_nonce"}));
    response.headers_mut().insert("dpop-nonce", nonce.parse().unwrap());
    if let Some(challenge) = challenge {
        response.headers_mut().insert("www-authenticate", challenge.parse().unwrap());
    }
    response
}

type Shared = Arc<Mutex<Script>>;

fn json_response(status: u16, body: Json) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

/// One origin serving the authorization server (`/as/...`) and two MCP endpoints (`/a`, `/b`),
/// each its own protected resource.
async fn handle(request: Request<Incoming>, script: Shared, base: String) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or_default().to_owned();
    let authorization = request.headers().get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let proof = request.headers().get("dpop").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let body = request.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let form: HashMap<String, String> = url_pairs(&String::from_utf8_lossy(&body));
    let mut s = script.lock().unwrap();
    let what = form.get("grant_type").cloned().unwrap_or_default();
    s.seen.push((path.clone(), what.clone(), authorization.clone()));
    let response = match path.as_str() {
        "/.well-known/oauth-protected-resource/a"
        | "/.well-known/oauth-protected-resource/b"
        | "/.well-known/oauth-protected-resource/c" => {
            let resource = format!("{base}{}", &path["/.well-known/oauth-protected-resource".len()..]);
            json_response(200, json!({"resource": resource, "authorization_servers": [format!("{base}/as")]}))
        }
        "/.well-known/oauth-authorization-server/as" => {
            let mut metadata = json!({
                "issuer": format!("{base}/as"),
                "authorization_endpoint": format!("{base}/as/authorize"),
                "token_endpoint": format!("{base}/as/token"),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
            });
            if s.oversized_metadata {
                metadata["padding"] = Json::String("x".repeat(MAX_AUTH_RESPONSE + 1));
            }
            if s.dpop {
                metadata["dpop_signing_alg_values_supported"] = json!(["RS256", "ES256"]);
            }
            json_response(200, metadata)
        }
        "/as/authorize" => {
            let q = url_pairs(&query);
            s.dpop_jkts.push(q.get("dpop_jkt").cloned());
            let redirect = format!("{}?code=c{}&state={}", q["redirect_uri"], s.issued, q["state"]);
            Response::builder().status(302).header("location", redirect).body(Full::new(Bytes::new())).unwrap()
        }
        "/as/token" => {
            let refused = s.token_fails || (what == "refresh_token" && s.refresh_fails);
            let token_url = format!("{base}/as/token");
            let proven = match (&proof, s.dpop) {
                (Some(proof), true) => Some(verify_proof(proof, "POST", &token_url, None)),
                _ => None,
            };
            if refused {
                json_response(400, json!({"error": "invalid_grant"}))
            } else if let Some(Err(why)) = proven {
                json_response(400, json!({"error": "invalid_dpop_proof", "error_description": why}))
            } else if proven.as_ref().is_some_and(|p| p.as_ref().is_ok_and(|(_, claims)| claims["nonce"] != AS_NONCE)) {
                s.nonce_challenges.push(path.clone());
                use_dpop_nonce(400, AS_NONCE, None)
            } else {
                s.issued += 1;
                let token = format!("t{}", s.issued);
                let jwt_bearer = what == "urn:ietf:params:oauth:grant-type:jwt-bearer";
                if jwt_bearer {
                    s.assertions.push(form.get("assertion").cloned().unwrap_or_default());
                }
                let resource = form.get("resource").cloned().unwrap_or_default();
                let endpoint = resource.strip_prefix(&base).unwrap_or_default().to_owned();
                s.valid.insert(endpoint, token.clone());
                let token_type = match proven {
                    Some(Ok((jkt, claims))) => {
                        s.bound.insert(token.clone(), jkt);
                        s.proofs.push((path.clone(), claims));
                        "DPoP"
                    }
                    _ => "Bearer",
                };
                let mut tokens = json!({"access_token": token, "token_type": token_type});
                if !jwt_bearer {
                    tokens["refresh_token"] = format!("r{}", s.issued).into();
                }
                json_response(200, tokens)
            }
        }
        // `/c` refuses every token.
        "/a" | "/b" | "/c" => {
            let valid = s.valid.get(&path).filter(|_| path != "/c").cloned();
            let bound = valid.as_ref().and_then(|t| s.bound.get(t)).cloned();
            let scheme = if bound.is_some() { "DPoP" } else { "Bearer" };
            let mut accepted =
                authorization.is_some() && authorization == valid.as_ref().map(|t| format!("{scheme} {t}"));
            let mut wants_nonce = false;
            if let (true, Some(jkt)) = (accepted, &bound) {
                let url = format!("{base}{path}");
                match proof.as_deref().map(|p| verify_proof(p, "POST", &url, valid.as_deref())) {
                    Some(Ok((key, claims))) if key == *jkt => {
                        let replayed = s.proofs.iter().any(|(_, seen)| seen["jti"] == claims["jti"]);
                        wants_nonce = claims["nonce"] != RS_NONCE;
                        accepted = !replayed && !wants_nonce;
                        s.proofs.push((path.clone(), claims));
                    }
                    _ => accepted = false,
                }
            }
            if wants_nonce {
                s.nonce_challenges.push(path.clone());
                let challenge = r#"DPoP error="use_dpop_nonce", algs="ES256""#.to_owned();
                use_dpop_nonce(401, RS_NONCE, Some(challenge))
            } else if accepted {
                let message = serde_json::from_slice::<Json>(&body).unwrap_or_default();
                let result = match message["method"].as_str() {
                    Some("server/discover") => json!({
                        "supportedVersions": ["2026-07-28"],
                        "capabilities": {},
                        "serverInfo": {"name": "protected", "version": "1"},
                    }),
                    _ => json!({}),
                };
                match message.get("id") {
                    Some(id) => json_response(200, json!({"jsonrpc": "2.0", "id": id, "result": result})),
                    None => Response::builder().status(202).body(Full::new(Bytes::new())).unwrap(),
                }
            } else {
                let challenge = format!(
                    r#"Bearer error="invalid_token", resource_metadata="{base}/.well-known/oauth-protected-resource{path}""#
                );
                Response::builder()
                    .status(401)
                    .header("www-authenticate", challenge)
                    .body(Full::new(Bytes::new()))
                    .unwrap()
            }
        }
        _ => json_response(404, json!({})),
    };
    Ok(response)
}

/// `a=1&b=2` (no escapes in what these tests send but `%3A`, `%2F` and `+`).
fn url_pairs(text: &str) -> HashMap<String, String> {
    text.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.replace("%3A", ":").replace("%2F", "/").replace('+', " ")))
        .collect()
}

async fn start(script: Shared) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let base = format!("http://{addr}");
    let origin = base.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { return };
            let (script, base) = (script.clone(), origin.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |r| handle(r, script.clone(), base.clone()));
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    base
}

/// A script whose servers bind tokens to DPoP proofs (`Script::dpop`), started: it and its base URL.
async fn start_dpop() -> (Shared, String) {
    let script = Shared::default();
    script.lock().unwrap().dpop = true;
    let base = start(script.clone()).await;
    (script, base)
}

fn oauth() -> Arc<OAuth> {
    Arc::new(OAuth::new(OAuthConfig::new("oauth-test", "http://127.0.0.1:1/callback").with_client("client-1", None)))
}

fn config() -> client::Config<'static> {
    client::Config::new("oauth-test", "1.0.0")
        .with_era(EraPolicy::Modern)
        .with_connect_timeout(mcp_sansio::time::Duration::from_secs(10))
        .with_request_timeout(Some(mcp_sansio::time::Duration::from_secs(10)))
}

/// `server/discover` through `connect`, then a ping: what a request behind OAuth costs.
async fn ping(url: &str, oauth: &Arc<OAuth>) -> Result<(), String> {
    let client = connect_with_oauth(url, config(), Host::new(), oauth.clone()).map_err(|e| e.to_string())?;
    let outcome = async {
        client.connect().await.map_err(|e| e.to_string())?;
        client.ping().await.map_err(|e| e.to_string())?;
        Ok::<(), String>(())
    }
    .await;
    let _ = client.close().await;
    outcome
}

fn count(script: &Shared, path: &str, grant: &str) -> usize {
    count_in(&script.lock().unwrap(), path, grant)
}

#[tokio::test]
async fn a_token_goes_only_to_the_endpoint_it_was_obtained_for() {
    let script = Shared::default();
    let base = start(script.clone()).await;
    let oauth = oauth();
    ping(&format!("{base}/a"), &oauth).await.unwrap();
    ping(&format!("{base}/b"), &oauth).await.unwrap();
    let s = script.lock().unwrap();
    let token_of = |path: &str| s.valid.get(path).map(|t| format!("Bearer {t}"));
    assert_ne!(token_of("/a"), token_of("/b"));
    for (path, _, authorization) in &s.seen {
        if path == "/b" {
            assert_ne!(authorization, &token_of("/a"), "the token of /a was sent to /b");
        }
        if path == "/a" {
            assert_ne!(authorization, &token_of("/b"), "the token of /b was sent to /a");
        }
    }
    assert_eq!(s.seen.iter().filter(|(p, g, _)| p == "/as/token" && g == "authorization_code").count(), 2);
}

#[tokio::test]
async fn oversized_metadata_is_refused_and_the_request_fails() {
    let script = Shared::default();
    script.lock().unwrap().oversized_metadata = true;
    let base = start(script.clone()).await;
    let oauth = oauth();
    ping(&format!("{base}/a"), &oauth).await.unwrap_err();
    let why = oauth.last_error().unwrap_or_default();
    assert!(why.contains(&format!("more than {MAX_AUTH_RESPONSE} bytes")), "{why}");
    assert_eq!(count(&script, "/as/authorize", ""), 0, "no authorization without usable metadata");
}

#[tokio::test]
async fn a_failing_token_endpoint_is_asked_once_per_request() {
    let script = Shared::default();
    script.lock().unwrap().token_fails = true;
    let base = start(script.clone()).await;
    let started = std::time::Instant::now();
    let oauth = oauth();
    ping(&format!("{base}/a"), &oauth).await.unwrap_err();
    let why = oauth.last_error().unwrap_or_default();
    assert!(why.contains("the token endpoint refused (HTTP 400)"), "{why}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    // The connect's one request: one authorization, one token request, then the failure.
    assert_eq!(count(&script, "/as/token", "authorization_code"), 1);
}

#[tokio::test]
async fn an_expired_token_is_refreshed_or_the_user_authorizes_again() {
    let script = Shared::default();
    let base = start(script.clone()).await;
    let (url, oauth) = (format!("{base}/a"), oauth());
    ping(&url, &oauth).await.unwrap();
    // The server forgets the token (it expired): the refresh token gets a new one.
    script.lock().unwrap().valid.clear();
    ping(&url, &oauth).await.unwrap();
    assert_eq!(count(&script, "/as/token", "refresh_token"), 1);
    assert_eq!(count(&script, "/as/token", "authorization_code"), 1);
    // Expired again, and the refresh refused: a new authorization.
    {
        let mut s = script.lock().unwrap();
        s.valid.clear();
        s.refresh_fails = true;
    }
    ping(&url, &oauth).await.unwrap();
    assert_eq!(count(&script, "/as/token", "refresh_token"), 2);
    assert_eq!(count(&script, "/as/token", "authorization_code"), 2);
}

#[tokio::test]
async fn a_server_that_refuses_every_token_is_not_asked_forever() {
    let script = Shared::default();
    let base = start(script.clone()).await;
    let started = std::time::Instant::now();
    ping(&format!("{base}/c"), &oauth()).await.unwrap_err();
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    // The connect's one request: a first token, then refreshes, each refused; `MAX_RENEWALS` new
    // tokens, and the request sent with none and with each of them, then the 401 stands.
    let renewals = mcp_sansio_http::client::oauth::MAX_RENEWALS as usize;
    let grants = count(&script, "/as/token", "authorization_code") + count(&script, "/as/token", "refresh_token");
    assert_eq!(grants, renewals, "token requests");
    let sent = script.lock().unwrap().seen.iter().filter(|(path, ..)| path == "/c").count();
    assert_eq!(sent, renewals + 1, "requests to the endpoint");
}

/// A credential store two `OAuth`s share (as two processes would share a file).
#[derive(Clone, Default)]
struct SharedStore(Arc<mcp_sansio_http::client::oauth::MemoryStore>);

impl CredentialStore for SharedStore {
    fn tokens(&self, resource: &str) -> Option<Tokens> {
        self.0.tokens(resource)
    }
    fn save_tokens(&self, resource: &str, tokens: &Tokens) {
        self.0.save_tokens(resource, tokens)
    }
    fn registration(&self, issuer: &str) -> Option<Registration> {
        self.0.registration(issuer)
    }
    fn save_registration(&self, issuer: &str, registration: &Registration) {
        self.0.save_registration(issuer, registration)
    }
}

#[tokio::test]
async fn a_dpop_bound_token_goes_with_a_fresh_proof_and_each_servers_nonce() {
    let (script, base) = start_dpop().await;
    let (url, oauth) = (format!("{base}/a"), oauth());
    ping(&url, &oauth).await.unwrap();
    ping(&url, &oauth).await.unwrap();
    let tokens = oauth.tokens(&url).unwrap();
    let jkt = {
        let s = script.lock().unwrap();
        let jkt = s.bound.get(&tokens.access_token).expect("the token is bound to the proof's key");
        assert_eq!(tokens.dpop_jkt.as_ref(), Some(jkt));
        assert_eq!(s.dpop_jkts, [Some(jkt.clone())], "the authorization request names the key");
        // Each server asked for its nonce once, and got it in every proof after.
        assert_eq!(s.nonce_challenges, ["/as/token", "/a"]);
        let token_proofs: Vec<_> = s.proofs.iter().filter(|(path, _)| path == "/as/token").collect();
        assert_eq!(token_proofs.len(), 1);
        assert_eq!(token_proofs[0].1["nonce"], AS_NONCE);
        let endpoint_proofs: Vec<_> = s.proofs.iter().filter(|(path, _)| path == "/a").map(|(_, c)| c).collect();
        assert!(endpoint_proofs.len() >= 4, "discover and ping, twice: {}", endpoint_proofs.len());
        assert!(endpoint_proofs.iter().skip(1).all(|claims| claims["nonce"] == RS_NONCE));
        let mut jtis: Vec<_> = s.proofs.iter().map(|(_, claims)| claims["jti"].to_string()).collect();
        jtis.sort();
        jtis.dedup();
        assert_eq!(jtis.len(), s.proofs.len(), "a fresh proof for every request");
        // The token only ever went with the DPoP scheme.
        let presented: Vec<_> =
            s.seen.iter().filter(|(path, ..)| path == "/a").filter_map(|(.., a)| a.as_ref()).collect();
        assert!(presented.iter().all(|a| *a == &format!("DPoP {}", tokens.access_token)), "{presented:?}");
        jkt.clone()
    };
    // Expired: the refresh goes with a proof (the nonce known by now), and its token is bound too.
    script.lock().unwrap().valid.clear();
    ping(&url, &oauth).await.unwrap();
    let s = script.lock().unwrap();
    let refreshed = oauth.tokens(&url).unwrap();
    assert_ne!(refreshed.access_token, tokens.access_token);
    assert_eq!(s.bound.get(&refreshed.access_token), Some(&jkt));
    assert_eq!(count_in(&s, "/as/token", "refresh_token"), 1);
    let token_proofs = s.proofs.iter().filter(|(path, _)| path == "/as/token");
    assert!(token_proofs.clone().count() == 2 && token_proofs.into_iter().all(|(_, c)| c["nonce"] == AS_NONCE));
}

#[tokio::test]
async fn a_token_bound_to_another_key_is_not_sent() {
    let (script, base) = start_dpop().await;
    let url = format!("{base}/a");
    let store = SharedStore::default();
    let config = || OAuthConfig::new("oauth-test", "http://127.0.0.1:1/callback").with_client("client-1", None);
    let first = Arc::new(OAuth::new(config()).with_store(store.clone()));
    ping(&url, &first).await.unwrap();
    let kept = store.tokens(&url).unwrap().access_token;
    let sent_kept = |s: &Script| {
        s.seen.iter().filter(|(path, _, a)| path == "/a" && a.as_deref() == Some(&format!("DPoP {kept}"))).count()
    };
    let by_first = sent_kept(&script.lock().unwrap());
    // Another process's key: the kept token (and its refresh token) cannot be proven.
    let second = Arc::new(OAuth::new(config()).with_store(store.clone()));
    ping(&url, &second).await.unwrap();
    let s = script.lock().unwrap();
    assert_eq!(sent_kept(&s), by_first, "the second client did not send the first one's token");
    // Two authorizations (each client's token request asked for the nonce first), no refresh.
    assert_eq!((s.issued, count_in(&s, "/as/token", "authorization_code")), (2, 4));
    assert_eq!(count_in(&s, "/as/token", "refresh_token"), 0);
    assert_ne!(store.tokens(&url).unwrap().access_token, kept);
}

#[tokio::test]
async fn a_file_store_keeps_the_key_its_tokens_are_bound_to() {
    let (script, base) = start_dpop().await;
    let url = format!("{base}/a");
    let dir = std::env::temp_dir().join(format!("mcp-sansio-dpop-store-{}", std::process::id()));
    let path = dir.join("credentials.json");
    let _ = std::fs::remove_file(&path);
    let config = || OAuthConfig::new("oauth-test", "http://127.0.0.1:1/callback").with_client("client-1", None);
    let first = Arc::new(OAuth::new(config()).with_store(FileStore::open(&path).unwrap()));
    ping(&url, &first).await.unwrap();
    // The next process (the `mcp` command run again) proves the kept token with the kept key.
    let next = Arc::new(OAuth::new(config()).with_store(FileStore::open(&path).unwrap()));
    ping(&url, &next).await.unwrap();
    let s = script.lock().unwrap();
    assert_eq!(s.issued, 1, "no new authorization");
    let kept = next.tokens(&url).unwrap();
    assert!(
        s.seen
            .iter()
            .filter(|(p, ..)| p == "/a")
            .all(|(.., a)| a.is_none() || a == &Some(format!("DPoP {}", kept.access_token)))
    );
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn without_dpop_the_same_server_gets_bearer_tokens() {
    let (script, base) = start_dpop().await;
    let url = format!("{base}/a");
    let config = OAuthConfig::new("oauth-test", "http://127.0.0.1:1/callback").with_client("client-1", None);
    let oauth = Arc::new(OAuth::new(config.with_dpop(false)));
    ping(&url, &oauth).await.unwrap();
    let tokens = oauth.tokens(&url).unwrap();
    assert_eq!(tokens.dpop_jkt, None);
    let s = script.lock().unwrap();
    assert!(s.proofs.is_empty() && s.nonce_challenges.is_empty());
    assert_eq!(s.dpop_jkts, [None]);
    assert!(s.seen.iter().any(|(path, _, a)| path == "/a" && a == &Some(format!("Bearer {}", tokens.access_token))));
}

#[tokio::test]
async fn a_workloads_identity_token_is_read_for_each_grant() {
    let script = Shared::default();
    let base = start(script.clone()).await;
    let url = format!("{base}/a");
    let dir = std::env::temp_dir().join(format!("mcp-sansio-wif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("token");
    std::fs::write(&path, "workload-1\n").unwrap();
    let config = OAuthConfig::for_workload("client-1", WorkloadIdentity::file(&path));
    let oauth = Arc::new(OAuth::new(config));
    ping(&url, &oauth).await.unwrap();
    // The platform rotated the token, and the access token expired: the grant reads the new one.
    std::fs::write(&path, "workload-2").unwrap();
    script.lock().unwrap().valid.clear();
    ping(&url, &oauth).await.unwrap();
    {
        let s = script.lock().unwrap();
        assert_eq!(s.assertions, ["workload-1", "workload-2"]);
        assert_eq!(count_in(&s, "/as/authorize", ""), 0, "no user agent");
        let grants: Vec<_> =
            s.seen.iter().filter(|(path, ..)| path == "/as/token").map(|(_, g, _)| g.as_str()).collect();
        assert_eq!(grants, ["urn:ietf:params:oauth:grant-type:jwt-bearer"; 2]);
    }
    // A token the file cannot give fails the request, with the reason kept.
    std::fs::remove_file(&path).unwrap();
    script.lock().unwrap().valid.clear();
    ping(&url, &oauth).await.unwrap_err();
    assert!(oauth.last_error().unwrap_or_default().contains("the workload identity token"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn count_in(s: &Script, path: &str, grant: &str) -> usize {
    s.seen.iter().filter(|(p, g, _)| p == path && g == grant).count()
}
