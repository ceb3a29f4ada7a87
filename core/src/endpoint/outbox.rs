//! [`Outbox`]: everything an endpoint sends, in one place: framed messages written all or nothing,
//! requests to the peer with their ids and deadlines, notifications, cancellations, and the error
//! answers to messages it cannot use.

use crate::endpoint::outbound::Entry;
use crate::endpoint::{
    Event, Framing, Limits, MIN_RESPONSE_WINDOW, OutboundKey, OutboundTable, Route, SendError, TxQueue,
};
use crate::json::{self, JsonWriter, ScanError, ScanErrorKind};
use crate::jsonrpc::{self, ErrorMessage, Id, WriteId, code};
use crate::num::Decimal;
use crate::time::Instant;

/// Whether the input has ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Eof {
    /// Input may still come.
    Open,
    /// The end was reported; what is buffered is still to be served.
    Pending,
    /// Everything was served; nothing more is read or sent.
    Done,
}

/// The sending half of an [`Endpoint`](crate::endpoint::Endpoint): the transmit queue, the table of
/// requests sent to the peer (`OUTBOUND` at once), the limits and whether the input has ended. It is
/// apart from the receive buffer so that a role can answer a received message while reading it.
pub(crate) struct Outbox<'a, const OUTBOUND: usize> {
    pub(crate) tx: TxQueue<'a>,
    pub(crate) outbound: OutboundTable<OUTBOUND>,
    pub(crate) eof: Eof,
    /// Where notifications and requests to the peer go unless a route is given.
    pub(crate) notify_route: Route,
    /// Bytes one message may take: fixed by the limits and the transmit buffer (see
    /// [`window_len`](Self::window_len)).
    window: usize,
}

impl<'a, const OUTBOUND: usize> Outbox<'a, OUTBOUND> {
    pub(crate) fn new(tx: TxQueue<'a>, limits: Limits) -> Self {
        let window = limits.max_response.min(tx.capacity()).max(MIN_RESPONSE_WINDOW.min(tx.capacity()));
        Outbox { tx, outbound: OutboundTable::new(), eof: Eof::Open, notify_route: Route::BYTE_STREAM, window }
    }

    /// Bytes one message may take in the transmit buffer: [`Limits::max_response`], clamped to the
    /// buffer and to at least [`MIN_RESPONSE_WINDOW`].
    pub(crate) fn window_len(&self) -> usize {
        self.window
    }

    /// Whether an answer to a message received on `stream` fits now: a whole window is free and the
    /// queue can take a record for the stream.
    #[inline(always)]
    pub(crate) fn has_answer_room(&self, stream: crate::endpoint::StreamId) -> bool {
        self.tx.free() >= self.window && self.window >= MIN_RESPONSE_WINDOW && self.tx.has_record_room(stream)
    }

    /// Writes one message (the closure writes it without its framing suffix) all or nothing.
    pub(crate) fn write(&mut self, route: Route, mut body: impl FnMut(&mut JsonWriter<'_>)) -> Result<(), SendError> {
        self.write_message(route, false, &mut body)
    }

    /// Writes a response that ends its stream if its route says so.
    pub(crate) fn write_ending(
        &mut self,
        route: Route,
        mut body: impl FnMut(&mut JsonWriter<'_>),
    ) -> Result<(), SendError> {
        self.write_message(route, route.ends_with_response, &mut body)
    }

    /// [`write`](Self::write) and [`write_ending`](Self::write_ending) share this body, not generic
    /// over the closure: one copy in flash instead of one per message kind.
    fn write_message(
        &mut self,
        route: Route,
        end_of_stream: bool,
        body: &mut dyn FnMut(&mut JsonWriter<'_>),
    ) -> Result<(), SendError> {
        let window = self.window_len();
        let whole_window_free = self.tx.free() >= window;
        let Some((buf, commit)) = self.tx.open(route, window) else { return Err(SendError::Full) };
        let mut w = JsonWriter::new(buf);
        body(&mut w);
        w.raw(commit.suffix());
        if w.is_overflowed() {
            return Err(if whole_window_free { SendError::TooLarge } else { SendError::Full });
        }
        commit.commit(w.len(), end_of_stream);
        Ok(())
    }

    /// Sends the notification `method` with `params` (a JSON object written by the closure) to
    /// `route`.
    pub(crate) fn notify(
        &mut self,
        route: Route,
        method: &str,
        params: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) -> Result<(), SendError> {
        if self.eof == Eof::Done {
            return Err(SendError::Closed);
        }
        if route.framing == Framing::Body {
            // A bare HTTP body carries exactly one message: the response.
            return Err(SendError::NotAvailable);
        }
        self.write(route, |w| jsonrpc::write_call(w, None, method, params))
    }

    /// Sends the request `method` with `params` to `route` under the next id, awaiting its answer
    /// until `deadline` (then it is [expired](Self::expire)). The role decides whether it may send
    /// requests at all.
    pub(crate) fn request(
        &mut self,
        route: Route,
        method: &str,
        params: Option<&dyn Fn(&mut JsonWriter<'_>)>,
        deadline: Option<Instant>,
    ) -> Result<OutboundKey, SendError> {
        if self.eof != Eof::Open {
            return Err(SendError::Closed);
        }
        if !self.outbound.has_room() {
            return Err(SendError::TooManyRequests);
        }
        let key = self.outbound.next_key();
        self.write(route, |w| jsonrpc::write_call(w, Some(&key.id()), method, params))?;
        self.outbound.insert(deadline, route).ok_or(SendError::TooManyRequests)
    }

    /// Gives up on a request sent to the peer: `notifications/cancelled` goes out (now, or once the
    /// transmit buffer has room) and a late answer is ignored. `false` if it awaits no answer.
    pub(crate) fn cancel(&mut self, key: OutboundKey) -> bool {
        let cancelled = self.outbound.cancel(key);
        self.flush_cancellations();
        cancelled
    }

    /// The next request whose deadline passed by `now`: it is marked for cancellation on the wire
    /// ([`flush_cancellations`](Self::flush_cancellations) writes it) and its answer will be ignored.
    pub(crate) fn expire(&mut self, now: Instant) -> Option<Entry> {
        self.outbound.expire_one(now)
    }

    /// The request an answer with `id` answers, taken from the table, or
    /// [`Event::UnexpectedResponse`] to report (no id, or no request waits for it).
    pub(crate) fn answer(&mut self, id: Option<Id<'_>>) -> Result<Entry, Event> {
        id.and_then(|id| self.outbound.take(id)).ok_or(Event::UnexpectedResponse)
    }

    /// The next request that will never be answered because the input ended, taken from the table.
    /// Those cancelled or timed out already had their outcome (`cancel_pending`).
    pub(crate) fn drain(&mut self) -> Option<Entry> {
        self.outbound.take_any()
    }

    /// Writes the `notifications/cancelled` of cancelled and timed-out requests, as far as there is
    /// room.
    pub(crate) fn flush_cancellations(&mut self) {
        while let Some(entry) = self.outbound.cancel_pending() {
            let written = self.write(entry.route, |w| {
                jsonrpc::write_notification_params_head(w, "notifications/cancelled");
                w.key("requestId");
                w.i64(entry.key.id());
                w.raw(b"}}");
            });
            if written.is_err() {
                return;
            }
            self.outbound.remove(entry.key);
        }
    }

    /// Answers a message on `route` with the error `code` and `message` (and `data`, written by the
    /// closure), shortened if it does not fit the window as [`jsonrpc::write_error`] says; if even
    /// that does not fit, nothing is written. Returns the [`Event::Rejected`] to report, whose reason is
    /// the message's fixed text or the code's name ([`code::name`]).
    pub(crate) fn reject(
        &mut self,
        route: Route,
        id: Option<&dyn WriteId>,
        code: i32,
        message: ErrorMessage<'_>,
        data: Option<&dyn Fn(&mut JsonWriter<'_>)>,
    ) -> Event {
        let window = self.window_len();
        if let Some((window, commit)) = self.tx.open(route, window) {
            let mut w = JsonWriter::new(window);
            jsonrpc::write_error(&mut w, id, code, message, data, commit.suffix());
            if !w.is_overflowed() {
                commit.commit(w.len(), route.ends_with_response);
            }
        }
        Event::Rejected { code, reason: message.as_str().unwrap_or(code::name(code)) }
    }
}

/// The error answer to a message that could not be parsed (`text`, validated with `max_depth`),
/// given to `reject` (the role's way of answering and reporting), called once: a parse error
/// without an id; a message nested too deep is still an object whose `id` can be read (skipping
/// the deep member), and a request's error carries that id (a response is never answered with its
/// own id).
pub(crate) fn answer_unparsable(
    error: ScanError,
    text: &[u8],
    max_depth: usize,
    reject: impl FnOnce(Option<&dyn WriteId>, i32, ErrorMessage<'_>),
) {
    let too_deep = error.kind == ScanErrorKind::TooDeep;
    // (Peeked whatever the error: one path keeps the firmware smaller than a branch.)
    let id = json::peek_member(text, "method")
        .and_then(|_| json::peek_member(text, "id"))
        .and_then(|v| json::parse(v, 0).ok())
        .and_then(Id::from_value)
        .filter(|_| too_deep);
    let code = if too_deep { code::INVALID_REQUEST } else { code::PARSE_ERROR };
    reject(
        id.as_ref().map(|id| id as &dyn WriteId),
        code,
        ErrorMessage::Named(format_args!("{}", Unparsable { error, max_depth })),
    )
}

/// The detail of [`answer_unparsable`]'s error.
struct Unparsable {
    error: ScanError,
    max_depth: usize,
}

impl core::fmt::Display for Unparsable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.error.kind {
            ScanErrorKind::TooDeep => write!(f, "JSON nested deeper than {} levels", Decimal(self.max_depth as u64)),
            _ => core::fmt::Display::fmt(&self.error, f),
        }
    }
}
