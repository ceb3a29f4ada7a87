//! The interrupt vector table, sized for what the firmware enables: UART0's line (IRQ 5) is the
//! only interrupt it unmasks in the NVIC, so the table ends there, 6 entries (24 bytes of flash),
//! instead of one for each of the 64 lines the LM3S6965's NVIC has (as QEMU models it; 256 bytes)
//! or the 240 cortex-m-rt provides for an unknown device (960 bytes). A line that is not enabled
//! is never taken, so no entry past the last enabled line is ever read. Every entry is
//! `DefaultHandler`, which serves UART0 and reports anything else. A board that enables a higher
//! line lengthens the table with it (`INTERRUPTS` is computed from the lines enabled).

use crate::uart;

unsafe extern "C" {
    fn DefaultHandler();
}

/// Entries of the table: up to the highest interrupt line the firmware enables.
const INTERRUPTS: usize = uart::IRQ as usize + 1;

#[unsafe(link_section = ".vector_table.interrupts")]
#[unsafe(no_mangle)]
static __INTERRUPTS: [unsafe extern "C" fn(); INTERRUPTS] = [DefaultHandler; INTERRUPTS];
