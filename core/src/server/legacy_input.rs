//! Input requests in a legacy session: the engine asks the client itself.
//!
//! A handler answers "input required" the same way in every era (see [`input`](crate::server::input)).
//! In a legacy session the engine turns that answer into server-to-client requests
//! (`elicitation/create`, `sampling/createMessage`, `roots/list`, through the outbound-request
//! table) on the request's own stream (on the notification route when that stream is a bare HTTP
//! body, which holds only the answer), keeps the original request, and once every answer is in, serves the request again as a
//! 2026-07-28 client would retry it: the same params with `inputResponses` and `requestState`. The
//! handler cannot tell the eras apart.
//!
//! Memory: the buffer given to [`Engine::set_input_buffer`]; its first half keeps the waiting
//! request (its params, state, the answers so far and the input requests' keys), the second half
//! builds the retry. One request waits for input at a time; another gets `-32603` until it is
//! done. A client error or a timeout on an input request answers the original request with
//! `-32603`.

use core::fmt;

use crate::endpoint::{Event, Framing, OutboundKey, OutboundTable, Outbox, Route};
use crate::json::{self, JsonWriter, Kind, Value};
use crate::jsonrpc::{self, ErrorMessage, Id, WriteId, code};
use crate::mcp::input::write_retry_params_head;
use crate::server::dispatch::Parts;
use crate::server::input::MAX_INPUT_REQUESTS;
use crate::server::{Engine, Handler};
use crate::storage::Storage;
use crate::text::Plain;

/// Whether the build asks a legacy session's client for input: the `input` feature with the
/// `legacy` era. Without the era no request is served in a legacy session, and the code of this
/// module is left out (a 2026-07-28-only build with input pays for none of it).
pub(crate) const LEGACY_INPUT: bool = cfg!(all(feature = "input", feature = "legacy"));

const UNREADABLE: &str = "unreadable input-required answer";
const NO_ROOM: &str = "the request does not fit the input buffer";
const NO_ROOM_FOR_ANSWERS: &str = "the client's answers do not fit the input buffer";
/// No window to write the input requests in, or one they do not fit.
const NO_TRANSMIT_ROOM: &str = "the input requests do not fit the transmit window";

/// Input requests one waiting request may have sent: none without legacy input ([`LEGACY_INPUT`]),
/// which no handler's reply can ask for then.
const KEY_SLOTS: usize = if LEGACY_INPUT { MAX_INPUT_REQUESTS } else { 0 };

/// The caller's buffer for legacy input, and the request waiting in it.
pub(crate) struct InputArea<'a> {
    /// Keeps the waiting request: the first half of a borrowed buffer, or the whole of an owned
    /// one, whose first half only is used (see [`record_mut`]).
    record: Storage<'a>,
    /// Builds the retry: the second half of a borrowed buffer. For an owned buffer, allocated
    /// (half its length) when a retry is first built, so setting one allocates nothing.
    retry: Option<Storage<'a>>,
    has_buffer: bool,
    pending: Option<Pending>,
    /// Set by a legacy input-required reply: the length of its uncommitted answer.
    pub(crate) signal: Option<usize>,
    /// Every answer is in: the waiting request is served again once the message that brought the
    /// last answer has been handled ([`Parts::retry_due_input`]), not from inside its handling, so
    /// the retry's frames do not stack on the answer's.
    retry_due: bool,
}

/// A request waiting for the client's answers.
struct Pending {
    method: &'static str,
    route: Route,
    /// `record[..state]`: `{`, the params' members (without `inputResponses`/`requestState`) each
    /// followed by a comma, and `"requestState":"…",` if there is state.
    state: usize,
    /// `record[state..answers]`: `"key":answer,` for each answer so far.
    answers: usize,
    /// `record[tail..]`: the request's id as it came (JSON), then the input requests' keys as the
    /// handler's answer wrote them (JSON string contents) in the order of `asked`, each after a
    /// byte of its length. Kept in the buffer, not here: the record in every [`Engine`] stays small.
    tail: usize,
    /// Each input request sent, and whether it has been answered.
    asked: heapless::Vec<(OutboundKey, bool), KEY_SLOTS>,
}

impl Pending {
    /// Gives up the input requests not answered yet: their cancellations are written, and late
    /// answers ignored.
    fn cancel_unanswered<const N: usize>(&self, outbound: &mut OutboundTable<N>) {
        for (key, answered) in &self.asked {
            if !answered {
                outbound.cancel(*key);
            }
        }
    }
}

/// Entry `index` of `tail` (a waiting request's record from [`Pending::tail`] on): 0 is the
/// request's id, `1 + i` the key of input request `i`.
fn entry(tail: &[u8], index: usize) -> &[u8] {
    let mut at = 0;
    for _ in 0..index {
        at += 1 + usize::from(tail.get(at).copied().unwrap_or_default());
    }
    let len = usize::from(tail.get(at).copied().unwrap_or_default());
    tail.get(at + 1..at + 1 + len).unwrap_or_default()
}

/// A request id kept as its JSON text.
struct RawId<'r>(&'r [u8]);

impl WriteId for RawId<'_> {
    fn write_id(&self, w: &mut JsonWriter<'_>) {
        w.raw(self.0)
    }
}

impl RawId<'_> {
    /// Whether it is `id` (strings compared unescaped).
    fn matches(&self, id: Id<'_>) -> bool {
        let Ok(kept) = json::parse(self.0, 1) else { return false };
        match (kept.as_i64(), kept.as_str(), id) {
            (Some(a), _, Id::Number(b)) => a == b,
            (_, Some(a), Id::String(b)) => a.chars().eq(b.chars()),
            _ => false,
        }
    }
}

/// The waiting request's id in `record` (see [`Pending::tail`]).
fn pending_id<'r>(record: &'r Storage<'_>, pending: &Pending) -> RawId<'r> {
    RawId(entry(self::record(record).get(pending.tail..).unwrap_or_default(), 0))
}

impl<'a> InputArea<'a> {
    pub(crate) const fn none() -> Self {
        InputArea {
            record: Storage::empty(),
            retry: None,
            has_buffer: false,
            pending: None,
            signal: None,
            retry_due: false,
        }
    }

    /// As [`Engine::set_input_storage`] left it on the same buffer (or as [`none`](Self::none)
    /// without one): nothing waiting, and an owned buffer's retry half not yet allocated.
    #[cfg(feature = "alloc")]
    pub(crate) fn renew(&mut self) {
        self.pending = None;
        self.signal = None;
        self.retry_due = false;
        if self.record.is_owned() {
            self.retry = None;
        }
    }

    /// The buffer to build a retry in, taken out until it is put back.
    fn take_retry(&mut self) -> Option<Storage<'a>> {
        #[cfg(feature = "alloc")]
        if self.retry.is_none() && self.record.is_owned() {
            let len = self.record.len() - self.record.len() / 2;
            return Some(Storage::from(alloc::vec![0u8; len]));
        }
        self.retry.take()
    }

    /// The buffer given to [`Engine::set_input_storage`] if it was owned.
    #[cfg(feature = "alloc")]
    pub(crate) fn into_box(self) -> Option<alloc::boxed::Box<[u8]>> {
        self.record.into_box()
    }
}

impl<'a, const IN_FLIGHT: usize, const OUTBOUND: usize> Engine<'a, IN_FLIGHT, OUTBOUND> {
    /// Gives legacy sessions room to ask the client for input (see the
    /// [module docs](crate::server::legacy_input)): requests up to half of `buffer` long, with their
    /// answers, can wait for input. Without it a legacy request that needs input is answered
    /// `-32603`. 2026-07-28 requests need no buffer (the client keeps the state).
    pub fn set_input_buffer(&mut self, buffer: &'a mut [u8]) {
        self.set_input_storage(buffer);
    }

    /// [`Engine::set_input_buffer`] with a buffer that is borrowed or, with `alloc`, owned (a
    /// `Box<[u8]>`; see [`Storage`]). An owned buffer comes back from `Engine::into_buffers`; it
    /// allocates half its length again (once) when a waiting request is retried.
    pub fn set_input_storage(&mut self, buffer: impl Into<Storage<'a>>) {
        let buffer = buffer.into();
        let half = buffer.len() / 2;
        let (record, retry) = match buffer {
            Storage::Borrowed(buffer) => {
                let (record, retry) = buffer.split_at_mut(half);
                (Storage::from(record), Some(Storage::from(retry)))
            }
            #[cfg(feature = "alloc")]
            owned @ Storage::Owned(_) => (owned, None),
        };
        self.input = InputArea { record, retry, has_buffer: true, pending: None, signal: None, retry_due: false };
    }

    /// Whether a legacy request is waiting for the client's input.
    pub fn awaiting_input(&self) -> bool {
        self.input.pending.is_some()
    }

    /// An input request timed out: the waiting request is answered `-32603`. `false` if `key` is not
    /// an input request.
    pub(crate) fn input_timed_out(&mut self, key: OutboundKey) -> bool {
        if !LEGACY_INPUT {
            return false;
        }
        if !self.input.pending.as_ref().is_some_and(|p| p.asked.iter().any(|(k, _)| *k == key)) {
            return false;
        }
        // Written now, or lost if the transmit buffer is full: the client is not answering anyway.
        // (The request that timed out is cancelled already, the others now.)
        let detail = format_args!("the client did not answer an input request in time");
        let _ = answer_waiting(&mut self.ep.out, &mut self.input, detail, true);
        true
    }

    /// The input has ended: nobody is left to answer the input requests, so the waiting request is
    /// answered `-32603` (written if there is room: the client may still read).
    pub(crate) fn drop_pending_input(&mut self) {
        if !LEGACY_INPUT {
            return;
        }
        // Its requests stay in the table, which the end of the input empties.
        let detail = format_args!("the input ended while waiting for the client's input");
        let _ = answer_waiting(&mut self.ep.out, &mut self.input, detail, false);
    }
}

/// Answers the request waiting for input `-32603` with `detail` (if there is room) and forgets it,
/// giving up its unanswered input requests if `cancel`; the event to report, `None` if no request
/// was waiting.
fn answer_waiting<const OUTBOUND: usize>(
    out: &mut Outbox<'_, OUTBOUND>,
    input: &mut InputArea<'_>,
    detail: fmt::Arguments<'_>,
    cancel: bool,
) -> Option<Event> {
    let pending = input.pending.take()?;
    if cancel {
        pending.cancel_unanswered(&mut out.outbound);
    }
    let id = pending_id(&input.record, &pending);
    Some(out.reject(pending.route, Some(&id), code::INTERNAL_ERROR, ErrorMessage::Named(detail), None))
}

impl<'s, 'a, H: Handler, const OUTBOUND: usize> Parts<'s, 'a, H, OUTBOUND> {
    /// After a handler answered "input required" in a legacy session (`len` bytes, uncommitted, in
    /// the transmit window): keeps the request and sends the input requests to the client.
    pub(crate) fn begin_legacy_input(
        &mut self,
        id: Id<'_>,
        method: &'static str,
        params: Option<Value<'_>>,
        len: usize,
    ) {
        match self.try_begin(id, method, params, len) {
            Ok(()) => {}
            Err(reason) => {
                // `pending` is untouched: another request's, if one waits.
                self.reject(Some(&id), code::INTERNAL_ERROR, format_args!("{reason}", reason = Plain(reason)));
            }
        }
    }

    fn try_begin(
        &mut self,
        id: Id<'_>,
        method: &'static str,
        params: Option<Value<'_>>,
        len: usize,
    ) -> Result<(), &'static str> {
        if self.input.pending.is_some() {
            return Err("another request is waiting for the client's input");
        }
        if !self.input.has_buffer {
            return Err("no input buffer to wait for the client's input (Engine::set_input_buffer)");
        }
        // Keep the params (without the previous round's input), the state, and for now the input
        // requests, from the answer the handler wrote (uncommitted in the transmit window):
        // {"jsonrpc":"2.0","id":…,"result":{"inputRequests":{…},"requestState":"…"}}
        let answer = json::parse(self.out.tx.uncommitted(len), json::MAX_DEPTH_LIMIT).map_err(|_| UNREADABLE)?;
        let result = answer.get("result").ok_or(UNREADABLE)?;
        let requests = result.get("inputRequests").filter(|r| r.kind() == Kind::Object).ok_or(UNREADABLE)?;
        // Everything that can be checked before the first request is sent, so that a refusal sends
        // nothing to the client.
        let mut count = 0;
        let mut keys_len = 0;
        for (key, request) in requests.members() {
            // (`InputReply` refused a key longer than `MAX_INPUT_KEY_LEN`.)
            request.get("method").ok_or(UNREADABLE)?;
            count += 1;
            keys_len += 1 + key.raw().len();
        }
        if count > self.out.outbound.free() || count > KEY_SLOTS {
            return Err("too many requests to the client await answers");
        }
        let mut w = JsonWriter::new(record_mut(&mut self.input.record));
        write_retry_params_head(&mut w, params, result.get("requestState"));
        let state_len = w.len();
        w.value(requests);
        let requests_end = w.len();
        // The id for now after the requests; moved to the tail below.
        id.write_id(&mut w);
        let id_end = w.len();
        let id_len = id_end.saturating_sub(requests_end);
        // (An id is kept after a byte of its length.)
        if w.is_overflowed() || id_len > usize::from(u8::MAX) {
            return Err(NO_ROOM);
        }
        // The id and the keys go at the end of the record, behind the room for the answers.
        let stored = record_mut(&mut self.input.record);
        let tail_at = stored.len().checked_sub(1 + id_len + keys_len).filter(|at| *at >= requests_end);
        let Some(tail_at) = tail_at else { return Err(NO_ROOM) };
        stored.copy_within(requests_end..id_end, tail_at + 1);
        stored[tail_at] = id_len as u8; // checked above
        let (head, tail) = stored.split_at_mut(tail_at);
        let requests = head.get(state_len..requests_end).unwrap_or_default();
        let requests = json::parse(requests, json::MAX_DEPTH_LIMIT).map_err(|_| UNREADABLE)?;
        let mut at = 1 + id_len;
        for (key, _) in requests.members() {
            let raw = key.raw();
            let Some(room) = tail.get_mut(at..at + 1 + raw.len()) else { break };
            room[0] = raw.len() as u8; // at most 6 x MAX_INPUT_KEY_LEN (escapes): `InputReply` checked it
            room[1..].copy_from_slice(raw);
            at += room.len();
        }
        // Each input request becomes a request to the client, all in one window.
        let deadline = self.config.request_timeout.map(|t| self.now + t);
        let route = self.route;
        // A bare-body answer (an HTTP POST answered as JSON) carries one message, the answer: the
        // requests go on the session's own stream then, as any other request to the client.
        let ask_route = if route.framing == Framing::Body { self.out.notify_route } else { route };
        let mut asked = heapless::Vec::new();
        let Some((mut window, mut commit)) = self.out.tx.open(ask_route, self.out.window_len()) else {
            return Err(NO_TRANSMIT_ROOM);
        };
        let failure = 'ask: {
            for (_, request) in requests.members() {
                let outbound = self.out.outbound.next_key();
                let mut w = JsonWriter::new(&mut *window);
                jsonrpc::write_request_head(&mut w, &outbound.id());
                if let Some(method) = request.get("method") {
                    w.value(method);
                }
                if let Some(params) = request.get("params") {
                    w.member("params");
                    w.value(params);
                }
                w.byte(b'}');
                w.raw(commit.suffix());
                if w.is_overflowed() {
                    break 'ask Some(NO_TRANSMIT_ROOM);
                }
                let written = w.len();
                let Some(key) = self.out.outbound.insert(deadline, ask_route) else {
                    break 'ask Some("too many requests to the client await answers");
                };
                let _ = asked.push((key, false));
                let (_, rest) = core::mem::take(&mut window).split_at_mut(written);
                let prefix = commit.commit_and_continue(written, rest);
                window = rest.get_mut(prefix..).unwrap_or_default();
            }
            None
        };
        if let Some(reason) = failure {
            // The requests already sent are cancelled on the wire; their late answers are ignored.
            for (key, _) in &asked {
                self.out.outbound.cancel(*key);
            }
            return Err(reason);
        }
        if asked.is_empty() {
            // `InputReply` sends no legacy answer without requests; an empty one is not readable.
            return Err(UNREADABLE);
        }
        self.input.pending =
            Some(Pending { method, route, state: state_len, answers: state_len, tail: tail_at, asked });
        Ok(())
    }

    /// Takes the client's answer to an input request, if it is one; once every answer is in, the
    /// waiting request is due to be served again ([`Parts::retry_due_input`], which the caller runs
    /// after this message). `false` if `id` is not an input request.
    pub(crate) fn legacy_input_answer(&mut self, id: Option<Id<'_>>, result: Result<Value<'_>, ()>) -> bool {
        if !LEGACY_INPUT {
            return false;
        }
        let Some(Id::Number(number)) = id else { return false };
        let Some(pending) = self.input.pending.as_ref() else { return false };
        let Some(index) = pending.asked.iter().position(|(key, answered)| key.id() == number && !answered) else {
            return false;
        };
        let _ = self.out.outbound.take(Id::Number(number));
        let Ok(answer) = result else {
            self.fail_pending("the client refused an input request");
            return true;
        };
        let InputArea { record, pending, .. } = &mut *self.input;
        let Some(pending) = pending.as_mut() else { return true };
        let (answers, tail) = record_mut(record).split_at_mut(pending.tail);
        let mut w = JsonWriter::new(answers.get_mut(pending.answers..).unwrap_or_default());
        w.byte(b'"');
        w.raw(entry(tail, 1 + index));
        w.raw(b"\":");
        w.value(answer);
        w.byte(b',');
        if w.is_overflowed() {
            self.fail_pending(NO_ROOM_FOR_ANSWERS);
            return true;
        }
        pending.answers += w.len();
        pending.asked[index].1 = true;
        if pending.asked.iter().all(|(_, answered)| *answered) {
            self.input.retry_due = true;
        }
        true
    }

    /// Answers the waiting request with `-32603` and forgets it. In a cold frame of its own: the
    /// frames it is called from (a retry's, an answer's) hold no room for its record.
    #[cold]
    #[inline(never)]
    pub(crate) fn fail_pending(&mut self, reason: &'static str) {
        let detail = format_args!("{reason}", reason = Plain(reason));
        if let Some(event) = answer_waiting(self.out, self.input, detail, true) {
            self.handler.on_event(self.now, event.into());
        }
    }

    /// Forgets the waiting request if it is `id` (the client cancelled it).
    pub(crate) fn cancel_pending_input(&mut self, id: Id<'_>) -> bool {
        if !LEGACY_INPUT {
            return false;
        }
        if !self.input.pending.as_ref().is_some_and(|p| pending_id(&self.input.record, p).matches(id)) {
            return false;
        }
        if let Some(pending) = self.input.pending.take() {
            pending.cancel_unanswered(&mut self.out.outbound);
        }
        true
    }

    /// Serves the waiting request again if every answer came in with the message just handled,
    /// validating the retry with `spans` (the caller's record, free again once that message is
    /// handled). Every caller of [`Parts::handle_message`] and [`Parts::handle_classified`] runs it
    /// right after, so the retry is answered where it always was: just after the last answer.
    pub(crate) fn retry_due_input(&mut self, spans: &mut json::Spans) {
        if !LEGACY_INPUT {
            return;
        }
        if core::mem::take(&mut self.input.retry_due) {
            self.retry_pending(spans);
        }
    }

    /// [`Parts::retry_due_input`] with a record of its own, for a caller whose record is not its to
    /// reuse (a body validated by the HTTP layer).
    pub(crate) fn retry_due_input_with_own_record(&mut self) {
        if !LEGACY_INPUT {
            return;
        }
        if self.input.retry_due {
            self.retry_due_input(&mut json::Spans::default());
        }
    }

    /// Builds the retry of the waiting request and serves it on the request's route. The waiting
    /// request is read where it is kept (its record in the engine, its id and keys in the input
    /// buffer), not moved into this frame, which the retry's handling stacks on.
    fn retry_pending(&mut self, spans: &mut json::Spans) {
        if self.input.pending.is_none() {
            return;
        }
        let Some(mut retry) = self.input.take_retry() else {
            self.input.pending = None;
            return;
        };
        let InputArea { record, pending: Some(pending), .. } = &*self.input else { return };
        let record = self::record(record);
        let mut w = JsonWriter::new(&mut retry);
        jsonrpc::write_request_head(&mut w, &pending_id(&self.input.record, pending));
        w.string(pending.method);
        w.member("params");
        w.raw(record.get(..pending.state).unwrap_or_default());
        w.raw(b"\"inputResponses\":{");
        let answers = record.get(pending.state..pending.answers).unwrap_or_default();
        w.raw(answers.strip_suffix(b",").unwrap_or(answers));
        w.raw(b"}}}");
        let len = w.len();
        let overflowed = w.is_overflowed();
        let pending_route = pending.route;
        let message = retry.get(..len).unwrap_or_default();
        let route = core::mem::replace(&mut self.route, pending_route);
        match json::parse_spanned(message, self.config.limits.max_depth, spans).ok().filter(|_| !overflowed) {
            Some(value) => {
                self.input.pending = None;
                self.handle_message(value, false, spans);
            }
            // (The answers make the retry longer than the request.)
            None => self.fail_pending(NO_ROOM_FOR_ANSWERS),
        }
        self.route = route;
        self.input.retry = Some(retry);
    }
}

/// Where the waiting request is kept: all of a borrowed record (the first half of the buffer), the
/// first half of an owned buffer.
fn record<'r>(record: &'r Storage<'_>) -> &'r [u8] {
    match record {
        Storage::Borrowed(record) => record,
        #[cfg(feature = "alloc")]
        Storage::Owned(whole) => whole.get(..whole.len() / 2).unwrap_or_default(),
    }
}

/// [`record`], to write.
fn record_mut<'r>(record: &'r mut Storage<'_>) -> &'r mut [u8] {
    match record {
        Storage::Borrowed(record) => record,
        #[cfg(feature = "alloc")]
        Storage::Owned(whole) => {
            let half = whole.len() / 2;
            whole.get_mut(..half).unwrap_or_default()
        }
    }
}
