//! The fallback to the deprecated 2024-11-05 HTTP+SSE transport, for a server that answered the
//! POSTed `initialize` with a 4xx ([`falls_back_to_http_sse`](mcp_sansio::http::client::falls_back_to_http_sse)): its stream, opened with `GET` on the
//! same URL, carries the whole session, and the exchange of `initialize` reads it until it ends.

use std::borrow::Cow;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::Method;
use mcp_sansio::http::client::{
    EventStream, Failure, HTTP_SSE_ACCEPT, MAX_ENDPOINT_LEN, ResponseBody, endpoint_event, read_response,
    resolve_endpoint,
};
use mcp_sansio::http::name;

use super::exchange::{Exchange, SseBody};
use super::{BUFFER, Header, Input};

impl Exchange {
    /// Opens the server's HTTP+SSE stream, POSTs `initialize` (`body`, with `headers`) to the
    /// endpoint it names, and feeds every message of the stream to the engine until it ends (the
    /// session is over then). `None` when the server offers no such
    /// stream (the POST's failure stands); otherwise whether `initialize` was answered.
    pub(super) async fn http_sse(&self, headers: &[Header], body: Bytes) -> Option<Result<(), Failure>> {
        let accept = [(Cow::Borrowed(name::ACCEPT), HTTP_SSE_ACCEPT.as_bytes().to_vec())];
        let (response, _) = self.target.send(Method::GET, &accept, Bytes::new()).await.ok()?;
        let content_type = response.headers().get(name::CONTENT_TYPE).map(|v| v.as_bytes().to_vec());
        if read_response(response.status().as_u16(), content_type.as_deref()) != ResponseBody::EventStream {
            return None;
        }
        let mut sse = SseBody::new(response.into_body());
        // The first event names where to POST; a stream without one is not HTTP+SSE.
        let path = 'endpoint: loop {
            while let Some(event) = sse.decoder.next_event() {
                let Some(uri) = event.ok().as_ref().and_then(endpoint_event) else { continue };
                let mut path = vec![0u8; MAX_ENDPOINT_LEN + 1];
                let (scheme, authority, base) = (self.target.scheme, &self.target.authority, &self.target.path);
                match resolve_endpoint(scheme, authority, base, uri, &mut path) {
                    Ok(len) => {
                        path.truncate(len);
                        // Visible ASCII (checked by `resolve_endpoint`).
                        break 'endpoint String::from_utf8(path).ok()?;
                    }
                    Err(error) => {
                        tracing::warn!(%error, uri = %String::from_utf8_lossy(uri), "HTTP+SSE endpoint refused");
                        return None;
                    }
                }
            }
            if !sse.more().await.ok()? {
                return None;
            }
        };
        tracing::debug!(%path, "2024-11-05 HTTP+SSE transport");
        let _ = self.inputs.send(Input::HttpSse(path.clone())).await;
        match self.target.send_to(&path, Method::POST, headers, body).await {
            Ok((response, sender)) if response.status().is_success() => {
                if Limited::new(response.into_body(), BUFFER).collect().await.is_ok() {
                    self.target.release(sender);
                }
            }
            // `initialize` fails with it (the connection with it).
            Ok((response, _)) => return Some(Err(Failure::Status(response.status().as_u16()))),
            Err(_) => return Some(Err(Failure::Connection)),
        }
        // The session: every message of the server comes on this stream.
        let (mut stream, mut answered) = (EventStream::new(), false);
        loop {
            while let Some(event) = sse.decoder.next_event() {
                match event {
                    Ok(event) => {
                        if let Some(message) = stream.read(&event) {
                            answered |= self.answers(message);
                            let _ = self.inputs.send(Input::Message(message.to_vec())).await;
                        }
                    }
                    Err(error) => tracing::warn!(%error, "SSE event dropped"),
                }
            }
            if !matches!(sse.more().await, Ok(true)) {
                break;
            }
        }
        tracing::debug!("HTTP+SSE stream ended: the session is over");
        let _ = self.inputs.send(Input::HttpSseEnded).await;
        Some(if answered { Ok(()) } else { Err(Failure::Ended) })
    }
}
