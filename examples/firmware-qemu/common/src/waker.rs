//! A single-slot waker shared between a task and an interrupt handler.

use core::cell::RefCell;
use core::task::Waker;

use critical_section::Mutex;

/// Holds the waker of the one task waiting on an event; the interrupt handler wakes it.
pub struct WakerSlot(Mutex<RefCell<Option<Waker>>>);

impl WakerSlot {
    pub const fn new() -> Self {
        WakerSlot(Mutex::new(RefCell::new(None)))
    }

    /// Remembers `waker` (replacing the previous one unless it would wake the same task).
    pub fn register(&self, waker: &Waker) {
        critical_section::with(|cs| {
            let mut slot = self.0.borrow(cs).borrow_mut();
            match slot.as_ref() {
                Some(current) if current.will_wake(waker) => {}
                _ => *slot = Some(waker.clone()),
            }
        });
    }

    /// Wakes the registered task, if any.
    pub fn wake(&self) {
        if let Some(waker) = critical_section::with(|cs| self.0.borrow(cs).borrow_mut().take()) {
            waker.wake();
        }
    }
}

impl Default for WakerSlot {
    fn default() -> Self {
        Self::new()
    }
}
