//! The virt board's PLIC: routes the UART's interrupt source to hart 0 in machine mode (context 0)
//! and dispatches it from the machine external interrupt.

use core::ptr::{read_volatile, write_volatile};

use firmware_common::log;
use riscv::interrupt::Interrupt;

use crate::uart;

const PLIC: usize = 0x0C00_0000;
const ENABLE_CONTEXT0: usize = PLIC + 0x2000;
const THRESHOLD_CONTEXT0: usize = PLIC + 0x20_0000;
const CLAIM_CONTEXT0: usize = PLIC + 0x20_0004;

fn write_reg(at: usize, value: u32) {
    // SAFETY: an aligned PLIC register for hart 0's machine-mode context.
    unsafe { write_volatile(at as *mut u32, value) }
}

/// Gives the UART's source priority 1, enables it for context 0, and enables the machine external
/// interrupt.
pub fn start() {
    write_reg(PLIC + 4 * uart::IRQ as usize, 1);
    write_reg(ENABLE_CONTEXT0, 1 << uart::IRQ);
    write_reg(THRESHOLD_CONTEXT0, 0);
    // SAFETY: the handler only touches the UART module's interrupt-safe statics.
    unsafe { riscv::interrupt::enable_interrupt(Interrupt::MachineExternal) };
}

#[riscv_rt::core_interrupt(Interrupt::MachineExternal)]
fn machine_external() {
    loop {
        // SAFETY: claiming returns the highest pending source (0: none) and holds it until completed.
        let source = unsafe { read_volatile(CLAIM_CONTEXT0 as *const u32) };
        match source {
            0 => return,
            uart::IRQ => uart::on_interrupt(),
            _ => {
                log!("unexpected interrupt source {}", mcp_sansio::num::Decimal(u64::from(source)));
                log::exit(false)
            }
        }
        write_reg(CLAIM_CONTEXT0, source);
    }
}
