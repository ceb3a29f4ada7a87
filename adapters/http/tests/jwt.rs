//! The JWT validator (feature `jwt`) protecting an endpoint: keys generated here with `ring`
//! (Ed25519 and P-256), a JWKS served by a small server in the test that counts its fetches, and
//! raw HTTP/1.1 requests to the endpoint.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_sansio::server::{Config, Handler, Tool, ToolCall, ToolReply};
use mcp_sansio_http::jwt::{JwtConfig, JwtError, JwtValidator};
use mcp_sansio_http::shared::{EventsRead, StoreFuture};
use mcp_sansio_http::{HttpConfig, McpHttp, serve};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const ISSUER: &str = "https://auth.test";
const SCOPE: &str = "mcp:tools";

static TOOLS: [Tool<'static>; 2] = [
    Tool::new("echo", "Echoes text", r#"{"type":"object","properties":{"text":{"type":"string"}}}"#),
    // A task that runs until the test ends (its deferred answer is kept, never given).
    Tool::new("wait", "Runs as a task", r#"{"type":"object"}"#)
        .with_task_support(mcp_sansio::mcp::TaskSupport::Required),
];

#[derive(Default)]
struct Echo {
    waiting: Vec<mcp_sansio::server::Deferred>,
}

impl Handler for Echo {
    const TOOLS: &'static [Tool<'static>] = &TOOLS;
    fn call_tool(&mut self, call: ToolCall<'_>, mut reply: ToolReply<'_>) {
        if call.name == "wait" {
            if reply.run_as_task().is_err() {
                return reply.missing_tasks();
            }
            if let Ok(deferred) = reply.defer() {
                self.waiting.push(deferred);
            }
            return;
        }
        match call.argument("text").and_then(|v| v.as_str()) {
            Some(text) => reply.text_json(text).finish(),
            None => reply.finish_error_text("missing text"),
        }
    }
}

/// A signing key: its JWK (public) and its PKCS#8 document (private).
struct Signer {
    kid: String,
    alg: Algorithm,
    pkcs8: Vec<u8>,
    jwk: Value,
}

impl Signer {
    fn ed25519(kid: &str) -> Signer {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap().as_ref().to_vec();
        let pair = Ed25519KeyPair::from_pkcs8(&pkcs8).unwrap();
        let x = B64.encode(pair.public_key().as_ref());
        let jwk = json!({"kty":"OKP","crv":"Ed25519","x":x,"kid":kid,"use":"sig","alg":"EdDSA"});
        Signer { kid: kid.into(), alg: Algorithm::EdDSA, pkcs8, jwk }
    }

    fn p256(kid: &str) -> Signer {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap().as_ref().to_vec();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8, &rng).unwrap();
        let point = pair.public_key().as_ref(); // 0x04 || x || y
        let (x, y) = (B64.encode(&point[1..33]), B64.encode(&point[33..65]));
        let jwk = json!({"kty":"EC","crv":"P-256","x":x,"y":y,"kid":kid,"use":"sig"});
        Signer { kid: kid.into(), alg: Algorithm::ES256, pkcs8, jwk }
    }

    /// `claims` signed with this key, the header naming `kid`.
    fn sign_as(&self, kid: &str, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.kid = Some(kid.into());
        let key = match self.alg {
            Algorithm::EdDSA => EncodingKey::from_ed_der(&self.pkcs8),
            _ => EncodingKey::from_ec_der(&self.pkcs8),
        };
        jsonwebtoken::encode(&header, claims, &key).unwrap()
    }

    fn sign(&self, claims: &Value) -> String {
        self.sign_as(&self.kid, claims)
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// Claims that pass: this issuer, this audience, an hour to live, the required scope.
fn claims(audience: &str) -> Value {
    json!({"iss": ISSUER, "aud": audience, "sub": "user", "exp": now() + 3600, "iat": now(), "scope": format!("openid {SCOPE}")})
}

/// The JWKS server: serves `keys` (as it is at each request) and counts the requests.
#[derive(Clone, Default)]
struct Jwks {
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicUsize>,
}

impl Jwks {
    async fn start(&self) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
        let jwks = self.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let jwks = jwks.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    jwks.fetches.fetch_add(1, Ordering::SeqCst);
                    let body = json!({"keys": *jwks.keys.lock().unwrap()}).to_string();
                    let response = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(response.as_bytes()).await;
                });
            }
        });
        url
    }

    fn publish(&self, signer: &Signer) {
        self.keys.lock().unwrap().push(signer.jwk.clone());
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

struct Setup {
    addr: SocketAddr,
    audience: String,
    jwks: Jwks,
    validator: JwtValidator,
    signer: Signer,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// An endpoint protected by a validator whose JWKS lists one Ed25519 key; `tune` adjusts its
/// settings.
async fn setup(tune: impl FnOnce(JwtConfig) -> JwtConfig) -> Setup {
    let jwks = Jwks::default();
    let signer = Signer::ed25519("key-1");
    jwks.publish(&signer);
    let jwks_url = jwks.start().await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let audience = format!("http://{addr}/mcp");
    let config = tune(JwtConfig::new(ISSUER, &audience, jwks_url).require_scope(SCOPE));
    let validator = JwtValidator::new(config).await.unwrap();
    let mut http = HttpConfig::new(Config::new("jwt", "1.0.0"), addr);
    http.auth = Some(validator.bearer_auth());
    http.tasks = Some(mcp_sansio_http::TaskLimits::default());
    let endpoint = McpHttp::new(Echo::default(), http);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(listener, endpoint, async move {
        let _ = stopped.await;
    }));
    Setup { addr, audience, jwks, validator, signer, _stop: stop }
}

/// Status, `WWW-Authenticate` and body of a `tools/call` (2026-07-28) with `token`, if any.
async fn call(addr: SocketAddr, token: Option<&str>) -> (u16, Option<String>, String) {
    let params = json!({"name":"echo","arguments":{"text":"secret"}});
    request(addr, token, "tools/call", "echo", params).await
}

/// Status, `WWW-Authenticate` and body of a 2026-07-28 request `method` (`Mcp-Name: name`) with
/// `params` (`_meta` added, declaring the tasks extension) and `token`, if any.
async fn request(
    addr: SocketAddr,
    token: Option<&str>,
    method: &str,
    name: &str,
    params: Value,
) -> (u16, Option<String>, String) {
    let authorization = token.map(|token| format!("Authorization: Bearer {token}\r\n")).unwrap_or_default();
    let (status, challenges, body) = request_with(addr, &authorization, method, name, params).await;
    (status, challenges.into_iter().next(), body)
}

/// [`request`] with `auth` (header lines) instead of a bearer token; every `WWW-Authenticate`.
async fn request_with(
    addr: SocketAddr,
    auth: &str,
    method: &str,
    name: &str,
    mut params: Value,
) -> (u16, Vec<String>, String) {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}});
    let body = json!({"jsonrpc":"2.0","id":1,"method":method,"params":params}).to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\nMcp-Name: {name}\r\nContent-Length: {}\r\n",
        body.len()
    );
    request += auth;
    request += "\r\n";
    request += &body;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut raw)).await.unwrap().unwrap();
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let challenges = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(name, _)| name.eq_ignore_ascii_case("www-authenticate"))
        .map(|(_, value)| value.trim().to_owned())
        .collect();
    (status, challenges, body.to_owned())
}

fn metadata_url(addr: SocketAddr) -> String {
    format!("http://{addr}/.well-known/oauth-protected-resource/mcp")
}

/// Asserts a 401 `invalid_token` naming the metadata and the scope.
async fn assert_invalid(s: &Setup, token: &str) {
    let (status, challenge, _) = call(s.addr, Some(token)).await;
    assert_eq!(status, 401, "{token}");
    assert_eq!(
        challenge.as_deref(),
        Some(&*format!(
            r#"Bearer error="invalid_token", resource_metadata="{}", scope="{SCOPE}""#,
            metadata_url(s.addr)
        ))
    );
}

#[tokio::test]
async fn a_valid_token_is_served() {
    let s = setup(|c| c).await;
    let (status, challenge, body) = call(s.addr, Some(&s.signer.sign(&claims(&s.audience)))).await;
    assert_eq!((status, challenge), (200, None));
    assert!(body.contains("secret"), "{body}");
    // An array `scp` grants scopes too, and a P-256 key with ES256 works alike.
    let p256 = Signer::p256("key-ec");
    s.jwks.publish(&p256);
    s.validator.refresh().await.unwrap();
    let mut scp = claims(&s.audience);
    scp.as_object_mut().unwrap().remove("scope");
    scp["scp"] = json!([SCOPE]);
    assert_eq!(call(s.addr, Some(&p256.sign(&scp))).await.0, 200);
}

#[tokio::test]
async fn a_missing_token_gets_401_naming_the_metadata_and_the_scope() {
    let s = setup(|c| c).await;
    let (status, challenges, _) = request_with(s.addr, "", "tools/call", "echo", json!({"name": "echo"})).await;
    assert_eq!(status, 401);
    // No `error` without a token (RFC 6750 §3.1); either scheme may be used.
    assert_eq!(
        challenges,
        [
            format!(r#"Bearer resource_metadata="{}", scope="{SCOPE}""#, metadata_url(s.addr)),
            format!(r#"DPoP resource_metadata="{}""#, metadata_url(s.addr))
        ]
    );
    // The document the challenge names.
    let document: Value = serde_json::from_str(&s.validator.resource_metadata()).unwrap();
    assert_eq!(
        document,
        json!({"resource": s.audience, "authorization_servers": [ISSUER], "scopes_supported": [SCOPE],
            "bearer_methods_supported": ["header"],
            "dpop_signing_alg_values_supported": ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA"]})
    );
    assert_eq!(s.validator.resource_metadata_url(), metadata_url(s.addr));
}

#[tokio::test]
async fn a_token_for_another_audience_is_invalid() {
    let s = setup(|c| c).await;
    let token = s.signer.sign(&claims("https://other.example/mcp"));
    assert_eq!(s.validator.check(&token), Err(JwtError::WrongAudience));
    assert_invalid(&s, &token).await;
}

#[tokio::test]
async fn an_expired_token_is_invalid_past_the_leeway() {
    let s = setup(|c| c.with_leeway(Duration::from_secs(30))).await;
    let mut within = claims(&s.audience);
    within["exp"] = json!(now() - 10);
    assert_eq!(call(s.addr, Some(&s.signer.sign(&within))).await.0, 200);
    let mut expired = claims(&s.audience);
    expired["exp"] = json!(now() - 120);
    let token = s.signer.sign(&expired);
    assert_eq!(s.validator.check(&token), Err(JwtError::Expired));
    assert_invalid(&s, &token).await;
    // `exp` is required.
    let mut forever = claims(&s.audience);
    forever.as_object_mut().unwrap().remove("exp");
    assert_eq!(s.validator.check(&s.signer.sign(&forever)), Err(JwtError::MissingClaim("exp".into())));
}

#[tokio::test]
async fn a_token_not_yet_valid_is_invalid() {
    let s = setup(|c| c).await;
    let mut early = claims(&s.audience);
    early["nbf"] = json!(now() + 600);
    let token = s.signer.sign(&early);
    assert_eq!(s.validator.check(&token), Err(JwtError::NotYetValid));
    assert_invalid(&s, &token).await;
}

#[tokio::test]
async fn a_token_from_another_issuer_is_invalid() {
    let s = setup(|c| c).await;
    let mut other = claims(&s.audience);
    other["iss"] = json!("https://evil.test");
    let token = s.signer.sign(&other);
    assert_eq!(s.validator.check(&token), Err(JwtError::WrongIssuer));
    assert_invalid(&s, &token).await;
}

#[tokio::test]
async fn a_bad_signature_is_invalid() {
    let s = setup(|c| c).await;
    // Signed by a key the issuer never published, under the published key's id.
    let forger = Signer::ed25519("forger");
    let token = forger.sign_as(&s.signer.kid, &claims(&s.audience));
    assert_eq!(s.validator.check(&token), Err(JwtError::BadSignature));
    assert_invalid(&s, &token).await;
    // A valid token with one byte of its signature changed.
    let mut token = s.signer.sign(&claims(&s.audience)).into_bytes();
    let last = token.len() - 2;
    token[last] = if token[last] == b'A' { b'B' } else { b'A' };
    assert_invalid(&s, std::str::from_utf8(&token).unwrap()).await;
    // Past `max_token_bytes` (8 KiB) nothing is parsed.
    let huge = format!("{}.{}.sig", "a".repeat(4096), "b".repeat(4096));
    assert_eq!(s.validator.check(&huge), Err(JwtError::TooLarge));
    assert_invalid(&s, &huge).await;
}

#[tokio::test]
async fn alg_none_is_invalid() {
    let s = setup(|c| c).await;
    let header = B64.encode(json!({"alg": "none", "typ": "JWT", "kid": s.signer.kid}).to_string());
    let payload = B64.encode(claims(&s.audience).to_string());
    for token in [format!("{header}.{payload}."), format!("{header}.{payload}")] {
        assert_eq!(s.validator.check(&token), Err(JwtError::Malformed));
        assert_invalid(&s, &token).await;
    }
    // Nor is an algorithm the configuration leaves out (the key's own would verify it).
    let s = setup(|c| c.with_algorithms([mcp_sansio_http::jwt::JwtAlgorithm::ES256])).await;
    let token = s.signer.sign(&claims(&s.audience));
    assert_eq!(s.validator.check(&token), Err(JwtError::AlgorithmNotAccepted));
    assert_invalid(&s, &token).await;
}

#[tokio::test]
async fn an_unknown_kid_is_invalid() {
    let s = setup(|c| c).await;
    let stranger = Signer::ed25519("stranger");
    let token = stranger.sign(&claims(&s.audience));
    assert_eq!(s.validator.check(&token), Err(JwtError::UnknownKey));
    assert_invalid(&s, &token).await;
}

#[tokio::test]
async fn a_missing_scope_gets_403_insufficient_scope() {
    let s = setup(|c| c.require_scope("mcp:admin")).await;
    let token = s.signer.sign(&claims(&s.audience)); // grants mcp:tools only
    let (status, challenge, _) = call(s.addr, Some(&token)).await;
    assert_eq!(status, 403);
    assert_eq!(
        challenge.as_deref(),
        Some(&*format!(
            r#"Bearer error="insufficient_scope", scope="{SCOPE} mcp:admin", resource_metadata="{}""#,
            metadata_url(s.addr)
        ))
    );
    let mut both = claims(&s.audience);
    both["scope"] = json!(format!("{SCOPE} mcp:admin"));
    assert_eq!(call(s.addr, Some(&s.signer.sign(&both))).await.0, 200);
}

#[tokio::test]
async fn a_rotated_key_is_accepted_once_the_jwks_lists_it() {
    let s = setup(|c| c.with_refetch_cooldown(Duration::from_millis(200))).await;
    assert_eq!(s.jwks.fetches(), 1);
    // The issuer rotates: a new key, published after the validator fetched the set.
    let rotated = Signer::p256("key-2");
    s.jwks.publish(&rotated);
    let token = rotated.sign(&claims(&s.audience));
    // The first request with the new kid is refused and fetches the set in the background…
    assert_eq!(call(s.addr, Some(&token)).await.0, 401);
    // …and a retry once it is in passes.
    let mut status = 0;
    for _ in 0..50 {
        status = call(s.addr, Some(&token)).await.0;
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, 200);
    assert!(s.jwks.fetches() >= 2);
    // The old key still works while the set lists it.
    assert_eq!(call(s.addr, Some(&s.signer.sign(&claims(&s.audience)))).await.0, 200);
}

#[tokio::test]
async fn an_unknown_kid_flood_fetches_the_jwks_at_most_once_per_interval() {
    const COOLDOWN: Duration = Duration::from_secs(1);
    let s = setup(|c| c.with_refetch_cooldown(COOLDOWN)).await;
    assert_eq!((s.jwks.fetches(), s.validator.jwks_fetches()), (1, 1));
    let stranger = Signer::ed25519("x");
    // Every started fetch reaches the JWKS server.
    let settled = || async {
        for _ in 0..100 {
            if s.jwks.fetches() as u64 == s.validator.jwks_fetches() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(s.jwks.fetches() as u64, s.validator.jwks_fetches());
        s.jwks.fetches()
    };
    // 40 made-up kids; the fetches they may cause: one, and one more per interval they took.
    let flood = |round: usize| {
        let tokens: Vec<String> =
            (0..40).map(|i| stranger.sign_as(&format!("made-up-{round}-{i}"), &claims(&s.audience))).collect();
        async move {
            let started = std::time::Instant::now();
            for token in tokens {
                assert_eq!(call(s.addr, Some(&token)).await.0, 401);
            }
            1 + (started.elapsed().as_millis() / COOLDOWN.as_millis()) as usize
        }
    };
    let allowed = flood(0).await;
    let fetched = settled().await - 1;
    assert!((1..=allowed).contains(&fetched), "{fetched} fetches, {allowed} allowed");
    // After the interval, the next unknown kids may fetch again, as rarely.
    tokio::time::sleep(COOLDOWN + Duration::from_millis(100)).await;
    let before = s.jwks.fetches();
    let allowed = flood(1).await;
    let fetched = settled().await - before;
    assert!((1..=allowed).contains(&fetched), "{fetched} fetches, {allowed} allowed");
}

#[tokio::test]
async fn a_task_belongs_to_the_subject_of_the_token_that_made_it() {
    let s = setup(|c| c).await;
    let token_of = |sub: &str, jti: u32| {
        let mut claims = claims(&s.audience);
        claims["sub"] = json!(sub);
        claims["jti"] = json!(jti);
        s.signer.sign(&claims)
    };
    let alice = token_of("alice", 1);
    let (status, _, body) = request(s.addr, Some(&alice), "tools/call", "wait", json!({"name":"wait"})).await;
    assert_eq!(status, 200, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let get = |token: String| {
        let task = task.clone();
        async move { request(s.addr, Some(&token), "tasks/get", &task, json!({"taskId": task})).await }
    };
    // Another token of the same subject reads it; another subject's token finds no such task.
    let (_, _, mine) = get(token_of("alice", 2)).await;
    assert!(mine.contains(r#""status":"working""#), "{mine}");
    let (_, _, foreign) = get(token_of("bob", 3)).await;
    assert!(foreign.contains("-32602"), "{foreign}");
    let (_, _, cancel) =
        request(s.addr, Some(&token_of("bob", 4)), "tasks/cancel", &task, json!({"taskId": task})).await;
    assert!(cancel.contains("-32602"), "{cancel}");
    let (_, _, still) = get(alice).await;
    assert!(still.contains(r#""status":"working""#), "{still}");
}

/// A client's DPoP key (P-256), and the proofs it signs.
struct Prover {
    pkcs8: Vec<u8>,
    jwk: Value,
}

impl Prover {
    fn new() -> Prover {
        let signer = Signer::p256("unused");
        let mut jwk = signer.jwk;
        for member in ["kid", "use"] {
            jwk.as_object_mut().unwrap().remove(member);
        }
        Prover { pkcs8: signer.pkcs8, jwk }
    }

    /// RFC 7638: SHA-256 of the required members in order.
    fn thumbprint(&self) -> String {
        let (x, y) = (self.jwk["x"].as_str().unwrap(), self.jwk["y"].as_str().unwrap());
        let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
        B64.encode(ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes()))
    }

    /// A proof for `method` on `htu`, presenting `token`, made at `iat`.
    fn proof(&self, method: &str, htu: &str, token: &str, jti: &str, iat: u64) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".into());
        header.jwk = Some(serde_json::from_value(self.jwk.clone()).unwrap());
        let ath = B64.encode(ring::digest::digest(&ring::digest::SHA256, token.as_bytes()));
        let claims = json!({"jti": jti, "htm": method, "htu": htu, "iat": iat, "ath": ath});
        jsonwebtoken::encode(&header, &claims, &EncodingKey::from_ec_der(&self.pkcs8)).unwrap()
    }
}

/// A token for `s`'s audience bound to `client`'s key (`cnf.jkt`).
fn bound_token(s: &Setup, client: &Prover) -> String {
    let mut bound = claims(&s.audience);
    bound["cnf"] = json!({"jkt": client.thumbprint()});
    s.signer.sign(&bound)
}

/// The header lines presenting `token` as a DPoP token with `proof`.
fn dpop_auth(token: &str, proof: &str) -> String {
    format!("Authorization: DPoP {token}\r\nDPoP: {proof}\r\n")
}

/// [`request_with`]: a call of `echo` with `auth`.
async fn echo_with(addr: SocketAddr, auth: &str) -> (u16, Vec<String>, String) {
    request_with(addr, auth, "tools/call", "echo", json!({"name":"echo","arguments":{"text":"secret"}})).await
}

#[tokio::test]
async fn a_dpop_bound_token_needs_a_fresh_proof_by_its_key() {
    let s = setup(|c| c).await;
    let client = Prover::new();
    let token = bound_token(&s, &client);
    let dpop = |proof: &str| dpop_auth(&token, proof);
    let send = |auth: String| async move { echo_with(s.addr, &auth).await };
    let url = s.audience.clone();
    let good = client.proof("POST", &url, &token, "j1", now());
    let (status, _, body) = send(dpop(&good)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("secret"));
    // The URL compared normalized; another fresh proof passes.
    let upper = url.replace("http://", "HTTP://");
    assert_eq!(send(dpop(&client.proof("POST", &upper, &token, "j2", now()))).await.0, 200);
    // Refused: the same proof again, a proof of another request, another token, another time,
    // another key; the bound token as a bearer token, or without a proof.
    let other_path = url.replace("/mcp", "/other");
    let refused = [
        ("replayed", dpop(&good)),
        ("method", dpop(&client.proof("GET", &url, &token, "j3", now()))),
        ("path", dpop(&client.proof("POST", &other_path, &token, "j4", now()))),
        ("token", dpop(&client.proof("POST", &url, "another-token", "j5", now()))),
        ("old", dpop(&client.proof("POST", &url, &token, "j6", now() - 600))),
        ("key", dpop(&Prover::new().proof("POST", &url, &token, "j7", now()))),
        ("bearer", format!("Authorization: Bearer {token}\r\n")),
        ("no proof", format!("Authorization: DPoP {token}\r\n")),
        ("two proofs", format!("{}DPoP: {good}\r\n", dpop(&client.proof("POST", &url, &token, "j8", now())))),
    ];
    for (what, auth) in refused {
        let (status, challenges, _) = send(auth).await;
        assert_eq!(status, 401, "{what}");
        let dpop_challenge = format!(r#"DPoP error="invalid_token", resource_metadata="{}""#, metadata_url(s.addr));
        assert!(challenges.iter().any(|c| c == &dpop_challenge), "{what}: {challenges:?}");
    }
    // A token bound to no key is a bearer token only.
    let unbound = s.signer.sign(&claims(&s.audience));
    let proof = client.proof("POST", &url, &unbound, "j9", now());
    let auth = format!("Authorization: DPoP {unbound}\r\nDPoP: {proof}\r\n");
    assert_eq!(send(auth).await.0, 401);
    assert_eq!(call(s.addr, Some(&unbound)).await.0, 200);
    // The metadata lists the proof algorithms.
    let metadata: Value = serde_json::from_str(&s.validator.resource_metadata()).unwrap();
    assert!(metadata["dpop_signing_alg_values_supported"].as_array().unwrap().contains(&json!("ES256")));
}

/// A shared store that keeps only claimed keys (the DPoP proofs the replicas accepted), or, while
/// `down`, answers nothing in time.
#[derive(Clone, Default)]
struct Claims {
    keys: Arc<Mutex<std::collections::HashMap<String, Duration>>>,
    down: Arc<std::sync::atomic::AtomicBool>,
}

impl mcp_sansio_http::SharedSessions for Claims {
    fn load(&self, _: mcp_sansio::http::SessionId, _: Duration) -> StoreFuture<'_, Option<Vec<u8>>> {
        Box::pin(std::future::ready(Ok(None)))
    }
    fn save(&self, _: mcp_sansio::http::SessionId, _: Vec<u8>, _: Duration) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }
    fn remove(&self, _: mcp_sansio::http::SessionId) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }
    fn publish(&self, _: Vec<u8>) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }
    fn subscribe(&self, _: tokio::sync::mpsc::Sender<Vec<u8>>) {}
    fn append_events(&self, _: Vec<mcp_sansio_http::shared::SharedEvent>, _: Duration) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }
    fn read_events(&self, _: mcp_sansio::http::SessionId, _: u32, _: u64, _: Duration) -> StoreFuture<'_, EventsRead> {
        Box::pin(std::future::ready(Ok(EventsRead::default())))
    }
    fn save_task(&self, _: String, _: Vec<u8>, _: Duration) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }
    fn load_task(&self, _: String) -> StoreFuture<'_, Option<Vec<u8>>> {
        Box::pin(std::future::ready(Ok(None)))
    }
    fn beat(&self, _: u64, _: Duration) -> StoreFuture<'_, ()> {
        Box::pin(std::future::ready(Ok(())))
    }
    fn is_alive(&self, _: u64) -> StoreFuture<'_, bool> {
        Box::pin(std::future::ready(Ok(true)))
    }
    fn claim_once(&self, key: String, ttl: Duration) -> StoreFuture<'_, bool> {
        if self.down.load(Ordering::SeqCst) {
            return Box::pin(std::future::pending());
        }
        let fresh = self.keys.lock().unwrap().insert(key, ttl).is_none();
        Box::pin(std::future::ready(Ok(fresh)))
    }
}

/// Replicas behind one URL (`audience`: the first one's), each with its own validator, sharing
/// `store`.
async fn replicas(s: &Setup, store: &Claims, count: usize) -> Vec<(SocketAddr, tokio::sync::oneshot::Sender<()>)> {
    let mut replicas = Vec::new();
    for number in 0..count {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let jwks_url = s.jwks.start().await;
        let validator =
            JwtValidator::new(JwtConfig::new(ISSUER, &s.audience, jwks_url).require_scope(SCOPE)).await.unwrap();
        let mut http = HttpConfig::new(Config::new("jwt", "1.0.0"), addr);
        http.auth = Some(validator.bearer_auth());
        http.replica = number as u8 + 1;
        http.store_timeout = Duration::from_millis(300);
        let endpoint = McpHttp::new(Echo::default(), http).with_shared_sessions(store.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(serve(listener, endpoint, async move {
            let _ = stopped.await;
        }));
        replicas.push((addr, stop));
    }
    replicas
}

#[tokio::test]
async fn a_dpop_proof_one_replica_accepted_is_refused_by_the_others() {
    let s = setup(|c| c).await;
    let store = Claims::default();
    let replicas = replicas(&s, &store, 2).await;
    let (a, b) = (replicas[0].0, replicas[1].0);
    let client = Prover::new();
    let token = bound_token(&s, &client);
    let dpop = |proof: &str| dpop_auth(&token, proof);
    let send = |addr: SocketAddr, auth: String| async move { echo_with(addr, &auth).await };
    let proof = client.proof("POST", &s.audience, &token, "j1", now());
    let (status, _, body) = send(a, dpop(&proof)).await;
    assert_eq!(status, 200, "{body}");
    // Replayed to the other replica, which never saw it: refused through the store.
    let (status, challenges, _) = send(b, dpop(&proof)).await;
    assert_eq!(status, 401);
    let expected = format!(r#"DPoP error="invalid_token", resource_metadata="{}""#, metadata_url(s.addr));
    assert!(challenges.contains(&expected), "{challenges:?}");
    // Claimed for as long as it could be replayed: its lifetime and the leeway, twice at most.
    let kept = store.keys.lock().unwrap().get(&format!("dpop:{}:j1", client.thumbprint())).copied();
    let window = mcp_sansio_http::jwt::DEFAULT_DPOP_PROOF_LIFETIME + mcp_sansio_http::jwt::DEFAULT_LEEWAY;
    assert!(kept.is_some_and(|ttl| ttl >= window - Duration::from_secs(2) && ttl <= 2 * window), "{kept:?}");
    // A fresh proof passes on either replica.
    assert_eq!(send(b, dpop(&client.proof("POST", &s.audience, &token, "j2", now()))).await.0, 200);
    // A store that does not answer: 503 within the store timeout, not a proof accepted unclaimed.
    store.down.store(true, Ordering::SeqCst);
    let (status, _, body) = send(a, dpop(&client.proof("POST", &s.audience, &token, "j3", now()))).await;
    assert_eq!(status, 503, "{body}");
    // A bearer token carries no proof: nothing to claim.
    assert_eq!(call(a, Some(&s.signer.sign(&claims(&s.audience)))).await.0, 200);
}
