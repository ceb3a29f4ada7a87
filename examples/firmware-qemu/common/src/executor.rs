//! A minimal executor for one future: poll it, and sleep (`wfi`) until an interrupt wakes it.
//!
//! The firmware has exactly one task, the MCP server, so nothing more is needed: the waker only
//! sets a flag, and interrupts (UART, the tick) are what end the sleep.

use core::future::Future;
use core::pin::pin;
use core::sync::atomic::{AtomicBool, Ordering};
use core::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

use crate::arch;

static WOKEN: AtomicBool = AtomicBool::new(true);

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake, drop);

fn clone(_: *const ()) -> RawWaker {
    RawWaker::new(core::ptr::null(), &VTABLE)
}

fn wake(_: *const ()) {
    WOKEN.store(true, Ordering::Release);
}

fn drop(_: *const ()) {}

/// Takes the wake-up flag: a swap where the core has one; on ARMv6-M (no compare-and-swap) a load
/// and a store with interrupts masked.
#[inline(always)]
fn take_woken() -> bool {
    #[cfg(target_has_atomic = "8")]
    {
        WOKEN.swap(false, Ordering::Acquire)
    }
    #[cfg(not(target_has_atomic = "8"))]
    critical_section::with(|_| {
        let woken = WOKEN.load(Ordering::Relaxed);
        WOKEN.store(false, Ordering::Relaxed);
        woken
    })
}

/// Runs the future that `make` returns to completion on this core; `idle` runs each time before the
/// core sleeps.
///
/// The future is made here, in this frame: taken by value, it would be made in the caller's frame
/// and copied into this one, and the stack would hold it twice.
pub fn block_on<F: Future>(make: impl FnOnce() -> F, mut idle: impl FnMut()) -> F::Output {
    // SAFETY: the vtable functions ignore the data pointer and are thread-safe (one atomic store).
    let waker = unsafe { Waker::from_raw(RawWaker::new(core::ptr::null(), &VTABLE)) };
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(make());
    let mut polled_since_idle = false;
    loop {
        if take_woken() {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            polled_since_idle = true;
            continue;
        }
        if polled_since_idle {
            // Once per wait, not on every tick that ends a `wfi` without waking the task.
            polled_since_idle = false;
            idle();
            continue;
        }
        arch::sleep_unless(|| WOKEN.load(Ordering::Acquire));
    }
}
