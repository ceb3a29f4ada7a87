//! The serving loop every board runs, and the served handler with rejected input reported on the
//! diagnostic channel.

use embedded_io_async::{Read, Write};
use mcp_example_device::{Board, Device, INSTRUCTIONS, SERVER_NAME};
use mcp_sansio::endpoint::{self, Response};
use mcp_sansio::mcp::ServerCapabilities;
use mcp_sansio::num::Decimal;
use mcp_sansio::server::{
    Buffers, CacheHints, CacheScope, CompletionReply, CompletionRequest, Config, Event, Handler, ListChanges, Prompt,
    PromptGet, PromptReply, Resource, ResourceRead, ResourceReply, ResourceTemplate, Server, Tool, ToolCall, ToolReply,
};
use mcp_sansio::time::Instant;

use crate::clock::TickClock;
use crate::{executor, stack};

/// The board's buffers, statics of the board crate (their sizes are its choice).
pub struct Storage {
    /// Receive buffer: the longest message accepted (longer lines are answered with an error and
    /// skipped).
    pub rx: &'static mut [u8],
    /// Transmit buffer: the largest answer.
    pub tx: &'static mut [u8],
    /// Input the device waits for in a legacy session (the factory reset's confirmation): its
    /// request and the answer are kept in half of this, the retry built in the other half.
    pub input: &'static mut [u8],
}

/// Serves the example device on `board` over the UART halves `reader` and `writer`, forever. The
/// board's tick must be running ([`tick`](crate::clock::tick)), and its UART interrupt enabled.
// Inlined into the board's `main`, its only caller: one frame and one prologue fewer.
#[inline(always)]
pub fn serve<B: Board>(board: B, storage: Storage, reader: impl Read, writer: impl Write) -> ! {
    let config = Config::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
        .with_title("Example MCP device")
        .with_instructions(INSTRUCTIONS)
        // The tool list changes (blink_led), announced with listChanged; other clients re-read it soon.
        .with_list_cache(CacheHints::new(60_000, CacheScope::Public));
    // The device answers every request at once; the engine keeps one slot for a listen stream and
    // sends one request at a time to the host (the device's legacy factory-reset confirmation).
    serve_handler::<_, 1, 1>(Device::new(board), config, storage, reader, writer)
}

/// Serves `handler` as [`serve`] serves the device: the same loop, logs and stack reports, with
/// `IN_FLIGHT` slots for deferred requests and listen streams and `OUTBOUND` for requests to the
/// host (the `Server`'s; each slot is RAM of the serving loop's frame: 0 for a handler that
/// answers at once and asks the host nothing).
#[inline(always)]
pub fn serve_handler<H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize>(
    handler: H,
    config: Config<'static>,
    storage: Storage,
    mut reader: impl Read,
    mut writer: impl Write,
) -> ! {
    let (rx, tx) = (storage.rx.len(), storage.tx.len());
    let mut server: Server<'static, Logged<H>, IN_FLIGHT, OUTBOUND> =
        Server::new(Logged(handler), config, Buffers { rx: storage.rx, tx: storage.tx });
    server.parts_mut().0.set_input_buffer(storage.input);
    crate::log!(
        "serving MCP on the UART (receive buffer {} B, transmit buffer {} B, stack region {} B)",
        rx,
        tx,
        stack::size()
    );

    let mut reported_peak = 0;
    executor::block_on(
        || async {
            let mut clock = TickClock;
            loop {
                // A serial line has no end of input; the UART never fails either, but if the
                // driver returns, the session carries on where it was.
                match mcp_sansio_embedded::run(&mut server, &mut reader, &mut writer, &mut clock).await {
                    Ok(()) => crate::log!("input ended"),
                    Err(error) => crate::log!("link error: {error}"),
                }
            }
        },
        || {
            let peak = stack::peak();
            if peak > reported_peak {
                reported_peak = peak;
                crate::log!("stack peak {peak} B");
            }
        },
    )
}

/// The served handler, with rejected input reported on the diagnostic channel.
struct Logged<H: Handler>(H);

impl<H: Handler> Handler for Logged<H> {
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
                crate::log!("[{} ms] rejected ({code}): {reason}", Decimal(now.as_millis()))
            }
            Event::Endpoint(endpoint::Event::FrameDropped(error)) => {
                crate::log!("[{} ms] frame dropped: {error}", Decimal(now.as_millis()))
            }
            Event::SessionStarted { version, .. } => {
                crate::log!("[{} ms] session started: {}", Decimal(now.as_millis()), version)
            }
            _ => {}
        }
        self.0.on_event(now, event);
    }
}
