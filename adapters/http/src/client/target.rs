//! [`Target`]: the endpoint's address, and a small pool of HTTP/1.1 connections to it.

use std::io;
use std::sync::{Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;

use super::{Header, MAX_IDLE_CONNECTIONS};

/// The endpoint, and the idle connections to it.
pub(super) struct Target {
    /// `host[:port]` as given, for `Host`.
    pub(super) authority: String,
    /// The host to connect to (without IPv6 brackets).
    pub(super) host: String,
    pub(super) port: u16,
    /// The path and query, for the request line.
    pub(super) path: String,
    pub(super) idle: Mutex<Vec<SendRequest<Full<Bytes>>>>,
}

impl Target {
    /// Reads `http://authority/path`.
    pub(super) fn parse(url: &str) -> io::Result<Target> {
        let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, format!("{what}: {url}"));
        let scheme_end = url.find("://").ok_or_else(|| invalid("not an absolute URL"))?;
        let scheme = &url[..scheme_end];
        if scheme.eq_ignore_ascii_case("https") {
            return Err(io::Error::new(io::ErrorKind::Unsupported, "https is not supported yet; use http://"));
        }
        if !scheme.eq_ignore_ascii_case("http") {
            return Err(invalid("not an http URL"));
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
            None => 80,
        };
        Ok(Target { authority: authority.to_owned(), host: host.to_owned(), port, path, idle: Mutex::new(Vec::new()) })
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
        let (sender, connection) = http1::handshake(TokioIo::new(stream)).await.map_err(io::Error::other)?;
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "HTTP connection ended with an error");
            }
        });
        Ok(sender)
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

    /// [`Target::send`] to another path (and query) of the same origin.
    pub(super) async fn send_to(
        &self,
        path: &str,
        method: Method,
        headers: &[Header],
        body: Bytes,
    ) -> io::Result<(Response<Incoming>, SendRequest<Full<Bytes>>)> {
        let mut request = Request::builder().method(method).uri(path).header("host", &self.authority);
        for (name, value) in headers {
            request = request.header(name.as_ref(), value.as_slice());
        }
        let request = request.body(Full::new(body)).map_err(io::Error::other)?;
        let (mut sender, reused) = self.sender().await?;
        match sender.try_send_request(request).await {
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
        }
    }
}
