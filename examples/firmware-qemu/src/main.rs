//! `firmware-qemu`: the example device (`mcp-example-device`, the same source as the `mcp-device`
//! host binary) as MCP firmware for QEMU's `lm3s6965evb` board (Cortex-M3, 64 KiB RAM).
//!
//! It serves newline-delimited JSON-RPC on UART0 (a PL011; `-serial stdio` connects it to the host's
//! stdin and stdout), in both protocol eras, with the example's tools, resources and prompt. No
//! allocator: the receive and transmit buffers are statics, everything else lives on the stack.
//! The serving loop, the executor (a `block_on` that sleeps in `wfi`), the clock and the logs are
//! `firmware-common`'s, shared with the other boards (`microbit/`, `riscv-virt/`); this board
//! brings its UART, its SysTick tick, its LED and its memory layout. Diagnostics (start-up,
//! rejected input, each new stack high-water mark) go to the host's stderr through semihosting.
//!
//! ```text
//! qemu-system-arm -machine lm3s6965evb -cpu cortex-m3 -nographic -monitor none -serial stdio \
//!     -semihosting-config enable=on,target=native -kernel firmware-qemu
//! ```
#![no_std]
#![no_main]

mod board;
mod clock;
mod exceptions;
mod mem;
mod uart;
mod vectors;

use core::mem::MaybeUninit;

use cortex_m_rt::entry;
use firmware_common::{DeviceServer, INPUT_BYTES, RX_BYTES, Storage, TX_BYTES, log};

use crate::board::QemuBoard;

#[entry]
fn main() -> ! {
    static mut RX: [u8; RX_BYTES] = [0; RX_BYTES];
    static mut TX: [u8; TX_BYTES] = [0; TX_BYTES];
    static mut INPUT: [u8; INPUT_BYTES] = [0; INPUT_BYTES];
    // The minimal profile keeps its `Server` in a static too: static RAM, not stack.
    static mut SERVER: MaybeUninit<DeviceServer<QemuBoard>> = MaybeUninit::uninit();

    let Some(core) = cortex_m::Peripherals::take() else { log::exit(false) };
    clock::start(core.SYST);
    let Some((reader, writer)) = uart::take() else { log::exit(false) };
    let storage = Storage { rx: RX, tx: TX, input: INPUT };
    if cfg!(feature = "typical") {
        firmware_common::serve(QemuBoard::new(), storage, reader, writer)
    } else {
        firmware_common::serve_in(SERVER, QemuBoard::new(), storage, reader, writer)
    }
}
