//! The smallest server on the board: four tools from a static table, served on UART0 in the legacy
//! era (2024-11-05 … 2025-11-25, which every MCP host speaks), with the device firmware's serving
//! loop (`firmware_common::serve_handler`).
//!
//! It is what the core costs a firmware that serves a few tools and nothing else: built in the
//! `minimal` profile (`--no-default-features --features semihosting,minimal`: the core's `legacy`
//! feature alone) with buffers sized for its messages. `scripts/test-firmware` serves it under QEMU
//! (`tests/small_exchange.py`) and holds it to its own budgets: see docs/firmware.md.

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

use core::mem::MaybeUninit;
use cortex_m_rt::entry;

use firmware_common::{Served, Storage, log};
use mcp_sansio::num::Decimal;
use mcp_sansio::server::{Config, Handler, Tool, ToolCall, ToolReply};

/// Receive buffer: the longest request accepted (longer lines are answered with an error and
/// skipped).
pub const RX_BYTES: usize = 512;
/// Transmit buffer: the largest answer (the tool list, about 600 bytes).
pub const TX_BYTES: usize = 1024;

const ECHO_SCHEMA: &str = r#"{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}"#;
const LED_SCHEMA: &str = r#"{"type":"object","properties":{"on":{"type":"boolean"}},"required":["on"]}"#;
const NO_ARGUMENTS: &str = r#"{"type":"object"}"#;

/// The application: an LED and a counter.
struct Small {
    led: bool,
    calls: u32,
}

impl Handler for Small {
    const TOOLS: &'static [Tool<'static>] = &[
        Tool::new("echo", "Sends the message back unchanged.", ECHO_SCHEMA),
        Tool::new("set_led", "Switches the LED on or off.", LED_SCHEMA),
        Tool::new("get_led", "Tells whether the LED is on.", NO_ARGUMENTS),
        Tool::new("count", "Counts its own calls.", NO_ARGUMENTS),
    ];

    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        let on_off = |on: bool| if on { "on" } else { "off" };
        match call.name {
            "echo" => match call.argument("message").and_then(|v| v.as_str()) {
                Some(message) => reply.text_json(message).finish(),
                None => reply.finish_error_text("\"message\" must be a string"),
            },
            "set_led" => match call.argument("on").and_then(|v| v.as_bool()) {
                Some(on) => {
                    self.led = on;
                    reply.finish_text(on_off(on))
                }
                None => reply.finish_error_text("\"on\" must be a boolean"),
            },
            "get_led" => reply.finish_text(on_off(self.led)),
            // The table's last tool: the engine answers an unknown name before calling this.
            _ => {
                self.calls = self.calls.wrapping_add(1);
                reply.finish_text_fmt(format_args!("{}", Decimal(u64::from(self.calls))))
            }
        }
    }
}

#[entry]
fn main() -> ! {
    static mut RX: [u8; RX_BYTES] = [0; RX_BYTES];
    static mut TX: [u8; TX_BYTES] = [0; TX_BYTES];
    // The server itself is a static too (not a local of the serving loop): its 736 B are counted
    // as static RAM, known at link time, and the stack holds only the calls.
    static mut SERVER: MaybeUninit<Served<Small, 0, 0>> = MaybeUninit::uninit();

    let Some(core) = cortex_m::Peripherals::take() else { log::exit(false) };
    clock::start(core.SYST);
    let Some((reader, writer)) = uart::take() else { log::exit(false) };
    // The tools ask the client nothing: no legacy input buffer.
    let storage = Storage { rx: RX, tx: TX, input: &mut [] };
    let small = Small { led: false, calls: 0 };
    // Every call is answered at once and nothing is asked of the host: no engine slots.
    firmware_common::serve_handler_in(SERVER, small, Config::new("small", "0.1.0"), storage, reader, writer)
}
