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

use core::mem::MaybeUninit;
use core::ptr::addr_of_mut;

use firmware_common::{DeviceServer, INPUT_BYTES, RX_BYTES, Storage, TX_BYTES, log};
use mcp_example_device::SimulatedBoard;
use riscv::register::{mcause, mepc};

static mut RX: [u8; RX_BYTES] = [0; RX_BYTES];
static mut TX: [u8; TX_BYTES] = [0; TX_BYTES];
static mut INPUT: [u8; INPUT_BYTES] = [0; INPUT_BYTES];
/// The minimal profile keeps its `Server` in a static too: static RAM, not stack.
static mut SERVER: MaybeUninit<DeviceServer<SimulatedBoard>> = MaybeUninit::uninit();

#[riscv_rt::entry]
fn main() -> ! {
    // SAFETY: `main` runs once, and nothing else names these statics.
    let (storage, server) = unsafe {
        let storage =
            Storage { rx: &mut *addr_of_mut!(RX), tx: &mut *addr_of_mut!(TX), input: &mut *addr_of_mut!(INPUT) };
        (storage, &mut *addr_of_mut!(SERVER))
    };
    clock::start();
    let Some((reader, writer)) = uart::take() else { log::exit(false) };
    plic::start();
    // SAFETY: the handlers only touch interrupt-safe statics.
    unsafe { riscv::interrupt::enable() };
    // virt has neither LED nor sensor.
    let board = SimulatedBoard::default();
    if cfg!(feature = "typical") {
        firmware_common::serve(board, storage, reader, writer)
    } else {
        firmware_common::serve_in(server, board, storage, reader, writer)
    }
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
