//! The interrupt vector table, sized for the board: the nRF51's NVIC has 32 interrupt lines, so 32
//! entries instead of the 240 cortex-m-rt provides for an unknown device. Every entry is
//! `DefaultHandler`, which serves the UART and TIMER0 and reports anything else.

unsafe extern "C" {
    fn DefaultHandler();
}

/// Interrupt lines of the board's NVIC.
const INTERRUPTS: usize = 32;

#[unsafe(link_section = ".vector_table.interrupts")]
#[unsafe(no_mangle)]
static __INTERRUPTS: [unsafe extern "C" fn(); INTERRUPTS] = [DefaultHandler; INTERRUPTS];
