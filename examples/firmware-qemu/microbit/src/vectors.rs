//! The interrupt vector table, sized for what the firmware enables: the UART's line (IRQ 2) and
//! TIMER0's (IRQ 8) are the only interrupts it unmasks in the NVIC, so the table ends at TIMER0's,
//! 9 entries, instead of one for each of the nRF51's 32 lines or the 240 cortex-m-rt provides for
//! an unknown device. A line that is not enabled is never taken, so no entry past the last enabled
//! line is ever read. Every entry is `DefaultHandler`, which serves the UART and TIMER0 and
//! reports anything else.

use crate::{clock, uart};

unsafe extern "C" {
    fn DefaultHandler();
}

/// Entries of the table: up to the highest interrupt line the firmware enables.
const INTERRUPTS: usize = if uart::IRQ > clock::IRQ { uart::IRQ } else { clock::IRQ } as usize + 1;

#[unsafe(link_section = ".vector_table.interrupts")]
#[unsafe(no_mangle)]
static __INTERRUPTS: [unsafe extern "C" fn(); INTERRUPTS] = [DefaultHandler; INTERRUPTS];
