//! What the `line` and `sse` targets share: a decoder fed one stream in chunks a schedule chooses
//! (`push`, or `spare`/`commit` with over-commits and repeated `spare`s), with what it decoded taken
//! at moments the schedule chooses too, checked after every call; then, after `finish`, the same
//! stream pushed whole into the reused decoder. Both must report what the target's model does.

use std::fmt::Debug;

use crate::input::Input;

/// The capacity encoded by `byte`: 0–127 exactly, or multiples of 16 up to 2032.
pub fn capacity_of(byte: u8) -> usize {
    if byte & 0x80 == 0 { usize::from(byte) } else { usize::from(byte & 0x7f) * 16 }
}

/// A decoder under test: its calls, and how the target takes and checks what it decoded.
pub trait Decoder {
    /// What the target records of a decoded item or an error.
    type Event: Debug + PartialEq;
    /// The decoder's `push`.
    fn push(&mut self, data: &[u8]) -> usize;
    /// The decoder's `spare`.
    fn spare(&mut self) -> &mut [u8];
    /// The decoder's `commit`.
    fn commit(&mut self, n: usize);
    /// The decoder's `buffered`.
    fn buffered(&self) -> usize;
    /// The decoder's `is_discarding`.
    fn is_discarding(&self) -> bool;
    /// The capacity the decoder was made with.
    fn capacity(&self) -> usize;
    /// Takes the next decoded item or error into `out`, checking it and the decoder ([`check`](Self::check)
    /// where a call allows it); `false` when there is none.
    fn take(&mut self, out: &mut Vec<Self::Event>) -> bool;
    /// The decoder's `finish`, what it reports into `out`.
    fn finish(&mut self, out: &mut Vec<Self::Event>);
    /// The invariants that hold after every call.
    fn check(&mut self);
}

/// A decoder and what was taken from it.
struct Fed<D: Decoder> {
    decoder: D,
    out: Vec<D::Event>,
    stream_len: usize,
}

impl<D: Decoder> Fed<D> {
    fn check(&mut self) {
        assert!(self.decoder.buffered() <= self.decoder.capacity(), "buffered more than the capacity");
        self.decoder.check();
    }

    /// Takes at most `limit` items.
    fn drain(&mut self, limit: usize) {
        for _ in 0..limit {
            if !self.decoder.take(&mut self.out) {
                return;
            }
        }
    }

    fn drain_all(&mut self) {
        // Every item and every error stands for at least one byte of the stream, so a correct
        // decoder never reaches this bound.
        self.drain(self.stream_len + 1);
        assert!(!self.decoder.take(&mut Vec::new()), "items left after draining");
    }

    /// The decoder is full of complete items: draining must make room again.
    fn unstall(&mut self) {
        assert_eq!(self.decoder.buffered(), self.decoder.capacity(), "no room although the buffer is not full");
        self.drain_all();
        assert!(!self.decoder.spare().is_empty(), "the reader is stuck after draining");
        self.check();
    }

    /// Feeds `data` with `push`; returns how many bytes were taken.
    fn push(&mut self, data: &[u8]) -> usize {
        let taken = self.decoder.push(data);
        self.check();
        assert!(taken <= data.len());
        if taken < data.len() {
            self.unstall();
        }
        taken
    }

    /// Feeds up to `data.len()` bytes with one `spare`/`commit` round; returns how many were taken.
    fn read(&mut self, data: &[u8], overcommit: usize, spare_twice: bool) -> usize {
        if spare_twice {
            let _ = self.decoder.spare();
        }
        let capacity = self.decoder.capacity();
        let spare = self.decoder.spare();
        let room = spare.len();
        assert!(room <= capacity.max(1), "spare larger than the buffer");
        if room == 0 {
            self.unstall();
            return 0;
        }
        let n = room.min(data.len());
        spare[..n].copy_from_slice(&data[..n]);
        // Committing more than `spare` offered is clamped to it; only try when it was filled.
        let committed = if n == room { n + overcommit } else { n };
        self.decoder.commit(committed);
        self.check();
        n
    }

    /// `finish`, then what was taken since the last call (the decoder left empty).
    fn finish(&mut self) -> Vec<D::Event> {
        self.drain_all();
        self.decoder.finish(&mut self.out);
        self.check();
        assert_eq!(self.decoder.buffered(), 0, "finish leaves bytes behind");
        assert!(!self.decoder.is_discarding());
        std::mem::take(&mut self.out)
    }
}

/// Reads `schedule length byte, schedule bytes…` from `input`; the rest is the stream.
pub fn schedule_and_stream<'a>(input: &mut Input<'a>) -> (Vec<u8>, &'a [u8]) {
    let schedule_len = input.below(17);
    let schedule = input.bytes(schedule_len).to_vec();
    (schedule, input.rest())
}

/// Feeds `stream` to `decoder` as `schedule` says, then pushed whole after `finish`; both times it
/// must report `expected` (`model` names the model in the panic message).
pub fn run<D: Decoder>(decoder: D, schedule: &[u8], stream: &[u8], expected: &[D::Event], model: &str) {
    let mut fed = Fed { decoder, out: Vec::new(), stream_len: stream.len() };
    let mut rest = stream;
    let mut step = 0usize;
    let mut idle_steps = 0usize;
    while !rest.is_empty() {
        let op = schedule.get(step % schedule.len().max(1)).copied().unwrap_or(0);
        step += 1;
        let len = usize::from(op & 0x1f) + 1;
        let taken = match op >> 5 {
            0 => fed.push(&rest[..len.min(rest.len())]),
            1 => fed.push(&rest[..(len * 64).min(rest.len())]),
            2 => fed.read(rest, 0, false),
            3 => fed.read(&rest[..len.min(rest.len())], usize::from(op & 3), op & 4 != 0),
            4 => fed.read(&rest[..1], 0, false),
            5 => {
                fed.drain(usize::from(op & 3));
                0
            }
            6 => {
                fed.drain_all();
                0
            }
            _ => fed.push(rest),
        };
        rest = &rest[taken..];
        // A schedule that only drains (or keeps hitting a full buffer) falls back to pushing.
        idle_steps = if taken == 0 { idle_steps + 1 } else { 0 };
        if idle_steps > schedule.len() + 1 {
            let taken = fed.push(rest);
            rest = &rest[taken..];
        }
        if op & 0x10 != 0 {
            fed.drain_all();
        }
    }
    assert_eq!(fed.finish(), expected, "what was decoded differs from the {model}");

    // The decoder is reusable after `finish`: the same stream pushed whole gives the same.
    let mut rest = stream;
    while !rest.is_empty() {
        let taken = fed.push(rest);
        rest = &rest[taken..];
        fed.drain_all();
    }
    assert_eq!(fed.finish(), expected, "a reused decoder disagrees");
}
