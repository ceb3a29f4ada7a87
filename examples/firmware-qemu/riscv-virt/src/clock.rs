//! The board's 1 kHz tick from the CLINT's machine timer (10 MHz on virt), counted by
//! `firmware_common::clock`: each interrupt moves the compare register 10,000 counts on.

use core::ptr::{read_volatile, write_volatile};

use riscv::interrupt::Interrupt;

const MTIMECMP: usize = 0x0200_4000; // hart 0
const MTIME: usize = 0x0200_BFF8;
const COUNTS_PER_MS: u64 = 10_000;

fn read_u64(at: usize) -> u64 {
    // SAFETY: a 64-bit CLINT register, read as two words; the high word is read again until it
    // did not change, so the value is consistent.
    unsafe {
        loop {
            let high = read_volatile((at + 4) as *const u32);
            let low = read_volatile(at as *const u32);
            if read_volatile((at + 4) as *const u32) == high {
                return u64::from(high) << 32 | u64::from(low);
            }
        }
    }
}

fn set_compare(value: u64) {
    // SAFETY: hart 0's compare register. The low word is set to its largest value first, so that
    // no intermediate value is due before the whole is written.
    unsafe {
        write_volatile(MTIMECMP as *mut u32, u32::MAX);
        write_volatile((MTIMECMP + 4) as *mut u32, (value >> 32) as u32);
        write_volatile(MTIMECMP as *mut u32, value as u32);
    }
}

/// Starts the 1 kHz tick (the machine timer interrupt; `main` enables interrupts globally).
pub fn start() {
    set_compare(read_u64(MTIME) + COUNTS_PER_MS);
    // SAFETY: the handler only touches firmware_common's interrupt-safe clock.
    unsafe { riscv::interrupt::enable_interrupt(Interrupt::MachineTimer) };
}

#[riscv_rt::core_interrupt(Interrupt::MachineTimer)]
fn machine_timer() {
    // From the last compare value, not from now: a late interrupt is followed at once by the next.
    set_compare(read_u64(MTIMECMP) + COUNTS_PER_MS);
    firmware_common::clock::tick();
}
