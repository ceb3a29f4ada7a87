//! `firmware-qemu`: the example device (`mcp-example-device`, the same source as the `mcp-device`
//! host binary) as MCP firmware for QEMU's `lm3s6965evb` board (Cortex-M3, 64 KiB RAM).
//!
//! It serves newline-delimited JSON-RPC on UART0 (a PL011; `-serial stdio` connects it to the host's
//! stdin and stdout), in both protocol eras, with the example's tools, resources and prompt. No
//! allocator: the receive and transmit buffers are statics, everything else lives on the stack.
//! The async driver is `mcp-sansio-embedded`; the executor is a 40-line `block_on` that sleeps in
//! `wfi`. Diagnostics (start-up, rejected input, each new stack high-water mark) go to the host's
//! stderr through semihosting.
//!
//! ```text
//! qemu-system-arm -machine lm3s6965evb -cpu cortex-m3 -nographic -monitor none -serial stdio \
//!     -semihosting-config enable=on,target=native -kernel firmware-qemu
//! ```
#![no_std]
#![no_main]

mod board;
mod clock;
mod executor;
mod log;
mod mem;
mod stack;
mod uart;
mod vectors;
mod waker;

use core::panic::PanicInfo;

use cortex_m_rt::{ExceptionFrame, entry, exception};
use mcp_example_device::{Device, INSTRUCTIONS, SERVER_NAME};
use mcp_sansio::endpoint::{self, Response};
use mcp_sansio::mcp::ServerCapabilities;
use mcp_sansio::num::Decimal;
use mcp_sansio::server::{
    Buffers, CacheHints, CacheScope, CompletionReply, CompletionRequest, Config, Event, Handler, ListChanges, Prompt,
    PromptGet, PromptReply, Resource, ResourceRead, ResourceReply, ResourceTemplate, Server, Tool, ToolCall, ToolReply,
};
use mcp_sansio::time::Instant;

use crate::board::QemuBoard;
use crate::log::log;

/// Receive buffer: the longest message accepted (longer lines are answered with an error and
/// skipped). The official SDK clients' largest requests are under 500 bytes.
pub const RX_BYTES: usize = 1024;
/// Transmit buffer: the largest answer (the modern-era `tools/list` is about 3.3 KB).
pub const TX_BYTES: usize = 4096;

/// Input the device waits for in a legacy session (the factory reset's confirmation): its request
/// and the answer are kept in half of this, the retry built in the other half.
pub const INPUT_BYTES: usize = 1024;

/// The device answers every request at once; it keeps one slot for a listen stream and sends one
/// request at a time to the host (the legacy factory-reset confirmation).
type DeviceServer = Server<'static, Logged, 1, 1>;

#[entry]
fn main() -> ! {
    static mut RX: [u8; RX_BYTES] = [0; RX_BYTES];
    static mut TX: [u8; TX_BYTES] = [0; TX_BYTES];
    static mut INPUT: [u8; INPUT_BYTES] = [0; INPUT_BYTES];

    let Some(core) = cortex_m::Peripherals::take() else { log::exit(false) };
    clock::start(core.SYST);
    let Some((mut reader, mut writer)) = uart::take() else { log::exit(false) };

    let config = Config::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
        .with_title("Example MCP device")
        .with_instructions(INSTRUCTIONS)
        // The tool list changes (blink_led), announced with listChanged; other clients re-read it soon.
        .with_list_cache(CacheHints::new(60_000, CacheScope::Public));
    let device = Logged(Device::new(QemuBoard::new()));
    let mut server: DeviceServer = Server::new(device, config, Buffers { rx: RX, tx: TX });
    server.parts_mut().0.set_input_buffer(INPUT);
    log!(
        "serving MCP on UART0 (receive buffer {} B, transmit buffer {} B, stack region {} B)",
        RX_BYTES,
        TX_BYTES,
        stack::size()
    );

    let mut reported_peak = 0;
    executor::block_on(
        || async {
            let mut clock = clock::SysTickClock;
            loop {
                // A serial line has no end of input; the UART never fails either, but if the
                // driver returns, the session carries on where it was.
                match mcp_sansio_embedded::run(&mut server, &mut reader, &mut writer, &mut clock).await {
                    Ok(()) => log!("input ended"),
                    Err(error) => log!("link error: {error}"),
                }
            }
        },
        || {
            let peak = stack::peak();
            if peak > reported_peak {
                reported_peak = peak;
                log!("stack peak {peak} B");
            }
        },
    )
}

/// The device logic, with rejected input reported on the diagnostic channel.
struct Logged(Device<QemuBoard>);

impl Handler for Logged {
    fn tool(&self, index: usize) -> Option<Tool<'_>> {
        self.0.tool(index)
    }
    fn resource(&self, index: usize) -> Option<Resource<'_>> {
        self.0.resource(index)
    }
    fn prompt(&self, index: usize) -> Option<Prompt<'_>> {
        self.0.prompt(index)
    }
    fn call_tool(&mut self, call: ToolCall<'_>, reply: ToolReply<'_>) {
        self.0.call_tool(call, reply)
    }
    fn read_resource(&mut self, read: ResourceRead<'_>, reply: ResourceReply<'_>) {
        self.0.read_resource(read, reply)
    }
    fn get_prompt(&mut self, get: PromptGet<'_>, reply: PromptReply<'_>) {
        self.0.get_prompt(get, reply)
    }
    fn capabilities(&self) -> ServerCapabilities {
        self.0.capabilities()
    }
    fn resource_template(&self, index: usize) -> Option<ResourceTemplate<'_>> {
        self.0.resource_template(index)
    }
    fn complete(&mut self, request: CompletionRequest<'_>, reply: CompletionReply<'_>) {
        self.0.complete(request, reply)
    }
    fn take_list_changes(&mut self) -> ListChanges {
        self.0.take_list_changes()
    }
    fn on_response(&mut self, now: Instant, response: Response<'_>) {
        self.0.on_response(now, response)
    }
    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        match event {
            Event::Endpoint(endpoint::Event::Rejected { code, reason }) => {
                log!("[{} ms] rejected ({code}): {reason}", Decimal(now.as_millis()))
            }
            Event::Endpoint(endpoint::Event::FrameDropped(error)) => {
                log!("[{} ms] frame dropped: {error}", Decimal(now.as_millis()))
            }
            Event::SessionStarted { version, .. } => {
                log!("[{} ms] session started: {}", Decimal(now.as_millis()), version)
            }
            _ => {}
        }
        self.0.on_event(now, event);
    }
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    if irqn == uart::IRQ as i16 {
        uart::on_interrupt();
    } else {
        // As an i32: `i16` formatting would be code of its own.
        log!("unexpected interrupt {}", i32::from(irqn));
        log::exit(false);
    }
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    log!("hard fault at pc {:#010x}", frame.pc());
    log::exit(false)
}

/// Logs the panic and ends QEMU with a failure. Its file and line only with the `panic-location`
/// feature: every panic site's location costs flash (2.5 KiB here).
#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    #[cfg(feature = "panic-location")]
    if let Some(at) = info.location() {
        log!("panic at {}:{}", at.file(), at.line());
        log::exit(false)
    }
    let _ = info;
    log!("panic (build with --features panic-location for its place)");
    log::exit(false)
}
