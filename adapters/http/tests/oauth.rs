//! The OAuth client (`client::oauth`) against a scripted authorization server and protected MCP
//! endpoints in this process: what the conformance suite does not try. Oversized metadata is
//! refused, a failing token endpoint is asked once per request (nothing retried forever), a token
//! goes only to the endpoint it was obtained for, and an expired token is refreshed (or, when the
//! refresh fails, the user authorizes again).
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
use mcp_sansio_http::client::oauth::{MAX_AUTH_RESPONSE, OAuth, OAuthConfig};
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
            json_response(200, metadata)
        }
        "/as/authorize" => {
            let q = url_pairs(&query);
            let redirect = format!("{}?code=c{}&state={}", q["redirect_uri"], s.issued, q["state"]);
            Response::builder().status(302).header("location", redirect).body(Full::new(Bytes::new())).unwrap()
        }
        "/as/token" => {
            let refused = s.token_fails || (what == "refresh_token" && s.refresh_fails);
            if refused {
                json_response(400, json!({"error": "invalid_grant"}))
            } else {
                s.issued += 1;
                let token = format!("t{}", s.issued);
                let resource = form.get("resource").cloned().unwrap_or_default();
                let endpoint = resource.strip_prefix(&base).unwrap_or_default().to_owned();
                s.valid.insert(endpoint, token.clone());
                json_response(
                    200,
                    json!({"access_token": token, "token_type": "Bearer", "refresh_token": format!("r{}", s.issued)}),
                )
            }
        }
        // `/c` refuses every token.
        "/a" | "/b" | "/c" => {
            let valid = s.valid.get(&path).filter(|_| path != "/c").map(|t| format!("Bearer {t}"));
            if authorization.is_some() && authorization == valid {
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
    script.lock().unwrap().seen.iter().filter(|(p, g, _)| p == path && g == grant).count()
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
