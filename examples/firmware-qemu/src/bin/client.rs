//! The client engine on the same board: an MCP *client* on UART0, no allocator. It finds the
//! server's era (`server/discover`, or `initialize` for an older server), lists the tools, calls
//! `echo`, logs the answer on semihosting and ends QEMU (success only if the answer is the
//! message). `tests/client_exchange.py` connects it to `mcp-device` on the host.
//!
//! Its flash is the footprint of a minimal no_std client: see docs/firmware.md.

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

use core::future::poll_fn;
use core::sync::atomic::{AtomicU8, Ordering};
use core::task::Poll;

use cortex_m_rt::entry;
use firmware_common::clock::TickClock;
use firmware_common::{executor, log, stack};
use mcp_sansio::client::{Buffers, Client, Config, Event, Handler};
use mcp_sansio::endpoint::{Outcome, Response};
use mcp_sansio::json;
use mcp_sansio::mcp::view::ListPage;
use mcp_sansio::time::Instant;
use mcp_sansio_embedded::{JobStatus, Jobs};

/// Room for the longest answer: `mcp-device`'s tool list is about 5 KiB.
const RX_BYTES: usize = 8192;
const TX_BYTES: usize = 512;
const MESSAGE: &str = "hello from the board";
const ARGUMENTS: &[u8] = br#"{"message":"hello from the board"}"#;

/// What the client does next, set by the handler and read by the job source.
static STEP: AtomicU8 = AtomicU8::new(IDLE);
const IDLE: u8 = 0;
const LIST: u8 = 1;
const CALL: u8 = 2;

type BoardClient = Client<'static, Reporter, 2>;

#[entry]
fn main() -> ! {
    static mut RX: [u8; RX_BYTES] = [0; RX_BYTES];
    static mut TX: [u8; TX_BYTES] = [0; TX_BYTES];

    let Some(core) = cortex_m::Peripherals::take() else { log::exit(false) };
    clock::start(core.SYST);
    let Some((mut reader, mut writer)) = uart::take() else { log::exit(false) };
    let mut client: BoardClient =
        Client::new(Reporter, Config::new("firmware-client", "0.1.0"), Buffers { rx: RX, tx: TX });
    log!("MCP client on UART0 ({} B engine, stack region {} B)", core::mem::size_of::<BoardClient>(), stack::size());
    if client.connect(firmware_common::clock::now()).is_err() {
        log::exit(false)
    }
    executor::block_on(
        || async {
            let mut clock = TickClock;
            let _ =
                mcp_sansio_embedded::run_with_jobs(&mut client, &mut reader, &mut writer, &mut clock, &mut Steps).await;
            log!("the server's output ended before the answer");
            log::exit(false)
        },
        || {},
    )
}

/// Reports what the engine tells it and moves [`STEP`] on.
struct Reporter;

impl Handler for Reporter {
    fn on_event(&mut self, _now: Instant, event: Event<'_>) {
        match event {
            Event::Connected { version, .. } => {
                log!("connected: {}", version.as_str());
                STEP.store(LIST, Ordering::Release);
            }
            Event::ConnectFailed(error) => {
                log!("cannot connect: {error}");
                log::exit(false)
            }
            _ => {}
        }
    }

    fn on_response(&mut self, _now: Instant, response: Response<'_>) {
        let result = match response.outcome {
            Outcome::Result(result) => result,
            Outcome::Error { code, .. } => {
                log!("request {} failed: error {}", response.request.id() as i32, code as i32);
                log::exit(false)
            }
            _ => {
                log!("request {} got no answer", response.request.id() as i32);
                log::exit(false)
            }
        };
        if let Some(page) = ListPage::read(result, "tools") {
            let tools = page.tools().count();
            log!("tools: {}", tools as u32);
            STEP.store(CALL, Ordering::Release);
            return;
        }
        let text = result.get("content").and_then(|c| c.elements().next()).and_then(|b| b.get("text"));
        let echoed = text.and_then(|t| t.as_str()).is_some_and(|t| t.eq_str(MESSAGE));
        log!("echo: {}", if echoed { MESSAGE } else { "(not the message)" });
        log!("stack peak {} B", stack::peak());
        log::exit(echoed)
    }
}

/// The client's own requests, sent from the loop once the handler asks for them.
struct Steps;

impl Jobs<BoardClient> for Steps {
    async fn ready(&mut self) {
        poll_fn(|_| if STEP.load(Ordering::Acquire) == IDLE { Poll::Pending } else { Poll::Ready(()) }).await
    }

    fn run(&mut self, client: &mut BoardClient, now: Instant) -> JobStatus {
        let sent = match STEP.swap(IDLE, Ordering::AcqRel) {
            LIST => client.list_tools(now, None),
            CALL => client.call_tool(now, "echo", json::parse(ARGUMENTS, 4).ok()),
            _ => return JobStatus::Done,
        };
        if sent.is_err() {
            log!("cannot send a request");
            log::exit(false)
        }
        JobStatus::Done
    }
}
