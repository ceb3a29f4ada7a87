//! Milliseconds since boot from SysTick, and waiting for a deadline.

use core::cell::Cell;
use core::future::poll_fn;
use core::task::Poll;

use cortex_m::interrupt::{self, Mutex};
use cortex_m::peripheral::SYST;
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::exception;
use mcp_sansio::time::Instant;
use mcp_sansio_embedded::Clock;

use crate::waker::WakerSlot;

/// The core clock after reset (the board's 12 MHz oscillator; QEMU models the same).
pub const CORE_HZ: u32 = 12_000_000;

static MILLIS: Mutex<Cell<u64>> = Mutex::new(Cell::new(0));
static DEADLINE: Mutex<Cell<Option<u64>>> = Mutex::new(Cell::new(None));
static TIMER: WakerSlot = WakerSlot::new();

/// Starts the 1 kHz tick.
pub fn start(mut syst: SYST) {
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(CORE_HZ / 1000 - 1);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

/// Milliseconds since [`start`].
pub fn now() -> Instant {
    Instant::from_millis(interrupt::free(|cs| MILLIS.borrow(cs).get()))
}

#[exception]
fn SysTick() {
    let due = interrupt::free(|cs| {
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
pub struct SysTickClock;

impl Clock for SysTickClock {
    fn now(&self) -> Instant {
        now()
    }

    async fn wait_until(&mut self, deadline: Instant) {
        poll_fn(|cx| {
            if now() >= deadline {
                return Poll::Ready(());
            }
            TIMER.register(cx.waker());
            interrupt::free(|cs| DEADLINE.borrow(cs).set(Some(deadline.as_millis())));
            if now() >= deadline { Poll::Ready(()) } else { Poll::Pending }
        })
        .await
    }
}
