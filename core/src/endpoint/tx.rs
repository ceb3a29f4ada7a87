//! The transmit queue: framed messages waiting to be written, grouped by stream.

use heapless::Deque;

use crate::endpoint::{Framing, Route, StreamId};
#[cfg(feature = "http")]
use crate::frame::sse::{self, EventId, SseEvent};
use crate::storage::Storage;

/// Most runs of messages (of different streams, or ended streams) that wait in the transmit queue
/// at once. Consecutive messages of one open stream share a run, so a byte stream needs one.
pub const MAX_TX_RECORDS: usize = 8;

/// A run of whole messages of one stream.
#[derive(Clone, Copy, Debug)]
struct Record {
    stream: StreamId,
    /// Bytes of the run not yet transmitted.
    len: usize,
    /// The stream ends after this run.
    end: bool,
}

/// Bytes to write, and where: the output unit of an endpoint (see the [module docs](super)).
///
/// Holds whole messages of one stream (the first possibly partly written already). Write `bytes` to
/// `stream` and report how many were written; once all were, and `end_of_stream` is set, close the
/// stream (end the HTTP response). A transmit may hold no bytes at all: then it only ends the stream,
/// and reporting `0` bytes written completes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct Transmit<'a> {
    /// The stream the bytes belong to.
    pub stream: StreamId,
    /// The bytes.
    pub bytes: &'a [u8],
    /// The stream ends once these bytes are written.
    pub end_of_stream: bool,
}

/// A caller-owned byte queue. Messages are framed and written into the free space after `tail`,
/// committed by advancing `tail`, and transmitted from `head`.
pub(crate) struct TxQueue<'a> {
    buf: Storage<'a>,
    head: usize,
    tail: usize,
    records: Deque<Record, MAX_TX_RECORDS>,
    /// The id of the next SSE event.
    next_event: u64,
    /// The framing prefix written by the last [`TxQueue::open`].
    opened_prefix: usize,
}

/// Commits one message written into the window that [`TxQueue::open`] handed out.
/// A position in the transmit queue (see [`TxQueue::mark`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TxMark {
    tail: usize,
    head: usize,
    records: usize,
}

pub(crate) struct Commit<'q> {
    tail: &'q mut usize,
    records: &'q mut Deque<Record, MAX_TX_RECORDS>,
    next_event: &'q mut u64,
    route: Route,
    prefix_len: usize,
    merge: bool,
}

impl<'a> TxQueue<'a> {
    pub(crate) fn new(buf: impl Into<Storage<'a>>) -> Self {
        TxQueue { buf: buf.into(), head: 0, tail: 0, records: Deque::new(), next_event: 1, opened_prefix: 0 }
    }

    /// The buffer, to reuse it (what waits in it is dropped).
    #[cfg(feature = "alloc")]
    pub(crate) fn into_storage(self) -> Storage<'a> {
        self.buf
    }

    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Free space, counting what compaction would reclaim.
    pub(crate) fn free(&self) -> usize {
        self.buf.len() - (self.tail - self.head)
    }

    /// Nothing waits to be transmitted.
    pub(crate) fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The sequence number the next SSE event gets (kept across engines by `Engine::suspend`).
    pub(crate) fn next_event(&self) -> u64 {
        self.next_event
    }

    pub(crate) fn set_next_event(&mut self, next: u64) {
        self.next_event = next;
    }

    /// The next bytes to transmit.
    pub(crate) fn pending(&self) -> Option<Transmit<'_>> {
        let record = self.records.front()?;
        let bytes = self.buf.get(self.head..self.head + record.len).unwrap_or(&[]);
        Some(Transmit { stream: record.stream, bytes, end_of_stream: record.end })
    }

    /// Marks `n` bytes of [`TxQueue::pending`] as transmitted.
    pub(crate) fn consume(&mut self, n: usize) {
        let Some(record) = self.records.front_mut() else { return };
        let was_empty = record.len == 0;
        let taken = n.min(record.len);
        record.len -= taken;
        self.head += taken;
        if record.len == 0 && (taken > 0 || was_empty) {
            self.records.pop_front();
        }
        if self.records.is_empty() {
            self.head = 0;
            self.tail = 0;
        }
    }

    /// Whether a message for `route` could be queued now (record room; byte room is the window's).
    pub(crate) fn has_record_room(&self, stream: StreamId) -> bool {
        self.mergeable(stream) || !self.records.is_full()
    }

    fn mergeable(&self, stream: StreamId) -> bool {
        self.records.back().is_some_and(|last| last.stream == stream && !last.end)
    }

    /// Ends `stream` after what is queued for it.
    pub(crate) fn end_stream(&mut self, stream: StreamId) -> bool {
        if let Some(last) = self.records.back_mut().filter(|last| last.stream == stream && !last.end) {
            last.end = true;
            return true;
        }
        self.records.push_back(Record { stream, len: 0, end: true }).is_ok()
    }

    /// Where the next message will start, to [join](TxQueue::join_as_array) what follows.
    pub(crate) fn mark(&self) -> TxMark {
        TxMark { tail: self.tail, head: self.head, records: self.records.len() }
    }

    /// Rewrites the NDJSON lines queued since `mark` (`a\nb\nc\n`) as one array line
    /// (`[a,b,c]\n`), if they are all still queued (nothing transmitted or compacted since), all in
    /// the byte stream's last record, all accepted by `keep` (responses, not notifications or
    /// requests), and two more bytes are free. `false`, with nothing changed, otherwise.
    pub(crate) fn join_as_array(&mut self, mark: TxMark, keep: impl Fn(&[u8]) -> bool) -> bool {
        let (start, end) = (mark.tail, self.tail);
        if self.head != mark.head || start >= end || end + 2 > self.buf.len() {
            return false;
        }
        let Some(last) = self.records.back() else { return false };
        if last.end
            || last.stream != StreamId::BYTE_STREAM
            || end - last.len > start
            || self.records.len() < mark.records
        {
            return false;
        }
        // The lines and the two free bytes after them.
        let Some(region) = self.buf.get_mut(start..end + 2) else { return false };
        let Some((b'\n', content)) = region.get(..end - start).and_then(|lines| lines.split_last()) else {
            return false;
        };
        let mut rest = content;
        loop {
            let (line, tail) = rest.split_at(rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len()));
            if !keep(line) {
                return false;
            }
            let Some((_, tail)) = tail.split_first() else { break };
            rest = tail;
        }
        // `[`, the lines with commas between them, `]`, the newline.
        region.copy_within(..end - start - 1, 1);
        if let [open, lines @ .., close, newline] = region {
            *open = b'[';
            for byte in lines.iter_mut().filter(|b| **b == b'\n') {
                *byte = b',';
            }
            *close = b']';
            *newline = b'\n';
        }
        self.tail = end + 2;
        if let Some(last) = self.records.back_mut() {
            last.len += 2;
        }
        true
    }

    /// The first `len` bytes written into the window of the last [`TxQueue::open`] that was not
    /// committed (still there until the next write).
    pub(crate) fn uncommitted(&self, len: usize) -> &[u8] {
        let start = self.tail + self.opened_prefix;
        self.buf.get(start..start.saturating_add(len)).unwrap_or(&[])
    }

    /// Opens a message for `route` taking at most `len` bytes framed (prefix, message, suffix): writes
    /// the framing prefix and returns the window for the message and its suffix, with the committer.
    /// `None` when no record is free for the stream. Nothing is queued until the commit.
    pub(crate) fn open(&mut self, route: Route, len: usize) -> Option<(&mut [u8], Commit<'_>)> {
        let merge = self.mergeable(route.stream);
        if !merge && self.records.is_full() {
            return None;
        }
        if self.buf.len() - self.tail < len && self.head > 0 {
            self.buf.copy_within(self.head..self.tail, 0);
            self.tail -= self.head;
            self.head = 0;
        }
        let TxQueue { buf, tail, records, next_event, opened_prefix, .. } = self;
        let end = tail.saturating_add(len).min(buf.len());
        let window = buf.get_mut(*tail..end).unwrap_or(&mut []);
        let prefix_len = write_prefix(window, route, *next_event);
        *opened_prefix = prefix_len;
        let window = window.get_mut(prefix_len..).unwrap_or(&mut []);
        Some((window, Commit { tail, records, next_event, route, prefix_len, merge }))
    }
}

impl Commit<'_> {
    /// What the message must end with (written by the message writer, inside its window).
    pub(crate) fn suffix(&self) -> &'static [u8] {
        self.route.framing.suffix()
    }

    /// The route the message goes to.
    pub(crate) fn route(&self) -> Route {
        self.route
    }

    /// Commits the first `len` bytes of the window as one message and starts the next message of the
    /// same stream right behind it: its framing prefix is written at the start of `rest` (the window
    /// after those bytes), and its length returned (0 when `rest` has no room for it).
    pub(crate) fn commit_and_continue(&mut self, len: usize, rest: &mut [u8]) -> usize {
        if self.route.stream == StreamId::INTERNAL {
            return 0;
        }
        let total = self.prefix_len + len;
        *self.tail += total;
        if numbers_events(self.route.framing) {
            *self.next_event += 1;
        }
        match self.records.back_mut() {
            Some(last) if self.merge => last.len += total,
            _ => {
                let _ = self.records.push_back(Record { stream: self.route.stream, len: total, end: false });
            }
        }
        // The next message continues the record just written.
        self.merge = true;
        self.prefix_len = write_prefix(rest, self.route, *self.next_event);
        self.prefix_len
    }

    /// Queues the message: `len` bytes written into the window, suffix included. `end_of_stream`
    /// ends the stream after it.
    pub(crate) fn commit(self, len: usize, end_of_stream: bool) {
        // Nothing written for the engine's own stream is transmitted.
        if self.route.stream == StreamId::INTERNAL {
            return;
        }
        let total = self.prefix_len + len;
        *self.tail += total;
        if numbers_events(self.route.framing) {
            *self.next_event += 1;
        }
        match self.records.back_mut() {
            Some(last) if self.merge => {
                last.len += total;
                last.end = end_of_stream;
            }
            _ => {
                // `open` checked that a record is free.
                let _ = self.records.push_back(Record { stream: self.route.stream, len: total, end: end_of_stream });
            }
        }
    }
}

/// Whether messages of `framing` are numbered (SSE events, by `next_event`).
fn numbers_events(framing: Framing) -> bool {
    match framing {
        #[cfg(feature = "http")]
        Framing::Sse => true,
        _ => false,
    }
}

/// Writes the framing prefix of a message into `out`; returns its length (0 if it does not fit,
/// and then the message cannot fit either). An SSE event is named `<stream>-<event>`
/// ([`EventId`]), so a `Last-Event-ID` names the stream to resume as well as the position in it.
fn write_prefix(out: &mut [u8], route: Route, event: u64) -> usize {
    match route.framing {
        #[cfg(feature = "http")]
        Framing::Sse => {
            let event = SseEvent::new().with_id(EventId::new(route.stream.0, event));
            sse::prefix(&event, out).unwrap_or(0)
        }
        _ => {
            let _ = (out, event);
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue_message(tx: &mut TxQueue<'_>, route: Route, body: &[u8], end: bool) {
        let (window, commit) = tx.open(route, 64).unwrap();
        let suffix = commit.suffix();
        window[..body.len()].copy_from_slice(body);
        window[body.len()..body.len() + suffix.len()].copy_from_slice(suffix);
        commit.commit(body.len() + suffix.len(), end);
    }

    #[test]
    fn queued_lines_join_as_one_array_only_while_untouched() {
        let mut storage = [0u8; 64];
        let mut tx = TxQueue::new(&mut storage);
        queue_message(&mut tx, Route::BYTE_STREAM, b"{\"x\":0}", false);
        let mark = tx.mark();
        queue_message(&mut tx, Route::BYTE_STREAM, b"{\"a\":1}", false);
        queue_message(&mut tx, Route::BYTE_STREAM, b"{\"b\":2}", false);
        assert!(!tx.join_as_array(mark, |line| line != b"{\"b\":2}"), "a line it refuses");
        assert!(tx.join_as_array(mark, |_| true));
        assert_eq!(tx.pending().unwrap().bytes, b"{\"x\":0}\n[{\"a\":1},{\"b\":2}]\n");
        // Nothing queued since the mark, or part of it transmitted: left alone.
        let mark = tx.mark();
        assert!(!tx.join_as_array(mark, |_| true));
        queue_message(&mut tx, Route::BYTE_STREAM, b"{\"c\":3}", false);
        tx.consume(1);
        assert!(!tx.join_as_array(mark, |_| true));
    }

    /// Queues `body` with a window of exactly its framed length.
    fn queue_exact(tx: &mut TxQueue<'_>, route: Route, body: &[u8]) {
        let (window, commit) = tx.open(route, body.len() + 1).unwrap();
        window[..body.len()].copy_from_slice(body);
        window[body.len()] = b'\n';
        commit.commit(body.len() + 1, false);
    }

    #[test]
    fn a_join_needs_two_free_bytes_and_every_line_in_the_byte_streams_last_record() {
        for (size, joined) in [(18, true), (17, false)] {
            let mut storage = [0u8; 18];
            let mut tx = TxQueue::new(&mut storage[..size]);
            let mark = tx.mark();
            queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"a\":1}");
            queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"b\":2}");
            assert_eq!(tx.join_as_array(mark, |_| true), joined, "{size}");
            let expected: &[u8] = if joined { b"[{\"a\":1},{\"b\":2}]\n" } else { b"{\"a\":1}\n{\"b\":2}\n" };
            assert_eq!(tx.pending().unwrap().bytes, expected);
        }
        let mut storage = [0u8; 256];
        // What is queued after a join follows it.
        let mut tx = TxQueue::new(&mut storage);
        let mark = tx.mark();
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"a\":1}");
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"b\":2}");
        assert!(tx.join_as_array(mark, |_| true));
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"c\":3}");
        assert_eq!(tx.pending().unwrap().bytes, b"[{\"a\":1},{\"b\":2}]\n{\"c\":3}\n");
        // The head moved since the mark (a message before it was written out): left alone.
        let mut tx = TxQueue::new(&mut storage);
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"x\":0}");
        let mark = tx.mark();
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"a\":1}");
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"b\":2}");
        tx.consume(8);
        assert!(!tx.join_as_array(mark, |_| true));
        // The byte stream ended after them: left alone.
        let mut tx = TxQueue::new(&mut storage);
        let mark = tx.mark();
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"a\":1}");
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"b\":2}");
        assert!(tx.end_stream(StreamId::BYTE_STREAM));
        assert!(!tx.join_as_array(mark, |_| true));
        // Lines of another stream: left alone.
        let mut tx = TxQueue::new(&mut storage);
        let mark = tx.mark();
        let other = Route::new(StreamId(3), Framing::Body);
        queue_exact(&mut tx, other, b"{\"a\":1}");
        queue_exact(&mut tx, other, b"{\"b\":2}");
        assert!(!tx.join_as_array(mark, |_| true));
        // A message of another stream in between: the lines are in two records, left alone.
        let mut tx = TxQueue::new(&mut storage);
        let mark = tx.mark();
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"a\":1}");
        queue_exact(&mut tx, other, b"{\"o\":0}");
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"b\":2}");
        assert!(!tx.join_as_array(mark, |_| true));
        assert_eq!(tx.pending().unwrap().bytes, b"{\"a\":1}\n");
    }

    #[test]
    fn messages_continued_in_one_window_start_their_own_record_after_another_streams() {
        let mut storage = [0u8; 256];
        let mut tx = TxQueue::new(&mut storage);
        let other = Route::new(StreamId(3), Framing::Body);
        queue_exact(&mut tx, other, b"{\"o\":0}");
        let (window, mut commit) = tx.open(Route::BYTE_STREAM, 64).unwrap();
        window[..8].copy_from_slice(b"{\"a\":1}\n");
        let (_, rest) = window.split_at_mut(8);
        assert_eq!(commit.commit_and_continue(8, rest), 0, "no prefix on the byte stream");
        rest[..8].copy_from_slice(b"{\"b\":2}\n");
        commit.commit(8, false);
        let first = tx.pending().unwrap();
        assert_eq!((first.stream, first.bytes), (StreamId(3), &b"{\"o\":0}\n"[..]));
        tx.consume(8);
        let second = tx.pending().unwrap();
        assert_eq!((second.stream, second.bytes), (StreamId::BYTE_STREAM, &b"{\"a\":1}\n{\"b\":2}\n"[..]));
    }

    #[cfg(feature = "http")] // SSE framing
    #[test]
    fn the_uncommitted_message_is_read_after_its_framing_prefix() {
        let mut storage = [0u8; 256];
        let mut tx = TxQueue::new(&mut storage);
        queue_exact(&mut tx, Route::BYTE_STREAM, b"{\"x\":0}");
        let sse = Route::new(StreamId(7), Framing::Sse);
        let (window, _commit) = tx.open(sse, 64).unwrap();
        window[..7].copy_from_slice(b"{\"z\":9}");
        assert_eq!(tx.uncommitted(7), b"{\"z\":9}");
    }

    #[test]
    fn consecutive_messages_of_one_stream_come_out_together_and_compact() {
        let mut storage = [0u8; 64];
        let mut tx = TxQueue::new(&mut storage);
        queue_message(&mut tx, Route::BYTE_STREAM, b"{}", false);
        queue_message(&mut tx, Route::BYTE_STREAM, b"[]", false);
        let pending = tx.pending().unwrap();
        assert_eq!(pending.bytes, b"{}\n[]\n");
        assert_eq!(pending.stream, StreamId::BYTE_STREAM);
        assert!(!pending.end_of_stream);
        tx.consume(4);
        assert_eq!(tx.pending().unwrap().bytes, b"]\n");
        assert_eq!(tx.free(), 62);
        tx.consume(2);
        assert!(tx.pending().is_none());
        assert!(tx.is_empty());
        assert_eq!(tx.free(), 64);
    }

    #[cfg(feature = "http")] // SSE framing
    #[test]
    fn one_message_framed_three_ways() {
        let mut storage = [0u8; 128];
        let mut tx = TxQueue::new(&mut storage);
        let sse = Route::new(StreamId(7), Framing::Sse);
        let body = Route::new(StreamId(8), Framing::Body).ending_with_response();
        queue_message(&mut tx, Route::BYTE_STREAM, b"{\"a\":1}", false);
        queue_message(&mut tx, sse, b"{\"a\":1}", false);
        queue_message(&mut tx, sse, b"{\"a\":1}", true);
        queue_message(&mut tx, body, b"{\"a\":1}", true);
        let expect: [(u32, &[u8], bool); 3] = [
            (0, b"{\"a\":1}\n", false),
            (7, b"id: 7-1\ndata: {\"a\":1}\n\nid: 7-2\ndata: {\"a\":1}\n\n", true),
            (8, b"{\"a\":1}", true),
        ];
        for (stream, bytes, end) in expect {
            let t = tx.pending().unwrap();
            assert_eq!((t.stream, t.bytes, t.end_of_stream), (StreamId(stream), bytes, end));
            let n = t.bytes.len();
            tx.consume(n);
        }
        assert!(tx.pending().is_none());
    }

    #[cfg(feature = "http")] // SSE framing
    #[test]
    fn streams_end_with_an_empty_transmit_and_records_are_bounded() {
        let mut storage = [0u8; 256];
        let mut tx = TxQueue::new(&mut storage);
        for stream in 0..MAX_TX_RECORDS as u32 {
            assert!(tx.has_record_room(StreamId(stream + 1)));
            queue_message(&mut tx, Route::new(StreamId(stream + 1), Framing::Sse), b"1", false);
        }
        assert!(!tx.has_record_room(StreamId(99)));
        assert!(tx.open(Route::new(StreamId(99), Framing::Sse), 64).is_none());
        // The last stream can still take messages, and be ended without one.
        assert!(tx.has_record_room(StreamId(MAX_TX_RECORDS as u32)));
        assert!(tx.end_stream(StreamId(MAX_TX_RECORDS as u32)));
        for _ in 0..MAX_TX_RECORDS - 1 {
            let n = tx.pending().unwrap().bytes.len();
            tx.consume(n);
        }
        assert!(tx.end_stream(StreamId(42)));
        let last = tx.pending().unwrap();
        assert!(last.end_of_stream && !last.bytes.is_empty());
        let n = last.bytes.len();
        tx.consume(n);
        let marker = tx.pending().unwrap();
        assert_eq!((marker.stream, marker.bytes, marker.end_of_stream), (StreamId(42), &b""[..], true));
        tx.consume(0);
        assert!(tx.pending().is_none());
    }
}
