//! The board's 1 kHz tick from SysTick, counted by `firmware_common::clock`.

use cortex_m::peripheral::SYST;
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::exception;

/// The core clock after reset (the board's 12 MHz oscillator; QEMU models the same).
pub const CORE_HZ: u32 = 12_000_000;

/// Starts the 1 kHz tick.
pub fn start(mut syst: SYST) {
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(CORE_HZ / 1000 - 1);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

#[exception]
fn SysTick() {
    firmware_common::clock::tick();
}
