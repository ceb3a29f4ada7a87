//! Milliseconds since boot, counted by the board's 1 kHz tick interrupt ([`tick`]), and waiting for
//! a deadline ([`TickClock`], the driver's clock).

use core::cell::Cell;
use core::future::poll_fn;
use core::task::Poll;

use critical_section::Mutex;
use mcp_sansio::time::Instant;
use mcp_sansio_embedded::Clock;

use crate::waker::WakerSlot;

static MILLIS: Mutex<Cell<u64>> = Mutex::new(Cell::new(0));
static DEADLINE: Mutex<Cell<Option<u64>>> = Mutex::new(Cell::new(None));
static TIMER: WakerSlot = WakerSlot::new();

/// Milliseconds since the board started its tick.
pub fn now() -> Instant {
    Instant::from_millis(critical_section::with(|cs| MILLIS.borrow(cs).get()))
}

/// Counts one millisecond; the board's tick interrupt calls it, and it wakes the task whose
/// deadline came.
pub fn tick() {
    let due = critical_section::with(|cs| {
        let millis = MILLIS.borrow(cs).get() + 1;
        MILLIS.borrow(cs).set(millis);
        let deadline = DEADLINE.borrow(cs);
        let due = deadline.get().is_some_and(|at| at <= millis);
        if due {
            deadline.set(None);
        }
        due
    });
    if due {
        TIMER.wake();
    }
}

/// The [`Clock`] the driver uses.
pub struct TickClock;

impl Clock for TickClock {
    fn now(&self) -> Instant {
        now()
    }

    async fn wait_until(&mut self, deadline: Instant) {
        poll_fn(|cx| {
            if now() >= deadline {
                return Poll::Ready(());
            }
            TIMER.register(cx.waker());
            critical_section::with(|cs| DEADLINE.borrow(cs).set(Some(deadline.as_millis())));
            if now() >= deadline { Poll::Ready(()) } else { Poll::Pending }
        })
        .await
    }
}
