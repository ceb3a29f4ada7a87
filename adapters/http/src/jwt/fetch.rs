//! `GET` of the JWKS document: one bounded request ([`crate::fetch`]); only a 200 answer counts.

use std::io;
use std::time::Duration;

use bytes::Bytes;
use hyper::Method;

/// The body of `GET url` if the answer is 200, read up to `limit` bytes, within `timeout`.
pub(super) async fn get(url: &str, limit: usize, timeout: Duration) -> io::Result<Bytes> {
    let accept = [("accept", "application/jwk-set+json, application/json".to_owned())];
    let fetched = crate::fetch::fetch(url, Method::GET, &accept, Bytes::new(), limit, timeout).await?;
    if fetched.status != 200 {
        return Err(io::Error::other(format!("JWKS {url}: HTTP {}", fetched.status)));
    }
    Ok(fetched.body)
}
