//! One exchange: a POSTed message and the answer read back (a JSON body or an SSE stream, resumed
//! when a legacy one ends early), and the legacy session's standalone GET stream.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper::{Method, Response};
use mcp_sansio::frame::SseDecoder;
use mcp_sansio::http::client::{
    EventStream, Failure, ListenEnd, PostContext, ResponseBody, answers, falls_back_to_http_sse, listen_headers,
    read_response, reopen_after, resume_after, session_expired, session_id, write_anonymous_error, write_failure,
};
use mcp_sansio::http::name;
use mcp_sansio::json::{self, JsonWriter};
use mcp_sansio::jsonrpc::{Id, ParsedMessage};
use mcp_sansio::version::ProtocolVersion;
use tokio::sync::{mpsc, oneshot};

use super::target::Target;
use super::{BUFFER, Header, Input};

/// The JSON text of a request id.
pub(super) fn id_text(id: Id<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; 32 + id_len(id)];
    let mut w = JsonWriter::new(&mut buf);
    id.write(&mut w);
    w.written().to_vec()
}

fn id_len(id: Id<'_>) -> usize {
    match id {
        Id::Number(_) => 0,
        Id::String(s) => s.raw().len(),
    }
}

/// The error answer for the request `id` whose exchange failed.
pub(super) fn failure(id: Id<'_>, why: Failure) -> Vec<u8> {
    let mut buf = vec![0u8; 160 + id_len(id)];
    let mut w = JsonWriter::new(&mut buf);
    write_failure(&mut w, id, why);
    w.written().to_vec()
}

/// One POST and its answer.
pub(super) struct Exchange {
    pub(super) target: Arc<Target>,
    pub(super) inputs: mpsc::Sender<Input>,
    /// The JSON text of the request's id, for a request.
    pub(super) request: Option<Vec<u8>>,
    pub(super) opens_session: bool,
    /// The era and legacy session when it was sent: what resuming its stream needs.
    pub(super) version: Option<ProtocolVersion>,
    pub(super) session: Option<Vec<u8>>,
    /// Where an HTTP+SSE session takes its messages (the answers come on its stream).
    pub(super) http_sse: Option<String>,
}

impl Exchange {
    pub(super) async fn run(self, headers: Vec<Header>, body: Bytes) {
        let path = self.http_sse.as_deref().unwrap_or(&self.target.path);
        let answered = match self.target.send_to(path, Method::POST, &headers, body.clone()).await {
            // `initialize` refused with a 4xx: perhaps a 2024-11-05 HTTP+SSE server. When the
            // server offers no HTTP+SSE stream, the refusal is read as any answer.
            Ok((response, sender))
                if self.opens_session
                    && self.http_sse.is_none()
                    && falls_back_to_http_sse(response.status().as_u16()) =>
            {
                match self.http_sse(&headers, body).await {
                    Some(answered) => answered,
                    None => self.read(response, sender).await,
                }
            }
            Ok((response, sender)) => self.read(response, sender).await,
            Err(error) => {
                tracing::debug!(%error, "POST failed");
                Err(Failure::Connection)
            }
        };
        if let Some(request) = &self.request {
            if let Err(why) = answered
                && let Ok(value) = json::parse(request, 4)
                && let Some(id) = Id::from_value(value)
            {
                let _ = self.inputs.send(Input::Message(failure(id, why))).await;
            }
            let _ = self.inputs.send(Input::Finished(request.clone())).await;
        }
    }

    /// Reads the answer; `Ok` when the request (if any) was answered.
    pub(super) async fn read(
        &self,
        response: Response<Incoming>,
        sender: SendRequest<Full<Bytes>>,
    ) -> Result<(), Failure> {
        if self.opens_session
            && let Some(id) = response.headers().get(name::SESSION_ID).and_then(|v| session_id(v.as_bytes()))
        {
            let _ = self.inputs.send(Input::Session(id.to_vec())).await;
        }
        let content_type = response.headers().get(name::CONTENT_TYPE).map(|v| v.as_bytes().to_vec());
        let plan = read_response(response.status().as_u16(), content_type.as_deref());
        if let ResponseBody::Failed { status, .. } = plan {
            self.check_session(status).await;
        }
        // An HTTP+SSE session's answers come on its stream: a POST taken is all there is.
        let taken = self.http_sse.is_some() && response.status().is_success();
        let mut answered = self.request.is_none() || taken;
        let result = match plan {
            ResponseBody::Json | ResponseBody::Failed { json: true, .. } => {
                match Limited::new(response.into_body(), BUFFER).collect().await {
                    Ok(body) => {
                        let body = body.to_bytes().to_vec();
                        let answers_request = self.answers(&body);
                        // An error status's body is fed only as the answer it is (an error
                        // without an id is this POST's request's).
                        if matches!(plan, ResponseBody::Json) || answers_request {
                            answered |= answers_request;
                            let _ = self.inputs.send(Input::Message(body)).await;
                        } else if let Some(answer) = self.anonymous_error(&body) {
                            answered = true;
                            let _ = self.inputs.send(Input::Message(answer)).await;
                        }
                        self.target.release(sender);
                        Ok(())
                    }
                    Err(_) => Err(Failure::Ended),
                }
            }
            ResponseBody::EventStream => self.read_events(response.into_body(), sender, &mut answered).await,
            _ => {
                // Nothing to read (or nothing worth reading): drain what there is, then reuse.
                if Limited::new(response.into_body(), BUFFER).collect().await.is_ok() {
                    self.target.release(sender);
                }
                Ok(())
            }
        };
        match (result, plan) {
            _ if answered => Ok(()),
            (Err(why), _) => Err(why),
            (Ok(()), ResponseBody::Failed { status, .. }) => Err(Failure::Status(status)),
            (Ok(()), ResponseBody::Unusable) => Err(Failure::ContentType),
            (Ok(()), _) => Err(Failure::Ended),
        }
    }

    /// Feeds each message of an SSE answer as it comes; a legacy stream that ends before the
    /// answer is resumed as [`resume_after`] says, each time with a `GET` from its last event id,
    /// until the answer came (the resumed stream is then dropped) or the rule gives up.
    pub(super) async fn read_events(
        &self,
        body: Incoming,
        sender: SendRequest<Full<Bytes>>,
        answered: &mut bool,
    ) -> Result<(), Failure> {
        let mut stream = EventStream::new();
        let read = feed_events(body, &mut stream, &self.inputs, |message| {
            *answered |= self.answers(message);
            false
        })
        .await;
        if read.is_ok() {
            self.target.release(sender);
        }
        if *answered || self.request.is_none() {
            return read.map(drop);
        }
        let context = PostContext { version: self.version, session_id: self.session.as_deref() };
        let (mut end, mut failures) = (ListenEnd::Ended, 0);
        while let Some(delay) = resume_after(context, end, &stream, failures) {
            tokio::time::sleep(Duration::from_millis(delay.as_millis())).await;
            let mut headers = Vec::new();
            listen_headers(context, stream.last_event_id(), &mut |name, value| {
                headers.push((Cow::Borrowed(name), value.to_vec()))
            });
            let from = stream.last_event_id().map(<[u8]>::to_vec);
            match self.target.send(Method::GET, &headers, Bytes::new()).await {
                Ok((response, sender)) => {
                    let status = response.status().as_u16();
                    let content_type = response.headers().get(name::CONTENT_TYPE).map(|v| v.as_bytes().to_vec());
                    if read_response(status, content_type.as_deref()) != ResponseBody::EventStream {
                        end = ListenEnd::Status(status);
                        continue;
                    }
                    tracing::debug!(from = ?from.as_deref().map(String::from_utf8_lossy), "request stream resumed");
                    let read = feed_events(response.into_body(), &mut stream, &self.inputs, |message| {
                        *answered |= self.answers(message);
                        *answered
                    })
                    .await;
                    if *answered {
                        return Ok(());
                    }
                    if read == Ok(false) {
                        self.target.release(sender);
                    }
                    end = ListenEnd::Ended;
                }
                Err(error) => {
                    tracing::debug!(%error, "GET resuming a request stream failed");
                    end = ListenEnd::Connection;
                }
            }
            // An attempt that brought no new event is a failure.
            failures = if stream.last_event_id() != from.as_deref() { 0 } else { failures + 1 };
        }
        read.map(drop)
    }

    /// Tells the engine's task when `status` says the session this exchange was sent in ended.
    async fn check_session(&self, status: u16) {
        let context = PostContext { version: self.version, session_id: self.session.as_deref() };
        if let Some(session) = &self.session
            && session_expired(status, context)
        {
            let _ = self.inputs.send(Input::SessionEnded(session.clone())).await;
        }
    }

    /// An error without an id in `body` as the answer to this exchange's request
    /// ([`write_anonymous_error`]).
    fn anonymous_error(&self, body: &[u8]) -> Option<Vec<u8>> {
        let request = json::parse(self.request.as_deref()?, 4).ok().and_then(Id::from_value)?;
        let mut buf = vec![0u8; body.len() + 64];
        let mut w = JsonWriter::new(&mut buf);
        let written = write_anonymous_error(&mut w, &ParsedMessage::parse(body, json::MAX_DEPTH_LIMIT), request);
        (written && !w.is_overflowed()).then(|| w.written().to_vec())
    }

    /// Whether `message` is the answer to this exchange's request.
    pub(super) fn answers(&self, message: &[u8]) -> bool {
        let Some(request) = &self.request else { return false };
        let Some(id) = json::parse(request, 4).ok().and_then(Id::from_value) else { return false };
        answers(&ParsedMessage::parse(message, json::MAX_DEPTH_LIMIT), id)
    }
}

/// Feeds each message of an SSE body to the engine as it comes (calling `seen` with it first),
/// keeping the stream's last event id and `retry` in `stream`, until the body ends (`Ok(false)`)
/// or `seen` returns `true` (`Ok(true)`: the rest is not read, the connection cannot be reused).
/// `Err` when the body broke.
async fn feed_events(
    body: Incoming,
    stream: &mut EventStream,
    inputs: &mpsc::Sender<Input>,
    mut seen: impl FnMut(&[u8]) -> bool,
) -> Result<bool, Failure> {
    let mut sse = SseBody::new(body);
    loop {
        while let Some(event) = sse.decoder.next_event() {
            match event {
                Ok(event) => {
                    if let Some(message) = stream.read(&event) {
                        let stop = seen(message);
                        let _ = inputs.send(Input::Message(message.to_vec())).await;
                        if stop {
                            return Ok(true);
                        }
                    }
                }
                Err(error) => tracing::warn!(%error, "SSE event dropped"),
            }
        }
        if !sse.more().await? {
            return Ok(false);
        }
    }
}

/// An SSE body being decoded: drain [`SseBody::decoder`]'s events, then ask for [`SseBody::more`].
pub(super) struct SseBody {
    body: Incoming,
    pub(super) decoder: SseDecoder<'static>,
    /// Bytes read and not yet taken by the decoder (its buffer was full).
    pending: Bytes,
}

impl SseBody {
    pub(super) fn new(body: Incoming) -> Self {
        SseBody { body, decoder: SseDecoder::with_storage(vec![0u8; BUFFER].into_boxed_slice()), pending: Bytes::new() }
    }

    /// Gives the decoder more of the body: `Ok(false)` once it ended, `Err` when it broke.
    pub(super) async fn more(&mut self) -> Result<bool, Failure> {
        while self.pending.is_empty() {
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.pending = data;
                    }
                }
                Some(Err(error)) => {
                    tracing::debug!(%error, "SSE stream broke");
                    return Err(Failure::Ended);
                }
                None => {
                    if let Some(error) = self.decoder.finish() {
                        tracing::debug!(%error, "SSE stream ended inside an event");
                    }
                    return Ok(false);
                }
            }
        }
        let taken = self.decoder.push(&self.pending);
        let _ = self.pending.split_to(taken);
        Ok(true)
    }
}

/// The legacy standalone stream: opened with `GET`, reopened (resuming from its last event id)
/// when it ends, as [`reopen_after`] says; its messages go to the engine. `opened` is told once
/// the first `GET` is answered (or failed).
pub(super) async fn listen(
    target: Arc<Target>,
    inputs: mpsc::Sender<Input>,
    version: Option<mcp_sansio::version::ProtocolVersion>,
    session: Option<Vec<u8>>,
    opened: oneshot::Sender<()>,
) {
    let mut opened = Some(opened);
    let context = PostContext { version, session_id: session.as_deref() };
    let mut stream = EventStream::new();
    let mut failures = 0;
    loop {
        let mut headers = Vec::new();
        listen_headers(context, stream.last_event_id(), &mut |name, value| {
            headers.push((Cow::Borrowed(name), value.to_vec()))
        });
        let sent = target.send(Method::GET, &headers, Bytes::new()).await;
        if let Some(opened) = opened.take() {
            let _ = opened.send(());
        }
        let end = match sent {
            Ok((response, sender)) => {
                let status = response.status().as_u16();
                let content_type = response.headers().get(name::CONTENT_TYPE).map(|v| v.as_bytes().to_vec());
                match read_response(status, content_type.as_deref()) {
                    ResponseBody::EventStream => {
                        failures = 0;
                        if feed_events(response.into_body(), &mut stream, &inputs, |_| false).await == Ok(false) {
                            target.release(sender);
                        }
                        ListenEnd::Ended
                    }
                    _ => {
                        if let Some(session) = &session
                            && session_expired(status, context)
                        {
                            let _ = inputs.send(Input::SessionEnded(session.clone())).await;
                        }
                        ListenEnd::Status(status)
                    }
                }
            }
            Err(error) => {
                tracing::debug!(%error, "GET of the standalone stream failed");
                failures += 1;
                ListenEnd::Connection
            }
        };
        match reopen_after(end, &stream, failures) {
            Some(delay) => tokio::time::sleep(Duration::from_millis(delay.as_millis())).await,
            None => {
                tracing::debug!(?end, "no standalone stream");
                return;
            }
        }
    }
}
