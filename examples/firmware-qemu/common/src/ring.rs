//! The receive ring between a UART's interrupt handler and the task: the handler pushes what the
//! UART received, `read` copies it out. Loads and stores only (no compare-and-swap), so ARMv6-M
//! builds it too.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicUsize, Ordering};

/// Single-producer (interrupt handler) single-consumer (task) byte ring of `N` bytes, a power of two.
pub struct Ring<const N: usize> {
    bytes: UnsafeCell<[u8; N]>,
    /// Total bytes pushed (wrapping); only the producer stores it.
    head: AtomicUsize,
    /// Total bytes popped (wrapping); only the consumer stores it.
    tail: AtomicUsize,
}

// SAFETY: one producer and one consumer touch disjoint slots, ordered by `head`/`tail`.
unsafe impl<const N: usize> Sync for Ring<N> {}

impl<const N: usize> Ring<N> {
    pub const fn new() -> Self {
        assert!(N.is_power_of_two());
        Ring { bytes: UnsafeCell::new([0; N]), head: AtomicUsize::new(0), tail: AtomicUsize::new(0) }
    }

    pub fn is_full(&self) -> bool {
        self.head.load(Ordering::Relaxed).wrapping_sub(self.tail.load(Ordering::Acquire)) == N
    }

    /// Producer only (inside a critical section), and only when not [`is_full`](Self::is_full).
    pub fn push(&self, byte: u8) {
        let head = self.head.load(Ordering::Relaxed);
        // SAFETY: the slot at `head` is not readable by the consumer until `head` moves past it.
        unsafe { (*self.bytes.get())[head % N] = byte };
        self.head.store(head.wrapping_add(1), Ordering::Release);
    }

    /// Consumer only: copies out up to `out.len()` bytes.
    pub fn pop_into(&self, out: &mut [u8]) -> usize {
        let tail = self.tail.load(Ordering::Relaxed);
        let available = self.head.load(Ordering::Acquire).wrapping_sub(tail);
        let n = available.min(out.len());
        for (i, slot) in out[..n].iter_mut().enumerate() {
            // SAFETY: slots between `tail` and `head` were published by the producer.
            *slot = unsafe { (*self.bytes.get())[tail.wrapping_add(i) % N] };
        }
        self.tail.store(tail.wrapping_add(n), Ordering::Release);
        n
    }
}

impl<const N: usize> Default for Ring<N> {
    fn default() -> Self {
        Self::new()
    }
}
