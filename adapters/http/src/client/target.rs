//! [`Target`]: the endpoint's address, and a small pool of HTTP/1.1 connections to it.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;

use super::{Header, MAX_IDLE_CONNECTIONS};

/// The endpoint, and the idle connections to it.
pub(crate) struct Target {
    /// `http` or `https`.
    pub(super) scheme: &'static str,
    /// With `https`: the TLS client, and the name the server's certificate must carry.
    #[cfg(feature = "tls")]
    pub(super) tls: Option<(tokio_rustls::TlsConnector, tokio_rustls::rustls::pki_types::ServerName<'static>)>,
    /// `host[:port]` as given, for `Host`.
    pub(super) authority: String,
    /// The host to connect to (without IPv6 brackets).
    pub(super) host: String,
    pub(super) port: u16,
    /// The path and query, for the request line.
    pub(crate) path: String,
    pub(super) idle: Mutex<Vec<SendRequest<Full<Bytes>>>>,
    /// An HTTP response came from the server.
    pub(super) reached: AtomicBool,
    /// OAuth for the endpoint's requests, and the endpoint's URL its tokens are kept under.
    #[cfg(feature = "oauth")]
    pub(super) auth: Option<(std::sync::Arc<super::oauth::OAuth>, String)>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("scheme", &self.scheme)
            .field("authority", &self.authority)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Target {
    /// Reads `http://authority/path` (or `https://…`, with `tls` the client to use).
    pub(crate) fn parse(url: &str, tls: Option<Tls>) -> io::Result<Target> {
        let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, format!("{what}: {url}"));
        let scheme_end = url.find("://").ok_or_else(|| invalid("not an absolute URL"))?;
        let scheme = &url[..scheme_end];
        let secure = scheme.eq_ignore_ascii_case("https");
        if !secure && !scheme.eq_ignore_ascii_case("http") {
            return Err(invalid("not an http URL"));
        }
        #[cfg(not(feature = "tls"))]
        if secure {
            let _ = tls;
            return Err(io::Error::new(io::ErrorKind::Unsupported, "https needs the `tls` feature of mcp-sansio-http"));
        }
        let rest = &url[scheme_end + 3..];
        let (authority, path) = match rest.find(['/', '?']) {
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, "/"),
        };
        let path = if path.starts_with('?') { format!("/{path}") } else { path.to_owned() };
        let path = path.split('#').next().unwrap_or("/").to_owned();
        if authority.is_empty() || authority.contains('@') {
            return Err(invalid("no host, or user information (not supported)"));
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
        #[cfg(feature = "tls")]
        let tls = match secure {
            true => {
                let name = tokio_rustls::rustls::pki_types::ServerName::try_from(host.to_owned())
                    .map_err(|_| invalid("not a host name for TLS"))?;
                let config = tls.unwrap_or_else(default_tls);
                Some((tokio_rustls::TlsConnector::from(config), name))
            }
            false => None,
        };
        Ok(Target {
            scheme: if secure { "https" } else { "http" },
            #[cfg(feature = "tls")]
            tls,
            authority: authority.to_owned(),
            host: host.to_owned(),
            port,
            path,
            idle: Mutex::new(Vec::new()),
            reached: AtomicBool::new(false),
            #[cfg(feature = "oauth")]
            auth: None,
        })
    }

    /// An idle connection that can take a request (`true`: reused), or a new one.
    pub(super) async fn sender(&self) -> io::Result<(SendRequest<Full<Bytes>>, bool)> {
        loop {
            let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
            let Some(mut sender) = idle else { break };
            if !sender.is_closed() && sender.ready().await.is_ok() {
                return Ok((sender, true));
            }
        }
        Ok((self.open().await?, false))
    }

    /// A new connection.
    pub(super) async fn open(&self) -> io::Result<SendRequest<Full<Bytes>>> {
        let stream = tokio::net::TcpStream::connect((self.host.as_str(), self.port)).await?;
        stream.set_nodelay(true)?;
        #[cfg(feature = "tls")]
        if let Some((connector, name)) = &self.tls {
            let stream = connector.connect(name.clone(), stream).await?;
            return handshake(stream).await;
        }
        handshake(stream).await
    }

    /// Keeps `sender` for another request (its last response was read to the end).
    pub(super) fn release(&self, sender: SendRequest<Full<Bytes>>) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < MAX_IDLE_CONNECTIONS && !sender.is_closed() {
            idle.push(sender);
        }
    }

    /// Sends `method` with `headers` and `body`; the response, and the connection to release once
    /// its body was read.
    pub(super) async fn send(
        &self,
        method: Method,
        headers: &[Header],
        body: Bytes,
    ) -> io::Result<(Response<Incoming>, SendRequest<Full<Bytes>>)> {
        self.send_to(&self.path, method, headers, body).await
    }

    /// [`Target::send`] to another path (and query) of the same origin; with OAuth, with the
    /// endpoint's token, and again after a `401` or `403` its flow answered with a new one.
    pub(super) async fn send_to(
        &self,
        path: &str,
        method: Method,
        headers: &[Header],
        body: Bytes,
    ) -> io::Result<(Response<Incoming>, SendRequest<Full<Bytes>>)> {
        #[cfg(feature = "oauth")]
        if let Some((auth, resource)) = &self.auth {
            let url = format!("{}://{}{path}", self.scheme, self.authority);
            let (mut step_ups, mut renewals) = (0, 0);
            loop {
                let presented = auth.present(resource, method.as_str(), &url)?;
                let (response, sender) =
                    self.send_once(path, method.clone(), headers, &presented.headers(), body.clone()).await?;
                let status = response.status().as_u16();
                let nonce = response.headers().get("dpop-nonce").and_then(|v| v.to_str().ok());
                let new_nonce = nonce.is_some_and(|nonce| auth.save_dpop_nonce(&url, nonce));
                // A server that refuses every new token too: the response stands (nothing retried
                // forever).
                if (status != 401 && status != 403) || renewals == super::oauth::MAX_RENEWALS {
                    return Ok((response, sender));
                }
                renewals += 1;
                let challenge = response
                    .headers()
                    .get_all("www-authenticate")
                    .iter()
                    .find_map(|v| v.to_str().ok().and_then(super::oauth::Challenge::parse))
                    .unwrap_or_default();
                // RFC 9449 §9: the token stands, the proof needs the server's new nonce.
                if status == 401 && challenge.asks_for_dpop_nonce() && presented.is_dpop() && new_nonce {
                    continue;
                }
                if !auth.renew(resource, status, &challenge, presented.token(), step_ups).await? {
                    return Ok((response, sender));
                }
                step_ups += u32::from(status == 403);
            }
        }
        self.send_once(path, method, headers, &[], body).await
    }

    /// One request, with `headers` and then `auth` (`authorization`, `dpop`).
    pub(crate) async fn send_once(
        &self,
        path: &str,
        method: Method,
        headers: &[Header],
        auth: &[(&str, &str)],
        body: Bytes,
    ) -> io::Result<(Response<Incoming>, SendRequest<Full<Bytes>>)> {
        let mut request = Request::builder().method(method).uri(path).header("host", &self.authority);
        for (name, value) in headers {
            request = request.header(name.as_ref(), value.as_slice());
        }
        for &(name, value) in auth {
            request = request.header(name, value);
        }
        let request = request.body(Full::new(body)).map_err(io::Error::other)?;
        let (mut sender, reused) = self.sender().await?;
        let sent = match sender.try_send_request(request).await {
            Ok(response) => Ok((response, sender)),
            Err(mut error) => match error.take_message() {
                // A kept connection the server had closed before the request went out: again on
                // a new one (never a request that may have been sent).
                Some(request) if reused => {
                    let mut sender = self.open().await?;
                    let response = sender.send_request(request).await.map_err(io::Error::other)?;
                    Ok((response, sender))
                }
                _ => Err(io::Error::other(error.into_error())),
            },
        };
        if sent.is_ok() {
            self.reached.store(true, Ordering::Relaxed);
        }
        sent
    }
}

/// The TLS client of `https` URLs (without the `tls` feature, there are none).
#[cfg(feature = "tls")]
pub(super) type Tls = std::sync::Arc<tokio_rustls::rustls::ClientConfig>;
/// The TLS client of `https` URLs (without the `tls` feature, there are none).
#[cfg(not(feature = "tls"))]
pub(super) type Tls = std::convert::Infallible;

/// The TLS client of [`connect`](super::connect): Mozilla's root certificates (`webpki-roots`),
/// rustls' safe defaults on `ring`, HTTP/1.1 by ALPN.
#[cfg(feature = "tls")]
fn default_tls() -> Tls {
    use tokio_rustls::rustls;
    let roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring's default provider supports the safe default versions")
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    std::sync::Arc::new(config)
}

/// An HTTP/1.1 connection over `stream`, driven on its own task.
async fn handshake<S>(stream: S) -> io::Result<SendRequest<Full<Bytes>>>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let (sender, connection) = http1::handshake(TokioIo::new(stream)).await.map_err(io::Error::other)?;
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            tracing::debug!(%error, "HTTP connection ended with an error");
        }
    });
    Ok(sender)
}
