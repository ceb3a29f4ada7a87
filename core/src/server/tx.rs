//! The transmit buffer: committed messages waiting to be written, and a window for the next one.

/// A caller-owned byte queue. Messages are written into the free space after `tail` and committed by
/// advancing `tail`; the adapter drains from `head`.
pub(crate) struct TxBuffer<'a> {
    buf: &'a mut [u8],
    head: usize,
    tail: usize,
}

impl<'a> TxBuffer<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        TxBuffer { buf, head: 0, tail: 0 }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Committed bytes not yet transmitted.
    pub(crate) fn pending(&self) -> &[u8] {
        self.buf.get(self.head..self.tail).unwrap_or(&[])
    }

    /// Free space, counting what compaction would reclaim.
    pub(crate) fn free(&self) -> usize {
        self.buf.len() - (self.tail - self.head)
    }

    /// Marks `n` pending bytes as transmitted.
    pub(crate) fn consume(&mut self, n: usize) {
        self.head = self.head.saturating_add(n).min(self.tail);
        if self.head == self.tail {
            self.head = 0;
            self.tail = 0;
        }
    }

    /// A window of up to `len` free bytes right after the committed bytes, and the commit cursor to
    /// advance by what is written there. Compacts first when that makes the window longer.
    pub(crate) fn window(&mut self, len: usize) -> (&mut [u8], &mut usize) {
        if self.buf.len() - self.tail < len && self.head > 0 {
            self.buf.copy_within(self.head..self.tail, 0);
            self.tail -= self.head;
            self.head = 0;
        }
        let start = self.tail;
        let end = start.saturating_add(len).min(self.buf.len());
        let window = self.buf.get_mut(start..end).unwrap_or(&mut []);
        (window, &mut self.tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_compact_and_commit() {
        let mut storage = [0u8; 8];
        let mut tx = TxBuffer::new(&mut storage);
        let (w, tail) = tx.window(8);
        w[..6].copy_from_slice(b"abcdef");
        *tail += 6;
        assert_eq!(tx.pending(), b"abcdef");
        tx.consume(4);
        assert_eq!(tx.pending(), b"ef");
        assert_eq!(tx.free(), 6);
        let (w, tail) = tx.window(6);
        assert_eq!(w.len(), 6);
        w[..3].copy_from_slice(b"ghi");
        *tail += 3;
        assert_eq!(tx.pending(), b"efghi");
        tx.consume(99);
        assert!(tx.pending().is_empty());
        assert_eq!(tx.free(), 8);
    }
}
