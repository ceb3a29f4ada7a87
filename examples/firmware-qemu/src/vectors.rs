//! The interrupt vector table, sized for the board: the LM3S6965's NVIC (as QEMU models it) has 64
//! interrupt lines, so 64 entries (256 bytes of flash) instead of the 240 (960 bytes) cortex-m-rt
//! provides for an unknown device. Every entry is `DefaultHandler`, which serves UART0 and reports
//! anything else.

unsafe extern "C" {
    fn DefaultHandler();
}

/// Interrupt lines of the board's NVIC.
const INTERRUPTS: usize = 64;

#[unsafe(link_section = ".vector_table.interrupts")]
#[unsafe(no_mangle)]
static __INTERRUPTS: [unsafe extern "C" fn(); INTERRUPTS] = [DefaultHandler; INTERRUPTS];
