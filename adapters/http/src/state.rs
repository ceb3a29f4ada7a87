//! The endpoint's state: the handler, the stateless engine, the legacy sessions, and the streams
//! their output goes to. Everything is behind one lock, taken for one engine call and the drain
//! that follows; the handler runs inside it, as it runs inside the engine.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant as StdInstant};

use bytes::Bytes;
use mcp_sansio::endpoint::{Framing, Route, StreamId};
use mcp_sansio::frame::EventId;
use mcp_sansio::http::{SessionId, first_transmit_status, response_status, sse_events, sse_output_status};
use mcp_sansio::jsonrpc::ParsedMessage;
use mcp_sansio::server::tasks::TaskRecord;
use mcp_sansio::server::{Handler, InputError, Received, SessionState};
use mcp_sansio::time::Instant;
use mcp_sansio::version::{Era, ProtocolVersion};
use tokio::sync::mpsc;

use crate::config::HttpConfig;
use crate::hash::IdMap;
use crate::owned::{BufferPool, OwnedEngine};
use crate::store::{EventStore, StreamState};

/// The stream of a session's standalone GET (and of its notifications and requests to the client),
/// on replica 0 (see [`Streams::standalone`]).
pub(crate) const GET_STREAM: StreamId = StreamId(1);

/// The bits of a stream id below the replica's number (see [`HttpConfig::replica`]).
pub(crate) const REPLICA_SHIFT: u32 = 24;

/// The next id of a stream of a shared session ([`Streams::use_process_ids`]).
static PROCESS_STREAMS: AtomicU32 = AtomicU32::new(GET_STREAM.0 + 1);

/// Output waiting for its reader, the first frame apart: one answer needs no queue.
#[derive(Default)]
pub(crate) struct Frames {
    first: Option<Bytes>,
    rest: VecDeque<Bytes>,
}

impl Frames {
    fn push(&mut self, bytes: Bytes) {
        if self.first.is_none() && self.rest.is_empty() {
            self.first = Some(bytes);
        } else {
            self.rest.push_back(bytes);
        }
    }

    /// The next frame.
    pub(crate) fn pop_front(&mut self) -> Option<Bytes> {
        self.first.take().or_else(|| self.rest.pop_front())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none() && self.rest.is_empty()
    }

    /// The first frame and the others.
    pub(crate) fn into_parts(self) -> (Option<Bytes>, VecDeque<Bytes>) {
        match self.first {
            Some(first) => (Some(first), self.rest),
            None => {
                let mut rest = self.rest;
                (rest.pop_front(), rest)
            }
        }
    }

    /// All the frames, in order.
    pub(crate) fn into_deque(self) -> VecDeque<Bytes> {
        let (first, mut rest) = self.into_parts();
        if let Some(first) = first {
            rest.push_front(first);
        }
        rest
    }
}

/// A client waiting for a stream's bytes.
pub(crate) struct Sink {
    /// The reader's channel. A stream a POST opened gets it only if it is still open when the
    /// POST's synchronous part ends ([`Streams::take_reader`]); until then its output waits in
    /// `early`, so an answer given at once needs no channel.
    tx: Option<mpsc::Sender<Bytes>>,
    early: Frames,
    /// The status the first output decided: for SSE streams, see `first_transmit_status`; for a
    /// bare body, the `response_status` of its message (the first bytes the receiver gets).
    first_status: Option<u16>,
}

impl Sink {
    /// Someone reads it: the POST it answers, until its channel exists, then the channel's reader.
    fn is_read(&self) -> bool {
        self.tx.as_ref().is_none_or(|tx| !tx.is_closed())
    }
}

/// An open stream: its framing, and who reads it (no one once its reader went away: a session's
/// output still goes to its event store).
struct Open {
    framing: Framing,
    /// A POST's SSE stream whose answer goes as a JSON body if it is all the stream carries and is
    /// there before the response head ([`HttpConfig::legacy_json_answers`]).
    json_alone: bool,
    sink: Option<Sink>,
}

/// A stream that ended before its POST took its reader: what [`Reader`] will hold.
struct Ended {
    stream: StreamId,
    status: Option<u16>,
    frames: Frames,
    json: bool,
}

/// What a POST's response reads from its stream ([`Streams::take_reader`]).
pub(crate) struct Reader {
    /// The status the stream's first output decided, if it had output.
    pub(crate) status: Option<u16>,
    /// The output so far.
    pub(crate) frames: Frames,
    /// The rest, if the stream is still open.
    pub(crate) rx: Option<mpsc::Receiver<Bytes>>,
    /// The stream's one message, its answer, is a JSON body (`frames` holds it unframed), though
    /// the stream was opened as SSE (see [`Streams::open_post`]).
    pub(crate) json: bool,
}

/// The streams of one engine: their framings while open, and who reads them.
pub(crate) struct Streams {
    era: Era,
    /// The replica's (or the stateless shard's) number in the stream ids' top bits.
    base: u32,
    /// The bits of a stream id counted below `base`.
    mask: u32,
    next: u32,
    /// The ids come from [`PROCESS_STREAMS`] instead of `next`: unique in the process, so that a
    /// session continued here again (after it was ended here to make room) does not name a new
    /// stream as one of its earlier ones, whose events the shared store may still hold.
    process_ids: bool,
    open: IdMap<StreamId, Open>,
    /// The stream that ended before [`Streams::take_reader`] took it. There is at most one: a
    /// POST opens its stream, has its engine drain and takes the reader under one lock.
    ended: Option<Ended>,
    sse_buffer: usize,
}

impl Streams {
    pub(crate) fn new(era: Era, first: u32, sse_buffer: usize) -> Self {
        let (base, mask, open, ended) = (0, u32::MAX, IdMap::default(), None);
        Streams { era, base, mask, next: first, process_ids: false, open, ended, sse_buffer }
    }

    /// The streams of the stateless engine of shard `shard` of several: their ids carry its
    /// number in their top 8 bits (see [`McpHttp::sharded`](crate::McpHttp::sharded)).
    pub(crate) fn for_shard(shard: usize, sse_buffer: usize) -> Self {
        let base = u32::try_from(shard).unwrap_or(0) << REPLICA_SHIFT;
        let mask = (1 << REPLICA_SHIFT) - 1;
        Streams { base, mask, next: base | 1, ..Streams::new(Era::Modern, 1, sse_buffer) }
    }

    /// The streams of a legacy session on replica `replica`: their ids (and so their SSE event
    /// ids) carry the replica's number in their top 8 bits, so that the replicas sharing a session
    /// never name two streams alike ([`HttpConfig::replica`]).
    pub(crate) fn for_replica(replica: u8, sse_buffer: usize) -> Self {
        let base = u32::from(replica) << REPLICA_SHIFT;
        // Replica 0's ids take all 32 bits; another replica's the bits below its number.
        let mask = if base == 0 { u32::MAX } else { (1 << REPLICA_SHIFT) - 1 };
        Streams { base, mask, next: base | (GET_STREAM.0 + 1), ..Streams::new(Era::Legacy, 0, sse_buffer) }
    }

    /// Draws the ids of the streams opened from now on from the process's one counter (sessions
    /// shared with other replicas).
    pub(crate) fn use_process_ids(&mut self) {
        self.process_ids = true;
    }

    /// The stream of the session's standalone GET: its notifications and requests to the client.
    pub(crate) fn standalone(&self) -> StreamId {
        StreamId(self.base | GET_STREAM.0)
    }

    /// A new stream for a POST's response, ending with it; its reader is taken with
    /// [`take_reader`](Self::take_reader) after the drain that follows the request.
    pub(crate) fn open(&mut self, framing: Framing) -> Route {
        self.open_post(framing, false)
    }

    /// [`open`](Self::open), and with `json_alone` an SSE stream whose answer is sent as a JSON
    /// body instead when the engine gives it at once and nothing before it: its reader then has
    /// the message alone, and the event store never sees it (there is nothing to resume).
    pub(crate) fn open_post(&mut self, framing: Framing, json_alone: bool) -> Route {
        let mask = self.mask;
        if self.process_ids {
            self.next = self.base | (PROCESS_STREAMS.fetch_add(1, Ordering::Relaxed) & mask).max(GET_STREAM.0 + 1);
        }
        let stream = StreamId(self.next);
        self.next = self.base | (self.next.wrapping_add(1) & mask).max(GET_STREAM.0 + 1);
        let sink = Sink { tx: None, early: Frames::default(), first_status: None };
        self.open.insert(stream, Open { framing, json_alone, sink: Some(sink) });
        Route::new(stream, framing).ending_with_response()
    }

    /// Attaches a (new) reader to `stream`, replacing any.
    pub(crate) fn attach(&mut self, stream: StreamId, framing: Framing) -> mpsc::Receiver<Bytes> {
        let (tx, rx) = mpsc::channel(self.sse_buffer.max(1));
        let sink = Sink { tx: Some(tx), early: Frames::default(), first_status: None };
        self.open.insert(stream, Open { framing, json_alone: false, sink: Some(sink) });
        rx
    }

    pub(crate) fn has_reader(&self, stream: StreamId) -> bool {
        self.open.get(&stream).and_then(|open| open.sink.as_ref()).is_some_and(Sink::is_read)
    }

    /// The reader of a stream [`open`](Self::open) made: what it had by now and, if it is still
    /// open, the channel of the rest. Call once, right after the drain that followed the request,
    /// before sending the response head.
    pub(crate) fn take_reader(&mut self, stream: StreamId) -> Reader {
        let Some(sink) = self.open.get_mut(&stream).and_then(|open| open.sink.as_mut()) else {
            let ended = self.ended.take_if(|ended| ended.stream == stream);
            let (status, frames, json) =
                ended.map_or_else(Default::default, |ended| (ended.status, ended.frames, ended.json));
            return Reader { status, frames, rx: None, json };
        };
        let frames = std::mem::take(&mut sink.early);
        let rx = match sink.tx {
            Some(_) => None,
            None => {
                let (tx, rx) = mpsc::channel(self.sse_buffer.max(1));
                sink.tx = Some(tx);
                Some(rx)
            }
        };
        Reader { status: sink.first_status, frames, rx, json: false }
    }

    /// Forgets a stream whose answer needs no body (a notification's, 202).
    pub(crate) fn close(&mut self, stream: StreamId) {
        self.open.remove(&stream);
        self.ended.take_if(|ended| ended.stream == stream);
    }

    /// Ends every reader (shutdown): their bodies finish.
    pub(crate) fn close_all(&mut self) {
        for open in self.open.values_mut() {
            open.sink = None;
        }
    }

    pub(crate) fn open_readers(&self) -> usize {
        self.open.values().filter(|open| open.sink.as_ref().is_some_and(Sink::is_read)).count()
    }

    /// Moves everything the engine has to transmit to the readers (and, for a session, into the
    /// event store), so its transmit buffer is empty again.
    pub(crate) fn drain<H: Handler>(
        &mut self,
        engine: &mut crate::HttpEngine,
        handler: &mut H,
        now: Instant,
        mut store: Option<(&mut dyn EventStore, SessionId)>,
    ) {
        let era = self.era;
        // Bounded: each round consumes one transmit; the engine writes no more than it was fed.
        while let Some(t) = engine.poll_transmit() {
            let (stream, end, len) = (t.stream, t.end_of_stream, t.bytes.len());
            if end && let Some(answer) = self.answer_alone(stream, t.bytes) {
                // The POST's answer as a JSON body: its status is read from it, as a body's is.
                let frames = Frames { first: Some(Bytes::copy_from_slice(answer)), rest: VecDeque::new() };
                let status = Some(response_status(era, answer));
                self.open.remove(&stream);
                self.ended = Some(Ended { stream, status, frames, json: true });
                engine.transmit_done(now, len, handler);
                continue;
            }
            let mut open = self.open.get_mut(&stream);
            let framing = open.as_ref().map_or(Framing::Sse, |open| open.framing);
            // A session's SSE output is split into events once: for the store, and for the status
            // of its stream's first output (`only`: its one event).
            let mut split = None;
            if let (Some((store, session)), Framing::Sse) = (store.as_mut(), framing) {
                let (mut only, mut count) = (None, 0);
                for event in sse_events(t.bytes) {
                    if let Some(id) = event.id {
                        store.append(*session, id, Bytes::copy_from_slice(event.bytes));
                    }
                    only = (count == 0).then_some(event);
                    count += 1;
                }
                split = Some(only);
            }
            if let Some(open) = open.as_mut()
                && let Some(sink) = open.sink.as_mut()
            {
                if sink.first_status.is_none() {
                    sink.first_status = match (framing, split) {
                        (Framing::Sse, Some(only)) => Some(sse_output_status(era, only.as_ref(), end)),
                        (Framing::Sse, None) => Some(first_transmit_status(era, framing, t.bytes, end)),
                        // A bare body is one message, the answer: its own status, which its
                        // response takes (so the answer is read once, here).
                        _ => (!t.bytes.is_empty()).then(|| response_status(era, t.bytes)),
                    };
                }
                let bytes = (!t.bytes.is_empty()).then(|| Bytes::copy_from_slice(t.bytes));
                match (bytes, &sink.tx) {
                    (None, _) => {}
                    (Some(bytes), None) => sink.early.push(bytes),
                    (Some(bytes), Some(tx)) => {
                        if tx.try_send(bytes).is_err() {
                            // Gone, or too slow for the SSE buffer: drop the reader (a legacy
                            // client resumes from the event store).
                            tracing::debug!(stream = stream.0, "reader gone or over the SSE buffer; dropped");
                            open.sink = None;
                        }
                    }
                }
            }
            if end {
                let sink = self.open.remove(&stream).and_then(|open| open.sink);
                if let (Some((store, session)), Framing::Sse) = (store.as_mut(), framing) {
                    // Delivered: its reader took every event, the last included.
                    store.end_stream(*session, stream.0, sink.is_some());
                }
                // A stream that never got a channel ended before its POST took its reader.
                if let Some(sink) = sink
                    && sink.tx.is_none()
                {
                    self.ended = Some(Ended { stream, status: sink.first_status, frames: sink.early, json: false });
                }
            }
            engine.transmit_done(now, len, handler);
        }
    }

    /// The message of `bytes`, the last output of `stream`, if it goes as a JSON body: the stream
    /// takes one ([`Streams::open_post`]), this is its first output, and it is one event.
    fn answer_alone<'t>(&self, stream: StreamId, bytes: &'t [u8]) -> Option<&'t [u8]> {
        let open = self.open.get(&stream).filter(|open| open.json_alone)?;
        let sink = open.sink.as_ref().filter(|sink| sink.tx.is_none() && sink.first_status.is_none())?;
        if !sink.early.is_empty() {
            return None;
        }
        let mut events = sse_events(bytes);
        let only = events.next().filter(|only| !only.data.is_empty())?;
        events.next().is_none().then_some(only.data)
    }
}

/// One legacy Streamable HTTP session: its engine and its streams, kept by a
/// [`SessionStore`](crate::SessionStore).
///
/// The engine is live while it holds anything but the session; between requests it is
/// suspended to its [`SessionState`], its buffers back in the pool (see
/// [`HttpConfig::session_buffer_pool`]).
pub struct LegacySession {
    /// Opened by the deprecated HTTP+SSE transport: everything goes on its one stream, and the
    /// session ends with it.
    pub(crate) sse_transport: bool,
    live: Option<Box<OwnedEngine>>,
    /// The session while `live` is `None`.
    suspended: Option<SessionState>,
    /// The state last read from or written to the shared store ([`crate::shared`]), if any.
    pub(crate) shared: Option<SessionState>,
    /// When `shared` was last read, written or told by another replica.
    pub(crate) confirmed: Option<StdInstant>,
    pub(crate) streams: Streams,
    pub(crate) last_used: StdInstant,
    /// The id this replica gives the session's next request to the client: its own counter, in
    /// a range of its own (the replica's number in bits 40 to 47, [`first_request_id`]), not the
    /// shared state's. Replicas that shared one counter could each give out the same id, and one
    /// could take an answer relayed for the other's request.
    request_ids: i64,
}

/// The first request id a replica gives out in a session: its number in bits 40 to 47 (2⁴⁰ ids
/// a session on each replica), 1 on replica 0, as an engine of its own starts.
fn first_request_id(replica: u8) -> i64 {
    (i64::from(replica) << 40) | 1
}

impl LegacySession {
    /// A new session (no `initialize` yet); its engine is made on first use.
    pub(crate) fn new(sse_transport: bool, config: &HttpConfig) -> Self {
        LegacySession {
            sse_transport,
            live: None,
            suspended: None,
            shared: None,
            confirmed: None,
            streams: Streams::for_replica(config.replica, config.sse_buffer_messages),
            last_used: StdInstant::now(),
            request_ids: first_request_id(config.replica),
        }
    }

    /// A session another replica started, continued from its `state` in the shared store.
    pub(crate) fn restored(state: SessionState, config: &HttpConfig) -> Self {
        let mut session = LegacySession::new(false, config);
        session.streams.use_process_ids();
        session.refresh(state);
        session
    }

    /// Takes `state`, read from the shared store or told by another replica, as the session's.
    /// The counters stay this replica's own where they are ahead: ids it gave out are not given
    /// out again. An engine awake here (a request in flight, a live task) takes the session's
    /// settings ([`Engine::refresh_session`](mcp_sansio::server::Engine::refresh_session)) unless
    /// it changed them itself since the state was last shared (its change is written next).
    pub(crate) fn refresh(&mut self, state: SessionState) {
        match &mut self.live {
            None => {
                self.suspended = Some(match self.suspended {
                    Some(mine) => state.with_counters_of(&mine),
                    None => state,
                });
            }
            Some(live) => {
                let engine = live.get();
                if self.shared.is_some_and(|shared| !shared.same_session(&engine.session_state())) {
                    return;
                }
                engine.refresh_session(state);
            }
        }
        self.shared = Some(state);
        self.confirmed = Some(StdInstant::now());
    }

    /// Whether the copy was read, written or told of within `fresh` (and may be served without
    /// reading the store again).
    pub(crate) fn is_fresh(&self, fresh: Duration) -> bool {
        self.confirmed.is_some_and(|at| at.elapsed() < fresh)
    }

    /// The state to write to the shared store: the session's, if it changed since it was last read
    /// or written there.
    pub(crate) fn changed_state(&mut self) -> Option<SessionState> {
        let now = match &mut self.live {
            Some(live) => live.get().session_state(),
            None => self.suspended?,
        };
        now.version()?;
        self.shared.is_none_or(|shared| !shared.same_session(&now)).then_some(now)
    }

    /// Opens the stream of a POST's response (with `framing`, and `json_alone` as
    /// [`Streams::open_post`] says) and has the engine handle the POST's `body` on it.
    pub(crate) fn handle_post<H: Handler>(
        &mut self,
        context: (&HttpConfig, &mut BufferPool, &mut dyn EventStore, SessionId),
        handler: &mut H,
        now: Instant,
        (framing, json_alone): (Framing, bool),
        body: &ParsedMessage<'_>,
    ) -> (Route, Result<Received, InputError>) {
        let route = self.streams.open_post(framing, json_alone);
        let received = self.serve(context, handler, now, |e, h| e.handle_parsed(now, route, body, h));
        (route, received)
    }

    /// Runs `f` on the engine (woken on buffers from `pool`, and resumed, if it was suspended),
    /// moves what it wrote to the streams (and `events`), then suspends the engine if it holds
    /// nothing but the session.
    pub(crate) fn serve<H: Handler, R>(
        &mut self,
        context: (&HttpConfig, &mut BufferPool, &mut dyn EventStore, SessionId),
        handler: &mut H,
        now: Instant,
        f: impl FnOnce(&mut crate::HttpEngine, &mut H) -> R,
    ) -> R {
        let (config, pool, events, id) = context;
        let suspended = self.suspended;
        let (standalone, request_ids) = (self.streams.standalone(), self.request_ids);
        let live = self.live.get_or_insert_with(|| {
            let mut engine = pool.take(config.engine, session_buffers(config), now);
            engine.get().set_notification_route(Route::new(standalone, Framing::Sse));
            let state = suspended.unwrap_or_else(|| engine.get().session_state());
            engine.get().resume(state.with_next_request_id(request_ids));
            engine
        });
        if let Some(tasks) = live.get().task_table() {
            tasks.set_owner(session_owner(id));
        }
        let _serving = crate::serving::mark(crate::Serving::Session(id));
        let result = live.run(handler, now, f);
        self.streams.drain(live.get(), handler, now, Some((events, id)));
        self.rest(config, pool);
        result
    }

    /// Suspends the engine if it holds nothing but the session, its buffers going back to `pool`.
    fn rest(&mut self, config: &HttpConfig, pool: &mut BufferPool) {
        let Some(state) = self.live.as_mut().and_then(|live| live.get().suspend()) else { return };
        if let Some(live) = self.live.take() {
            self.request_ids = state.next_request_id();
            self.suspended = Some(state);
            pool.give(session_buffers(config), live);
        }
    }

    /// Whether the session's engine waits for the client's answer to a request it sent (a
    /// suspended one never does).
    pub(crate) fn waits_for_answers(&mut self) -> bool {
        self.live.as_mut().is_some_and(|live| {
            let engine = live.get();
            engine.awaiting_answers() > 0 || engine.awaiting_input()
        })
    }

    /// Whether the session's engine here holds the live task `task` (a shared session's task
    /// lives in the engine of the replica that created it).
    pub(crate) fn holds_task(&mut self, now: Instant, id: SessionId, task: &str) -> bool {
        let tasks = self.live.as_mut().and_then(|live| live.get().task_table());
        tasks.is_some_and(|tasks| {
            tasks.set_owner(session_owner(id));
            tasks.contains(now, task)
        })
    }

    /// Whether the session's engine here holds any task (kept until its time to live ends).
    pub(crate) fn holds_tasks(&mut self) -> bool {
        self.live.as_mut().and_then(|live| live.get().task_table()).is_some_and(|tasks| !tasks.is_empty())
    }

    /// The task the session's last request created here, taken once (see
    /// [`TaskTable::take_created`](mcp_sansio::server::tasks::TaskTable::take_created)).
    pub(crate) fn take_created_task(&mut self) -> Option<TaskRecord> {
        self.live.as_mut().and_then(|live| live.get().task_table()).and_then(|tasks| tasks.take_created())
    }

    /// Whether the session's engine is suspended: between requests, holding nothing but the
    /// session, it keeps no engine and no buffers (see [`HttpConfig::session_buffer_pool`]).
    pub fn is_suspended(&self) -> bool {
        self.live.is_none()
    }

    /// The negotiated protocol version.
    pub fn version(&mut self) -> Option<ProtocolVersion> {
        match &mut self.live {
            Some(live) => live.get().session_version(),
            None => self.suspended.and_then(|state| state.version()),
        }
    }

    /// When the client last sent a request in it.
    pub fn last_used(&self) -> StdInstant {
        self.last_used
    }

    /// How many of its streams a client is reading.
    pub fn open_streams(&self) -> usize {
        self.streams.open_readers()
    }

    /// Whether the session is idle past `timeout` (no request, and no reader on any stream).
    pub fn expired(&self, now: StdInstant, timeout: Duration) -> bool {
        let unread = self.streams.open_readers() == 0;
        unread && (self.sse_transport || now.duration_since(self.last_used) >= timeout)
    }
}

/// The owner of a legacy session's tasks ([`TaskTable::set_owner`]): read from its id, so that a
/// task the shared store records is taken in, once its replica stopped, by that session alone.
///
/// [`TaskTable::set_owner`]: mcp_sansio::server::tasks::TaskTable::set_owner
pub(crate) fn session_owner(id: SessionId) -> u64 {
    id.as_str().get(..16).and_then(|hex| u64::from_str_radix(hex, 16).ok()).unwrap_or(0)
}

/// Receive buffer of a session's engine: HTTP hands it whole messages, so it is never used.
const SESSION_RX_BYTES: usize = 256;

/// The lengths of a session engine's buffers: receive, transmit, input.
fn session_buffers(config: &HttpConfig) -> (usize, usize, usize) {
    (SESSION_RX_BYTES, config.session_transmit_bytes, config.session_input_bytes)
}

/// Replays the events of `after`'s stream and says whether it is still open.
pub(crate) fn replay(store: &dyn EventStore, session: SessionId, after: EventId) -> (VecDeque<Bytes>, StreamState) {
    let mut events = VecDeque::new();
    let state = store.replay(session, after, &mut |event| events.push_back(event.clone()));
    (events, state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_ids_skip_the_standalone_stream_when_they_wrap() {
        let mut streams = Streams::new(Era::Legacy, u32::MAX, 4);
        let ids: Vec<u32> = (0..3).map(|_| streams.open(Framing::Sse).stream.0).collect();
        assert_eq!(ids, [u32::MAX, GET_STREAM.0 + 1, GET_STREAM.0 + 2]);
    }

    #[test]
    fn a_closed_stream_has_no_reader_and_an_open_one_is_read_until_its_channel_closes() {
        let mut streams = Streams::new(Era::Modern, 2, 4);
        let answered = streams.open(Framing::Body).stream;
        let unanswered = streams.open(Framing::Body).stream;
        assert_eq!(streams.open_readers(), 2, "read by their POSTs");
        streams.close(answered);
        assert!(!streams.has_reader(answered));
        assert_eq!(streams.open_readers(), 1);
        let reader = streams.take_reader(unanswered);
        assert!(reader.frames.is_empty() && reader.status.is_none());
        let rx = reader.rx.expect("a channel for a stream still open");
        assert!(streams.has_reader(unanswered));
        drop(rx);
        assert!(!streams.has_reader(unanswered));
        assert_eq!(streams.open_readers(), 0);
    }
}
