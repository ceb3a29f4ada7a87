//! The exception handlers every binary of this board has: the UART's interrupt, and a log line and
//! a failing exit for anything else.

use cortex_m_rt::{ExceptionFrame, exception};
use firmware_common::log;

use crate::uart;

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    if irqn == uart::IRQ as i16 {
        uart::on_interrupt();
    } else {
        // Through `SignedDecimal`: an integer's own `Display` would be code of its own.
        log!("unexpected interrupt {}", mcp_sansio::num::SignedDecimal(i64::from(irqn)));
        log::exit(false);
    }
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    log!("hard fault at pc {}", log::Hex(frame.pc()));
    log::exit(false)
}
