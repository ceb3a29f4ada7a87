//! The authorization flow's own HTTP requests (metadata, registration, token), to any origin,
//! each on a new connection, bounded in size and time.

use std::borrow::Cow;
use std::io;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::Method;

use crate::client::target::Target;

/// Longest metadata document, registration or token response read.
pub const MAX_AUTH_RESPONSE: usize = 64 * 1024;
/// How long one request of the authorization flow may take.
pub const AUTH_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A response of the flow: status, the `Location` and `WWW-Authenticate` headers, the body.
#[derive(Debug)]
pub(crate) struct Fetched {
    pub(crate) status: u16,
    pub(crate) location: Option<String>,
    pub(crate) body: Bytes,
}

impl Fetched {
    /// The body as JSON of type `T`, if the status is a success.
    pub(crate) fn json<T: serde::de::DeserializeOwned>(&self) -> io::Result<T> {
        if !(200..300).contains(&self.status) {
            return Err(io::Error::other(format!("HTTP {}: {}", self.status, String::from_utf8_lossy(&self.body))));
        }
        serde_json::from_slice(&self.body).map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
    }
}

/// `method` on the absolute `url` with `headers` and `body`.
pub(crate) async fn fetch(
    url: &str,
    method: Method,
    headers: &[(&'static str, String)],
    body: Bytes,
) -> io::Result<Fetched> {
    let target = Target::parse(url, None)?;
    let headers: Vec<(Cow<'static, str>, Vec<u8>)> =
        headers.iter().map(|(name, value)| (Cow::Borrowed(*name), value.as_bytes().to_vec())).collect();
    let exchange = async {
        let (response, _connection) = target.send_once(&target.path, method, &headers, None, body).await?;
        let status = response.status().as_u16();
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = Limited::new(response.into_body(), MAX_AUTH_RESPONSE).collect().await.map_err(|error| {
            match error.downcast_ref::<http_body_util::LengthLimitError>() {
                Some(_) => io::Error::new(
                    io::ErrorKind::FileTooLarge,
                    format!("{url} answered more than {MAX_AUTH_RESPONSE} bytes"),
                ),
                None => io::Error::new(io::ErrorKind::InvalidData, error),
            }
        })?;
        let body = body.to_bytes();
        Ok(Fetched { status, location, body })
    };
    tokio::time::timeout(AUTH_REQUEST_TIMEOUT, exchange)
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, format!("no answer from {url} in time")))?
}

/// `GET url` accepting JSON.
pub(crate) async fn get(url: &str) -> io::Result<Fetched> {
    fetch(url, Method::GET, &[("accept", "application/json".to_owned())], Bytes::new()).await
}

/// `POST url` with a form body (and `authorization`, if given).
pub(crate) async fn post_form(url: &str, form: String, authorization: Option<String>) -> io::Result<Fetched> {
    let mut headers = vec![
        ("content-type", "application/x-www-form-urlencoded".to_owned()),
        ("accept", "application/json".to_owned()),
    ];
    if let Some(authorization) = authorization {
        headers.push(("authorization", authorization));
    }
    fetch(url, Method::POST, &headers, Bytes::from(form)).await
}

/// `POST url` with a JSON body.
pub(crate) async fn post_json(url: &str, body: &serde_json::Value) -> io::Result<Fetched> {
    let headers = [("content-type", "application/json".to_owned()), ("accept", "application/json".to_owned())];
    fetch(url, Method::POST, &headers, Bytes::from(body.to_string())).await
}
