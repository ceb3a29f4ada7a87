//! The board's 1 kHz tick from TIMER0 (the nRF51 has no SysTick), counted by
//! `firmware_common::clock`: 16 MHz / 2^4 = 1 MHz, compare at 1000 and clear.

use core::ptr::write_volatile;

use cortex_m::peripheral::NVIC;

const TIMER0: usize = 0x4000_8000;
const TASKS_START: usize = 0x000;
const TASKS_CLEAR: usize = 0x00C;
const EVENTS_COMPARE0: usize = 0x140;
const SHORTS: usize = 0x200;
const INTENSET: usize = 0x304;
const MODE: usize = 0x504;
const BITMODE: usize = 0x508;
const PRESCALER: usize = 0x510;
const CC0: usize = 0x540;

/// TIMER0's interrupt number.
pub const IRQ: u16 = 8;

fn write_reg(offset: usize, value: u32) {
    // SAFETY: an aligned register of TIMER0, which this module owns.
    unsafe { write_volatile((TIMER0 + offset) as *mut u32, value) }
}

#[derive(Clone, Copy)]
struct Irq(u16);

// SAFETY: 8 is TIMER0's interrupt number on the nRF51.
unsafe impl cortex_m::interrupt::InterruptNumber for Irq {
    fn number(self) -> u16 {
        self.0
    }
}

/// Starts the 1 kHz tick.
pub fn start() {
    write_reg(MODE, 0); // timer
    write_reg(BITMODE, 3); // 32 bits
    write_reg(PRESCALER, 4); // 1 MHz
    write_reg(CC0, 1000);
    write_reg(SHORTS, 1); // COMPARE0 -> CLEAR
    write_reg(INTENSET, 1 << 16); // COMPARE0
    write_reg(TASKS_CLEAR, 1);
    write_reg(TASKS_START, 1);
    // SAFETY: the handler only touches firmware_common's interrupt-safe clock.
    unsafe { NVIC::unmask(Irq(IRQ)) };
}

/// TIMER0's interrupt handler (dispatched from `DefaultHandler`).
pub fn on_interrupt() {
    write_reg(EVENTS_COMPARE0, 0);
    firmware_common::clock::tick();
}
