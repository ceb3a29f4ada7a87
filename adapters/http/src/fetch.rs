//! One bounded HTTP request to any URL, on a new connection (TLS for `https` with the `tls`
//! feature, Mozilla's roots): the OAuth client's metadata, registration and token requests, and
//! the JWT validator's JWKS.

use std::borrow::Cow;
use std::io;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::Method;

use crate::client::target::Target;

/// A response: status, the `Location` and `DPoP-Nonce` headers, the body.
#[derive(Debug)]
pub(crate) struct Fetched {
    pub(crate) status: u16,
    /// Read by the OAuth client's headless user agent.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub(crate) location: Option<String>,
    /// A nonce for the next DPoP proof (RFC 9449 §8), read by the OAuth client.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    pub(crate) dpop_nonce: Option<String>,
    pub(crate) body: Bytes,
}

/// `method` on the absolute `url` with `headers` and `body`; the body read up to `limit` bytes
/// (more: [`io::ErrorKind::FileTooLarge`]), the whole exchange within `timeout`.
pub(crate) async fn fetch(
    url: &str,
    method: Method,
    headers: &[(&'static str, String)],
    body: Bytes,
    limit: usize,
    timeout: Duration,
) -> io::Result<Fetched> {
    let target = Target::parse(url, None)?;
    let headers: Vec<(Cow<'static, str>, Vec<u8>)> =
        headers.iter().map(|(name, value)| (Cow::Borrowed(*name), value.as_bytes().to_vec())).collect();
    let exchange = async {
        let (response, _connection) = target.send_once(&target.path, method, &headers, &[], body).await?;
        let status = response.status().as_u16();
        let header = |name| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let (location, dpop_nonce) = (header("location"), header("dpop-nonce"));
        let body = Limited::new(response.into_body(), limit).collect().await.map_err(|error| {
            match error.downcast_ref::<http_body_util::LengthLimitError>() {
                Some(_) => {
                    io::Error::new(io::ErrorKind::FileTooLarge, format!("{url} answered more than {limit} bytes"))
                }
                None => io::Error::new(io::ErrorKind::InvalidData, error),
            }
        })?;
        Ok(Fetched { status, location, dpop_nonce, body: body.to_bytes() })
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, format!("no answer from {url} in time")))?
}
