//! `firmware-microbit`: the example device (`mcp-example-device`) as MCP firmware for QEMU's
//! `microbit` board: a BBC micro:bit, nRF51822, Cortex-M0 (ARMv6-M: no atomic compare-and-swap),
//! 16 KiB of RAM, 256 KiB of flash.
//!
//! The serving loop, the executor, the clock and the logs are `firmware-common`'s, the same as on
//! the other boards; this board brings its UART (the nRF51 UART), its tick (TIMER0), its LED and
//! its memory layout. Its 16 KiB of RAM hold the same buffers as the other boards': the statics
//! (6.2 KiB) and the deepest stack the SDK clients reach (8 KiB) leave 1.8 KiB, which
//! `scripts/test-firmware` checks (see `docs/firmware.md`).
//!
//! ```text
//! qemu-system-arm -machine microbit -nographic -monitor none -serial stdio \
//!     -semihosting-config enable=on,target=native -kernel firmware-microbit
//! ```
#![no_std]
#![no_main]

mod board;
mod clock;
mod uart;
mod vectors;

use core::mem::MaybeUninit;

use cortex_m_rt::{ExceptionFrame, entry, exception};
use firmware_common::{DeviceServer, INPUT_BYTES, RX_BYTES, Storage, TX_BYTES, log};

use crate::board::Microbit;

#[entry]
fn main() -> ! {
    static mut RX: [u8; RX_BYTES] = [0; RX_BYTES];
    static mut TX: [u8; TX_BYTES] = [0; TX_BYTES];
    static mut INPUT: [u8; INPUT_BYTES] = [0; INPUT_BYTES];
    // The minimal profile keeps its `Server` in a static too: static RAM, not stack.
    static mut SERVER: MaybeUninit<DeviceServer<Microbit>> = MaybeUninit::uninit();

    clock::start();
    let Some((reader, writer)) = uart::take() else { log::exit(false) };
    let storage = Storage { rx: RX, tx: TX, input: INPUT };
    if cfg!(feature = "typical") {
        firmware_common::serve(Microbit::new(), storage, reader, writer)
    } else {
        firmware_common::serve_in(SERVER, Microbit::new(), storage, reader, writer)
    }
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    match irqn {
        n if n == uart::IRQ as i16 => uart::on_interrupt(),
        n if n == clock::IRQ as i16 => clock::on_interrupt(),
        _ => {
            log!("unexpected interrupt {}", mcp_sansio::num::SignedDecimal(i64::from(irqn)));
            log::exit(false);
        }
    }
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    log!("hard fault at pc {}", log::Hex(frame.pc()));
    log::exit(false)
}
