//! `GET` of the JWKS document: one request on a new HTTP/1.1 connection (TLS with the `tls`
//! feature), bounded in size and time.

use std::io;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper::Request;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;

/// The body of `GET url` if the answer is 200, read up to `limit` bytes, within `timeout`.
pub(super) async fn get(url: &str, limit: usize, timeout: Duration) -> io::Result<Bytes> {
    tokio::time::timeout(timeout, get_unbounded(url, limit))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, format!("no JWKS from {url} in time")))?
}

async fn get_unbounded(url: &str, limit: usize) -> io::Result<Bytes> {
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, format!("{what}: {url}"));
    let (scheme, rest) = url.split_once("://").ok_or_else(|| invalid("not an absolute URL"))?;
    let secure = scheme.eq_ignore_ascii_case("https");
    if !secure && !scheme.eq_ignore_ascii_case("http") {
        return Err(invalid("not an http(s) URL"));
    }
    let rest = rest.split('#').next().unwrap_or_default();
    let (authority, path) = match rest.find(['/', '?']) {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    let path = if path.starts_with('?') { format!("/{path}") } else { path.to_owned() };
    if authority.is_empty() || authority.contains('@') {
        return Err(invalid("no host, or user information"));
    }
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = v6.split_once(']').ok_or_else(|| invalid("unclosed IPv6 address"))?;
            (host, after.strip_prefix(':'))
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    let port = match port {
        Some(port) => port.parse().map_err(|_| invalid("bad port"))?,
        None if secure => 443,
        None => 80,
    };
    let request = Request::get(path)
        .header("host", authority)
        .header("accept", "application/jwk-set+json, application/json")
        .body(Empty::<Bytes>::new())
        .map_err(io::Error::other)?;
    let stream = tokio::net::TcpStream::connect((host, port)).await?;
    let response = if secure {
        #[cfg(feature = "tls")]
        {
            let name = tokio_rustls::rustls::pki_types::ServerName::try_from(host.to_owned())
                .map_err(|_| invalid("not a host name for TLS"))?;
            let stream = tokio_rustls::TlsConnector::from(tls_client()).connect(name, stream).await?;
            send(stream, request).await?
        }
        #[cfg(not(feature = "tls"))]
        return Err(io::Error::new(io::ErrorKind::Unsupported, "an https JWKS URL needs the `tls` feature"));
    } else {
        send(stream, request).await?
    };
    if response.status() != hyper::StatusCode::OK {
        return Err(io::Error::other(format!("JWKS {url}: HTTP {}", response.status().as_u16())));
    }
    let body = Limited::new(response.into_body(), limit)
        .collect()
        .await
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))?;
    Ok(body.to_bytes())
}

/// Sends `request` on a new connection over `stream`.
async fn send<S>(stream: S, request: Request<Empty<Bytes>>) -> io::Result<hyper::Response<hyper::body::Incoming>>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let (mut sender, connection) = http1::handshake(TokioIo::new(stream)).await.map_err(io::Error::other)?;
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            tracing::debug!(%error, "JWKS connection ended with an error");
        }
    });
    sender.send_request(request).await.map_err(io::Error::other)
}

/// Mozilla's roots (`webpki-roots`), rustls' safe defaults on `ring`.
#[cfg(feature = "tls")]
fn tls_client() -> std::sync::Arc<tokio_rustls::rustls::ClientConfig> {
    use tokio_rustls::rustls;
    let roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring's default provider supports the safe default versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    std::sync::Arc::new(config)
}
