//! The serving loop every board runs, and the served handler with rejected input reported on the
//! diagnostic channel.

use core::mem::MaybeUninit;

use embedded_io_async::{Read, Write};
use mcp_example_device::{Board, Device, INSTRUCTIONS, SERVER_NAME};
use mcp_sansio::endpoint;
use mcp_sansio::num::{Decimal, SignedDecimal};
use mcp_sansio::server::{Buffers, CacheHints, CacheScope, Config, Event, Handler, Server, Wrapper};
use mcp_sansio::text::Plain;
use mcp_sansio::time::Instant;

use crate::clock::TickClock;
use crate::{executor, stack};

/// The board's buffers, statics of the board crate ([`RX_BYTES`], [`TX_BYTES`], [`INPUT_BYTES`] for
/// the example device).
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

/// Engine slots the device's serving loop keeps for deferred requests and listen streams: one (a
/// listen stream) when the build serves the 2026-07-28 era (this crate's `modern` feature, which
/// turns on the core's), none otherwise: the device answers every request at once.
pub const IN_FLIGHT: usize = if cfg!(feature = "modern") { 1 } else { 0 };
/// Engine slots for requests to the host: one (the legacy factory-reset confirmation, sampling,
/// roots; one at a time) when the build serves input from the client in legacy sessions (the
/// `input` and `legacy` features), none otherwise: a legacy tool that would ask fails, and a
/// 2026-07-28 one asks in its answer (the client keeps the state).
pub const OUTBOUND: usize = if cfg!(all(feature = "input", feature = "legacy")) { 1 } else { 0 };

/// Receive buffer of the example device: the longest message accepted (longer lines are answered
/// with an error and skipped). The official SDK clients' largest request is 542 bytes (a
/// 2026-07-28 `tools/call` carrying input responses and a request state); 768 keeps the full
/// build's statics within 6 KiB. A legacy-only build (legacy requests, no input responses) takes 512.
pub const RX_BYTES: usize = if cfg!(feature = "modern") { 768 } else { 512 };
/// Transmit buffer of the example device: the largest answer. The SDK clients' largest is 3,708
/// bytes (the legacy `tools/list` once `enable_blink` added its tool). A legacy-only build's 1 KiB
/// holds its largest tool entry; its tool list comes in pages.
pub const TX_BYTES: usize = if cfg!(feature = "modern") { 4096 } else { 1024 };
/// Input the example device waits for in a legacy session (the factory reset's confirmation):
/// none unless the build serves input from the client in legacy sessions (as [`OUTBOUND`]).
pub const INPUT_BYTES: usize = if cfg!(all(feature = "input", feature = "legacy")) { 1024 } else { 0 };

/// The example device's server on board `B`, with the slots its build serves.
pub type DeviceServer<B> = Served<Device<B>, IN_FLIGHT, OUTBOUND>;

/// The example device's configuration.
#[inline(always)]
fn device_config() -> Config<'static> {
    Config::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
        .with_title("Example MCP device")
        .with_instructions(INSTRUCTIONS)
        // The tool list changes (blink_led), announced with listChanged; other clients re-read it soon.
        .with_list_cache(CacheHints::new(60_000, CacheScope::Public))
}

/// Serves the example device on `board` over the UART halves `reader` and `writer`, forever. The
/// board's tick must be running ([`tick`](crate::clock::tick)), and its UART interrupt enabled.
/// The `Server` is a local of the serving loop; [`serve_in`] keeps it in a static instead.
// Inlined into the board's `main`, its only caller: one frame and one prologue fewer.
#[inline(always)]
pub fn serve<B: Board>(board: B, storage: Storage, reader: impl Read, writer: impl Write) -> ! {
    serve_handler::<_, IN_FLIGHT, OUTBOUND>(Device::new(board), device_config(), storage, reader, writer)
}

/// [`serve`] with the `Server` in `slot`, a static of the board's `main` (as [`serve_handler_in`]
/// does): static RAM instead of stack, what a small profile chooses.
#[inline(always)]
pub fn serve_in<B: Board>(
    slot: &'static mut MaybeUninit<DeviceServer<B>>,
    board: B,
    storage: Storage,
    reader: impl Read,
    writer: impl Write,
) -> ! {
    serve_handler_in(slot, Device::new(board), device_config(), storage, reader, writer)
}

/// Serves `handler` as [`serve`] serves the device: the same loop, logs and stack reports, with
/// `IN_FLIGHT` slots for deferred requests and listen streams and `OUTBOUND` for requests to the
/// host (the `Server`'s; each slot is RAM of the serving loop's frame: 0 for a handler that
/// answers at once and asks the host nothing). The `Server` is a local of the serving loop: RAM
/// of the stack; [`serve_handler_in`] keeps it in a static instead.
#[inline(always)]
pub fn serve_handler<H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize>(
    handler: H,
    config: Config<'static>,
    storage: Storage,
    reader: impl Read,
    writer: impl Write,
) -> ! {
    // Built here, in the serving loop's frame, not by `serve_handler_in`'s `place` into a local
    // slot: measured, a server returned from a function left a second copy of it in the frame,
    // and a slot filled by `place` 24 B more stack on the M3 (68 B on virt).
    let mut server = Served::<H, IN_FLIGHT, OUTBOUND>::new(Logged(handler), config, buffers(storage.rx, storage.tx));
    server.parts_mut().0.set_input_buffer(storage.input);
    serve_loop(&mut server, reader, writer)
}

/// The server [`serve_handler`] and [`serve_handler_in`] run: `handler` with its events logged.
pub type Served<H, const IN_FLIGHT: usize, const OUTBOUND: usize> = Server<'static, Logged<H>, IN_FLIGHT, OUTBOUND>;

/// [`serve_handler`] with the `Server` in `slot` (a static of the board's `main`, as its buffers
/// are): the same RAM, counted as static RAM, known at link time, instead of stack. The server is
/// built in a frame of its own that has returned before serving starts.
#[inline(always)]
pub fn serve_handler_in<H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize>(
    slot: &'static mut MaybeUninit<Served<H, IN_FLIGHT, OUTBOUND>>,
    handler: H,
    config: Config<'static>,
    storage: Storage,
    reader: impl Read,
    writer: impl Write,
) -> ! {
    #[inline(never)]
    fn place<H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize>(
        slot: &'static mut MaybeUninit<Served<H, IN_FLIGHT, OUTBOUND>>,
        handler: H,
        config: Config<'static>,
        storage: Storage,
    ) -> &'static mut Served<H, IN_FLIGHT, OUTBOUND> {
        let server = slot.write(Server::new(Logged(handler), config, buffers(storage.rx, storage.tx)));
        server.parts_mut().0.set_input_buffer(storage.input);
        server
    }
    serve_loop(place(slot, handler, config, storage), reader, writer)
}

/// The board's buffers for a server, logged.
fn buffers(rx: &'static mut [u8], tx: &'static mut [u8]) -> Buffers<'static> {
    crate::log!(
        "serving MCP on the UART (receive buffer {} B, transmit buffer {} B, stack region {} B)",
        Decimal(rx.len() as u64),
        Decimal(tx.len() as u64),
        Decimal(stack::size() as u64)
    );
    Buffers { rx, tx }
}

/// The serving loop: `server` on the UART halves, forever, the stack peak reported when it grows.
#[inline(always)]
fn serve_loop<H: Handler, const IN_FLIGHT: usize, const OUTBOUND: usize>(
    server: &mut Served<H, IN_FLIGHT, OUTBOUND>,
    mut reader: impl Read,
    mut writer: impl Write,
) -> ! {
    let mut reported_peak = 0;
    executor::block_on(
        || async {
            let mut clock = TickClock;
            loop {
                // A serial line has no end of input; the UART never fails either, but if the
                // driver returns, the session carries on where it was.
                match mcp_sansio_embedded::run(&mut *server, &mut reader, &mut writer, &mut clock).await {
                    Ok(()) => crate::log!("input ended"),
                    Err(error) => crate::log!("link error: {error}"),
                }
            }
        },
        || {
            let peak = stack::peak();
            if peak > reported_peak {
                reported_peak = peak;
                crate::log!("stack peak {} B", Decimal(peak as u64));
            }
        },
    )
}

/// The served handler, with rejected input reported on the diagnostic channel: a [`Wrapper`], so
/// everything but the events is the handler's (its tables, its replies, its capabilities).
pub struct Logged<H: Handler>(H);

impl<H: Handler> Wrapper for Logged<H> {
    type Inner = H;
    fn inner(&self) -> &H {
        &self.0
    }
    fn inner_mut(&mut self) -> &mut H {
        &mut self.0
    }
    fn on_event(&mut self, now: Instant, event: Event<'_>) {
        let ms = Decimal(now.as_millis());
        match event {
            Event::Endpoint(endpoint::Event::Rejected { code, reason }) => {
                crate::log!("[{ms} ms] rejected ({}): {}", SignedDecimal(i64::from(code)), Plain(reason))
            }
            Event::Endpoint(endpoint::Event::FrameDropped(error)) => crate::log!("[{ms} ms] frame dropped: {error}"),
            Event::SessionStarted { version, .. } => crate::log!("[{ms} ms] session started: {version}"),
            _ => {}
        }
        self.0.on_event(now, event);
    }
}
