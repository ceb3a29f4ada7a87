//! [`StderrTail`]: the last bytes a child process wrote on stderr, kept for error messages.

use std::string::String;
use std::sync::{Arc, Mutex, PoisonError};
use std::vec::Vec;

/// Bytes of a child's stderr kept (the most recent).
pub const STDERR_TAIL: usize = 8 * 1024;

/// The last [`STDERR_TAIL`] bytes of a child's stderr: the transport that drains the child's
/// stderr (so it never blocks on it) [`push`](Self::push)es what it reads; clones share it.
#[derive(Clone, Debug, Default)]
pub struct StderrTail(Arc<Mutex<Vec<u8>>>);

impl StderrTail {
    /// An empty tail.
    pub fn new() -> Self {
        StderrTail::default()
    }

    /// Keeps `bytes`, dropping the oldest beyond [`STDERR_TAIL`].
    pub fn push(&self, bytes: &[u8]) {
        let mut tail = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        tail.extend_from_slice(bytes);
        let excess = tail.len().saturating_sub(STDERR_TAIL);
        tail.drain(..excess);
    }

    /// What is kept, as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_bytes_are_kept() {
        let tail = StderrTail::new();
        tail.push(b"first\n");
        assert_eq!(tail.text(), "first\n");
        tail.push(&std::vec![b'x'; STDERR_TAIL]);
        assert_eq!(tail.text().len(), STDERR_TAIL);
        assert!(!tail.text().contains("first"));
    }
}
