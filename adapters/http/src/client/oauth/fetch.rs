//! The authorization flow's own HTTP requests (metadata, registration, token), to any origin,
//! each on a new connection, bounded in size and time.

use std::io;
use std::time::Duration;

use bytes::Bytes;
use hyper::Method;

pub(crate) use crate::fetch::Fetched;

impl Fetched {
    /// The body as JSON of type `T`, if the status is a success.
    pub(crate) fn json<T: serde::de::DeserializeOwned>(&self) -> io::Result<T> {
        if !(200..300).contains(&self.status) {
            return Err(io::Error::other(format!("HTTP {}: {}", self.status, String::from_utf8_lossy(&self.body))));
        }
        serde_json::from_slice(&self.body).map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
    }
}

/// Longest metadata document, registration or token response read.
pub const MAX_AUTH_RESPONSE: usize = 64 * 1024;
/// How long one request of the authorization flow may take.
pub const AUTH_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// `method` on the absolute `url`, bounded as the flow's requests are.
async fn fetch(url: &str, method: Method, headers: &[(&'static str, String)], body: Bytes) -> io::Result<Fetched> {
    crate::fetch::fetch(url, method, headers, body, MAX_AUTH_RESPONSE, AUTH_REQUEST_TIMEOUT).await
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
