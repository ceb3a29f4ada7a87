//! Typed tools on the board: rmcp's `structured_output` example (`get_weather`, `calculate`,
//! `get_info`) written with the core's `no_std` typed layer (`mcp-example-structured-output`:
//! typed arguments, structured output, `Result` errors as `isError`, one `ToolSet`), served on
//! UART0 with the device firmware's serving loop (`firmware_common::serve_handler`), in both eras.
//!
//! `scripts/test-firmware` drives it with the official SDK clients through `mcp-serial`
//! (`tests/interop/typed_tools.py`, the suite the router's example passes) and holds it to its
//! own flash budget: see docs/firmware.md.

#![no_std]
#![no_main]

#[path = "../clock.rs"]
mod clock;
#[path = "../exceptions.rs"]
mod exceptions;
#[path = "../mem.rs"]
mod mem;
#[path = "../uart.rs"]
mod uart;
#[path = "../vectors.rs"]
mod vectors;

use cortex_m_rt::entry;
use firmware_common::{Storage, log};
use mcp_example_structured_output::{StructuredOutput, config};

/// Receive buffer: the longest message accepted (the SDK clients' calls are under 400 bytes).
pub const RX_BYTES: usize = 1024;
/// Transmit buffer: the largest answer (the tool list, about 1.4 KB).
pub const TX_BYTES: usize = 2048;

#[entry]
fn main() -> ! {
    static mut RX: [u8; RX_BYTES] = [0; RX_BYTES];
    static mut TX: [u8; TX_BYTES] = [0; TX_BYTES];

    let Some(core) = cortex_m::Peripherals::take() else { log::exit(false) };
    clock::start(core.SYST);
    let Some((reader, writer)) = uart::take() else { log::exit(false) };
    // The tools ask the client nothing: no legacy input buffer.
    let storage = Storage { rx: RX, tx: TX, input: &mut [] };
    // The device's slots (a listen stream, a request to the host), though these tools use neither.
    firmware_common::serve_handler::<_, 1, 1>(StructuredOutput, config(), storage, reader, writer)
}
