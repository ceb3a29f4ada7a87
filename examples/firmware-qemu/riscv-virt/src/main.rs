//! `firmware-riscv-virt`: the example device (`mcp-example-device`) as MCP firmware for QEMU's
//! RISC-V `virt` board (RV32IMAC, machine mode), served on its 16550 UART.
//!
//! The serving loop, the executor, the clock and the logs are `firmware-common`'s, the same as on
//! the other boards; this board brings its UART, its tick (the CLINT's machine timer), its
//! interrupt routing (the PLIC) and its memory layout (`memory.x`: 256 KiB for code, 64 KiB of RAM).
//!
//! ```text
//! qemu-system-riscv32 -machine virt -bios none -nographic -monitor none -serial stdio \
//!     -semihosting-config enable=on,target=native -kernel firmware-riscv-virt
//! ```
#![no_std]
#![no_main]

mod clock;
mod plic;
mod uart;

use core::ptr::addr_of_mut;

use firmware_common::{Storage, log};
use riscv::register::{mcause, mepc};

/// Receive buffer: the longest message accepted (longer lines are answered with an error and
/// skipped). The official SDK clients' largest request is 542 bytes (a modern-era `tools/call`
/// carrying input responses and a request state); 768 keeps the statics within 6 KiB.
pub const RX_BYTES: usize = 768;
/// Transmit buffer: the largest answer (the modern-era `tools/list` is about 3.3 KB).
pub const TX_BYTES: usize = 4096;
/// Input the device waits for in a legacy session (the factory reset's confirmation).
pub const INPUT_BYTES: usize = 1024;

static mut RX: [u8; RX_BYTES] = [0; RX_BYTES];
static mut TX: [u8; TX_BYTES] = [0; TX_BYTES];
static mut INPUT: [u8; INPUT_BYTES] = [0; INPUT_BYTES];

#[riscv_rt::entry]
fn main() -> ! {
    // SAFETY: `main` runs once, and nothing else names these statics.
    let storage =
        unsafe { Storage { rx: &mut *addr_of_mut!(RX), tx: &mut *addr_of_mut!(TX), input: &mut *addr_of_mut!(INPUT) } };
    clock::start();
    let Some((reader, writer)) = uart::take() else { log::exit(false) };
    plic::start();
    // SAFETY: the handlers only touch interrupt-safe statics.
    unsafe { riscv::interrupt::enable() };
    // virt has neither LED nor sensor.
    firmware_common::serve(mcp_example_device::SimulatedBoard::default(), storage, reader, writer)
}

/// Any exception (the RISC-V counterpart of a hard fault): reported, and QEMU ends with a failure.
#[unsafe(export_name = "ExceptionHandler")]
fn exception_handler(_frame: &riscv_rt::TrapFrame) -> ! {
    log!(
        "exception {} at pc {}",
        mcp_sansio::num::Decimal(mcause::read().bits() as u64),
        firmware_common::log::Hex(mepc::read() as u32)
    );
    log::exit(false)
}
