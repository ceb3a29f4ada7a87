//! What the receive buffers of every input framing share: a window of received bytes in a
//! caller-owned buffer, read into through `spare` and `commit`, compacted when that pays, with a
//! one-byte slot beyond a full buffer and the skipping of over-long input.

use crate::storage::Storage;

/// A receive buffer that is read into through a spare slice and a commit.
pub(crate) trait Intake {
    /// Free space to read into (may be a one-byte slot, or empty when complete input must be taken
    /// first).
    fn spare(&mut self) -> &mut [u8];
    /// Marks the first `n` bytes of the last `spare` as received.
    fn commit(&mut self, n: usize);
}

/// Copies as much of `data` as `target` takes and returns how many bytes that was: less than
/// `data.len()` only when `target` offers no room until complete input is taken out of it.
pub(crate) fn push(target: &mut impl Intake, data: &[u8]) -> usize {
    let mut taken = 0;
    while let Some(rest) = data.get(taken..)
        && !rest.is_empty()
    {
        let spare = target.spare();
        let n = spare.len().min(rest.len());
        let (Some(destination), Some(source)) = (spare.get_mut(..n), rest.get(..n)) else {
            break;
        };
        if n == 0 {
            break; // full of complete input: the caller must take it first
        }
        destination.copy_from_slice(source);
        target.commit(n);
        taken += n;
    }
    taken
}

/// The received bytes of a decoder. Invariant: `start <= scan <= end <= buf.len()`; what `scan`
/// means beyond that is the decoder's.
pub(crate) struct RxWindow<'a> {
    pub(crate) buf: Storage<'a>,
    /// First byte not yet returned or dropped.
    pub(crate) start: usize,
    /// First byte not yet scanned by the decoder.
    pub(crate) scan: usize,
    /// End of the received bytes.
    pub(crate) end: usize,
    /// Skipping the rest of over-long input: bytes are dropped as they are scanned.
    pub(crate) discarding: bool,
    /// `TooLong` errors detected but not yet returned.
    pub(crate) overflows_to_report: usize,
    /// The one-byte slot offered when the buffer is full of one unfinished unit.
    lookahead: u8,
    /// The last spare was the one-byte slot, so the commit reads from it.
    lookahead_offered: bool,
}

impl<'a> RxWindow<'a> {
    pub(crate) fn new(buf: impl Into<Storage<'a>>) -> Self {
        RxWindow {
            buf: buf.into(),
            start: 0,
            scan: 0,
            end: 0,
            discarding: false,
            overflows_to_report: 0,
            lookahead: 0,
            lookahead_offered: false,
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Bytes received but not yet returned or dropped.
    pub(crate) fn buffered(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// Forgets that a one-byte slot was offered (a new `spare` begins).
    pub(crate) fn begin_spare(&mut self) {
        self.lookahead_offered = false;
    }

    /// The free tail of the buffer (empty when the buffer is full).
    pub(crate) fn tail(&mut self) -> &mut [u8] {
        self.buf.get_mut(self.end..).unwrap_or_default()
    }

    /// The one-byte slot beyond a full buffer; its byte comes back from [`RxWindow::commit`].
    pub(crate) fn lookahead_slot(&mut self) -> &mut [u8] {
        self.lookahead_offered = true;
        core::slice::from_mut(&mut self.lookahead)
    }

    /// Marks `n` bytes of the last spare as received: the byte read into the one-byte slot, if that
    /// was the spare and `n > 0` (for the decoder to judge), otherwise `None` after extending the
    /// window (clamped to the free tail).
    pub(crate) fn commit(&mut self, n: usize) -> Option<u8> {
        if core::mem::take(&mut self.lookahead_offered) {
            return (n > 0).then_some(self.lookahead);
        }
        let room = self.capacity().saturating_sub(self.end);
        self.end = self.end.saturating_add(n.min(room));
        None
    }

    /// Empties the window for a new stream (pending errors are dropped).
    pub(crate) fn reset(&mut self) {
        self.start = 0;
        self.scan = 0;
        self.end = 0;
        self.discarding = false;
        self.overflows_to_report = 0;
        self.lookahead_offered = false;
    }

    /// The input filling the buffer has one byte too many: drops it, skips to its end, and counts
    /// the error to report.
    pub(crate) fn reject_overlong(&mut self) {
        self.start = 0;
        self.scan = 0;
        self.end = 0;
        self.discarding = true;
        self.overflows_to_report = self.overflows_to_report.saturating_add(1);
    }

    /// Moves the unconsumed bytes to the front when the freed front is larger than the free tail
    /// (so each move at least doubles the room), or for free when nothing is buffered. Returns how
    /// far the bytes moved down (0: not moved), for offsets the decoder keeps.
    pub(crate) fn compact_if_useful(&mut self) -> usize {
        let tail_room = self.capacity().saturating_sub(self.end);
        let worth_it = self.start > 0 && (self.start == self.end || self.start > tail_room);
        if !worth_it || self.start > self.end || self.end > self.capacity() {
            return 0;
        }
        let shift = self.start;
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= shift;
        self.scan = self.scan.saturating_sub(shift);
        self.start = 0;
        shift
    }

    pub(crate) fn debug_check_invariants(&self) {
        debug_assert!(self.start <= self.scan && self.scan <= self.end && self.end <= self.capacity());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window over `buf` holding `start..end`, all of it scanned.
    fn window(buf: &mut [u8], start: usize, end: usize) -> RxWindow<'_> {
        let mut rx = RxWindow::new(buf);
        (rx.start, rx.scan, rx.end) = (start, end, end);
        rx
    }

    #[test]
    fn compacts_only_when_that_more_than_doubles_the_room_or_costs_nothing() {
        const BYTES: &[u8; 8] = b"abcdefgh";
        // (start, end, how far the bytes move): the freed front must be larger than the free tail,
        // unless nothing is left to move.
        for (start, end, shift) in [
            (0, 0, 0),
            (0, 5, 0),
            (1, 3, 0), // front 1, tail 5
            (3, 5, 0), // front 3, tail 3: not larger
            (4, 5, 4), // front 4, tail 3
            (5, 7, 5),
            (5, 8, 5),
            (2, 2, 2), // everything consumed: moving nothing is free
            (8, 8, 8),
        ] {
            let mut buf = *BYTES;
            let mut rx = window(&mut buf, start, end);
            assert_eq!(rx.compact_if_useful(), shift, "{start}..{end}");
            let kept = end - start;
            if shift == 0 {
                assert_eq!((rx.start, rx.scan, rx.end), (start, end, end), "{start}..{end}");
            } else {
                assert_eq!((rx.start, rx.scan, rx.end), (0, kept, kept), "{start}..{end}");
                assert_eq!(&rx.buf[..kept], &BYTES[start..end], "{start}..{end}");
            }
        }
    }

    #[test]
    fn a_new_spare_forgets_the_one_byte_slot() {
        let mut buf = [0u8; 4];
        let mut rx = RxWindow::new(&mut buf);
        rx.lookahead_slot()[0] = b'x';
        // Not committed; the next spare is the tail, so the next commit extends the window.
        rx.begin_spare();
        rx.tail()[..2].copy_from_slice(b"ab");
        assert_eq!(rx.commit(2), None);
        assert_eq!((rx.end, &rx.buf[..2]), (2, &b"ab"[..]));
    }

    #[test]
    fn committing_nothing_through_the_one_byte_slot_gives_no_byte() {
        let mut buf = [0u8; 4];
        let mut rx = RxWindow::new(&mut buf);
        rx.tail().copy_from_slice(b"abcd");
        assert_eq!(rx.commit(4), None);
        rx.begin_spare();
        rx.lookahead_slot()[0] = b'\n';
        assert_eq!(rx.commit(0), None);
        rx.begin_spare();
        rx.lookahead_slot()[0] = b'\n';
        assert_eq!(rx.commit(1), Some(b'\n'));
        assert_eq!(rx.end, 4);
    }
}
