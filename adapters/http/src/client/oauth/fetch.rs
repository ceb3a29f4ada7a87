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

/// `POST url` with a form body and `headers` (`authorization`, `dpop`).
pub(crate) async fn post_form(url: &str, form: String, headers: Vec<(&'static str, String)>) -> io::Result<Fetched> {
    let mut all = vec![
        ("content-type", "application/x-www-form-urlencoded".to_owned()),
        ("accept", "application/json".to_owned()),
    ];
    all.extend(headers);
    fetch(url, Method::POST, &all, Bytes::from(form)).await
}

/// `POST url` with a JSON body.
pub(crate) async fn post_json(url: &str, body: &serde_json::Value) -> io::Result<Fetched> {
    let headers = [("content-type", "application/json".to_owned()), ("accept", "application/json".to_owned())];
    fetch(url, Method::POST, &headers, Bytes::from(body.to_string())).await
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A server on a local port answering each request `200` with a body of `len` bytes, `delay`
    /// after reading it (on tokio's clock).
    async fn server(delay: Duration, len: usize) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/metadata", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut request = [0u8; 4096];
                    let _ = stream.read(&mut request).await;
                    tokio::time::sleep(delay).await;
                    let head =
                        format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len}\r\n\r\n");
                    let _ = stream.write_all(head.as_bytes()).await;
                    let _ = stream.write_all(&vec![b' '; len]).await;
                });
            }
        });
        url
    }

    // Paused: the clock jumps to the next timer whenever both sides wait.
    #[tokio::test(start_paused = true)]
    async fn a_request_is_answered_within_auth_request_timeout_or_fails() {
        let just_in_time = AUTH_REQUEST_TIMEOUT - Duration::from_millis(1);
        let fetched = get(&server(just_in_time, 2).await).await.unwrap();
        assert_eq!((fetched.status, fetched.body.len()), (200, 2));
        let late = AUTH_REQUEST_TIMEOUT + Duration::from_millis(1);
        let error = get(&server(late, 2).await).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut, "{error}");
    }

    #[tokio::test]
    async fn a_response_of_max_auth_response_bytes_is_read_and_a_longer_one_refused() {
        let fetched = get(&server(Duration::ZERO, MAX_AUTH_RESPONSE).await).await.unwrap();
        assert_eq!(fetched.body.len(), MAX_AUTH_RESPONSE);
        let error = get(&server(Duration::ZERO, MAX_AUTH_RESPONSE + 1).await).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge, "{error}");
    }
}
