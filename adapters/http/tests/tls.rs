//! `client::connect_with_tls` and `client::connect` over `https://`: the example device's
//! endpoint behind a TLS front (rustls, the self-signed certificate in `tests/tls/`, for
//! `localhost` and 127.0.0.1, valid until 2126).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use http_body_util::BodyExt;
use hyper::Request;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use mcp_example_device::{Device, FixedBoard};
use mcp_sansio::client::{self, EraPolicy};
use mcp_sansio::server::Config;
use mcp_sansio::version::ProtocolVersion;
use mcp_sansio_driver::host::{Host, RequestError};
use mcp_sansio_http::client::rustls::pki_types::pem::PemObject;
use mcp_sansio_http::client::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use mcp_sansio_http::client::{connect, connect_with_tls, rustls};
use mcp_sansio_http::{HttpConfig, McpHttp};

const CERT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tls/cert.pem");
const KEY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tls/key.pem");

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The example device over https on `ip`; its URL, and how many TLS handshakes failed.
async fn start(ip: &str) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind((ip, 0)).await.unwrap();
    let failed = Arc::new(AtomicUsize::new(0));
    let failures = failed.clone();
    let addr = listener.local_addr().unwrap();
    let endpoint = McpHttp::new(Device::new(FixedBoard), HttpConfig::new(Config::new("mcp-device", "0.1.0"), addr));
    let certs = vec![CertificateDer::from_pem_file(CERT).unwrap()];
    let key = PrivateKeyDer::from_pem_file(KEY).unwrap();
    let tls = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (acceptor, endpoint, failures) = (acceptor.clone(), endpoint.clone(), failures.clone());
            tokio::spawn(async move {
                // A client that does not trust the certificate ends the handshake.
                let Ok(stream) = acceptor.accept(stream).await else {
                    failures.fetch_add(1, Ordering::SeqCst);
                    return;
                };
                let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                    let mut endpoint = endpoint.clone();
                    async move {
                        let (parts, body) = request.into_parts();
                        let body = http_body_util::Full::new(body.collect().await.unwrap().to_bytes());
                        let response =
                            tower_service::Service::call(&mut endpoint, Request::from_parts(parts, body)).await;
                        Ok::<_, Infallible>(response.unwrap())
                    }
                });
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    (format!("https://{addr}/mcp"), failed)
}

/// A TLS client that trusts the test certificate only.
fn trusting() -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from_pem_file(CERT).unwrap()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(config)
}

fn config(era: EraPolicy) -> client::Config<'static> {
    client::Config::new("https-test", "1.0.0").with_era(era)
}

#[tokio::test]
async fn https_servers_are_reached_in_both_eras() {
    let (url, failed) = start("127.0.0.1").await;
    for (era, version) in
        [(EraPolicy::Auto, ProtocolVersion::V2026_07_28), (EraPolicy::Legacy, ProtocolVersion::V2025_11_25)]
    {
        let client = connect_with_tls(&url, config(era), Host::new(), trusting()).unwrap();
        assert_eq!(client.connect().await.unwrap().version, version);
        let echoed = client.call_tool("echo", r#"{"message":"over tls"}"#).await.unwrap();
        let echoed: serde_json::Value = serde_json::from_slice(&echoed).unwrap();
        assert_eq!(echoed["content"][0]["text"], "over tls", "{era:?}");
        client.close().await.unwrap();
    }
    assert_eq!(failed.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_untrusted_certificate_fails_the_connection() {
    let (url, failed) = start("127.0.0.1").await;
    // Mozilla's roots do not include the self-signed test certificate.
    let client = connect(&url, config(EraPolicy::Legacy), Host::new()).unwrap();
    let error = client.connect().await.unwrap_err();
    assert!(matches!(error, RequestError::Connect(_)), "{error:?}");
    assert_eq!(handshake_failures(&failed).await, 1, "refused in the TLS handshake");
    // Nor does a certificate for another name pass: the test one names localhost and 127.0.0.1.
    let (other, failed) = start("127.0.0.2").await;
    let client = connect_with_tls(&other, config(EraPolicy::Legacy), Host::new(), trusting()).unwrap();
    assert!(matches!(client.connect().await, Err(RequestError::Connect(_))));
    assert_eq!(handshake_failures(&failed).await, 1, "refused in the TLS handshake");
}

/// The count of failed handshakes, once the server has seen the client's alert (at most 2 s).
async fn handshake_failures(failed: &AtomicUsize) -> usize {
    for _ in 0..200 {
        if failed.load(Ordering::SeqCst) > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    failed.load(Ordering::SeqCst)
}
