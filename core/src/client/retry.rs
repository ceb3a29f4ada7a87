//! The client's side of 2026-07-28 multi-round-trip requests: the params of each request that may
//! be answered `input_required` (`tools/call`, `prompts/get`, `resources/read`), kept in a
//! caller-provided buffer so the request can be retried with the answers.
//!
//! Each record: the key the application holds (the first request's), the key of the request now
//! on the wire, the method, the rounds so far, and the members of the original params as written.

use crate::endpoint::OutboundKey;
use crate::storage::Storage;

/// The methods a 2026-07-28 server may answer `input_required`.
pub(crate) const RETRYABLE: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];

const HEAD: usize = 8 + 8 + 1 + 1 + 2;

/// One kept request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) original: i64,
    pub(crate) current: i64,
    pub(crate) method: u8,
    pub(crate) rounds: u8,
    pub(crate) at: usize,
    pub(crate) len: usize,
}

/// The records, one after another from the start of the buffer.
#[derive(Debug, Default)]
pub(crate) struct RetryArea<'a> {
    buf: Storage<'a>,
    used: usize,
}

impl<'a> RetryArea<'a> {
    pub(crate) fn new(buf: Storage<'a>) -> Self {
        RetryArea { buf, used: 0 }
    }

    /// Room for params of up to this many bytes, to write them into: at most `u16::MAX`, the
    /// longest a record describes.
    pub(crate) fn spare(&mut self) -> &mut [u8] {
        let start = (self.used + HEAD).min(self.buf.len());
        let end = self.buf.len().min(start + usize::from(u16::MAX));
        &mut self.buf[start..end]
    }

    /// Keeps the `len` bytes written into [`spare`](Self::spare) as the params of `method` sent
    /// under `key`.
    pub(crate) fn keep(&mut self, key: OutboundKey, method: u8, len: usize) {
        let at = self.used;
        if at + HEAD + len > self.buf.len() {
            return;
        }
        self.buf[at..at + 8].copy_from_slice(&key.id().to_le_bytes());
        self.buf[at + 8..at + 16].copy_from_slice(&key.id().to_le_bytes());
        self.buf[at + 16] = method;
        self.buf[at + 17] = 0;
        self.buf[at + 18..at + 20].copy_from_slice(&(len as u16).to_le_bytes());
        self.used = at + HEAD + len;
    }

    fn records(&self) -> impl Iterator<Item = Record> + '_ {
        let mut at = 0;
        core::iter::from_fn(move || {
            if at + HEAD > self.used {
                return None;
            }
            let b = &self.buf[at..at + HEAD];
            let i64_at = |i: usize| i64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
            let len = usize::from(u16::from_le_bytes([b[18], b[19]]));
            let record =
                Record { original: i64_at(0), current: i64_at(8), method: b[16], rounds: b[17], at: at + HEAD, len };
            at += HEAD + len;
            Some(record)
        })
    }

    /// The record of the request on the wire under `current`.
    pub(crate) fn by_current(&self, current: i64) -> Option<Record> {
        self.records().find(|r| r.current == current)
    }

    /// The record of the application's request `original`.
    pub(crate) fn by_original(&self, original: i64) -> Option<Record> {
        self.records().find(|r| r.original == original)
    }

    /// The kept params of `record`.
    pub(crate) fn params(&self, record: &Record) -> &[u8] {
        &self.buf[record.at..record.at + record.len]
    }

    /// The request of `record` is now on the wire under `current`, one round later.
    pub(crate) fn advance(&mut self, record: &Record, current: OutboundKey) {
        let head = record.at - HEAD;
        self.buf[head + 8..head + 16].copy_from_slice(&current.id().to_le_bytes());
        self.buf[head + 17] = record.rounds.saturating_add(1);
    }

    /// Forgets `record`.
    pub(crate) fn remove(&mut self, record: &Record) {
        let (start, end) = (record.at - HEAD, record.at + record.len);
        self.buf.copy_within(end..self.used, start);
        self.used -= end - start;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_kept_found_advanced_and_removed() {
        let mut buf = [0u8; 96];
        let mut area = RetryArea::new((&mut buf).into());
        let key = OutboundKey::from_id;
        area.spare()[..3].copy_from_slice(b"abc");
        area.keep(key(1), 0, 3);
        area.spare()[..2].copy_from_slice(b"de");
        area.keep(key(2), 2, 2);
        let first = area.by_original(1).unwrap();
        assert_eq!(area.params(&first), b"abc");
        area.advance(&first, key(5));
        let first = area.by_current(5).unwrap();
        assert_eq!((first.original, first.rounds), (1, 1));
        area.remove(&first);
        assert!(area.by_original(1).is_none());
        let second = area.by_current(2).unwrap();
        assert_eq!((area.params(&second), second.method), (&b"de"[..], 2));
        // A record that does not fit is not kept.
        assert!(area.spare().len() < 80);
        area.keep(key(3), 0, 80);
        assert!(area.by_original(3).is_none());
    }
}
