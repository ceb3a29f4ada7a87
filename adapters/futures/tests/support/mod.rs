//! Runs each test under async-std and under smol, with each runtime's own TCP streams, timers and
//! spawn; and the example device as a real server.
#![allow(dead_code, unused_macros)] // Each test file uses a different part.

use std::future::Future;
use std::time::Duration;

use futures_io::{AsyncRead, AsyncWrite};
use mcp_example_device::{Board, Centidegrees, Device, Sensor};
use mcp_sansio::server::{Config, OwnedBuffers, Server};
use mcp_sansio::time::Instant;
use smol::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

pub mod slow;

/// Generates `mod on_async_std { #[test] fn NAME() }` and `mod on_smol { ... }` for each
/// `async fn NAME(runtime: Runtime)` given.
macro_rules! on_both_runtimes {
    ($($test:ident),* $(,)?) => {
        mod on_async_std {
            $(#[test]
            fn $test() {
                crate::support::Runtime::AsyncStd.block_on(super::$test(crate::support::Runtime::AsyncStd));
            })*
        }
        mod on_smol {
            $(#[test]
            fn $test() {
                crate::support::Runtime::Smol.block_on(super::$test(crate::support::Runtime::Smol));
            })*
        }
    };
}

/// A duplex byte stream of either runtime.
pub trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    AsyncStd,
    Smol,
}

/// Longest any test may take before it fails instead of hanging.
pub const DEADLINE: Duration = Duration::from_secs(60);

impl Runtime {
    /// Runs `future` to completion on this thread with the runtime's own `block_on`; fails after
    /// [`DEADLINE`].
    pub fn block_on<F: Future>(self, future: F) -> F::Output {
        let guarded = async {
            let deadline = async {
                self.sleep(DEADLINE).await;
                panic!("the test did not finish within {DEADLINE:?}");
            };
            smol::future::or(future, deadline).await
        };
        match self {
            Runtime::AsyncStd => async_std::task::block_on(guarded),
            Runtime::Smol => smol::block_on(guarded),
        }
    }

    pub async fn sleep(self, duration: Duration) {
        match self {
            Runtime::AsyncStd => async_std::task::sleep(duration).await,
            Runtime::Smol => {
                smol::Timer::after(duration).await;
            }
        }
    }

    /// Runs `future` on the runtime's executor, detached.
    pub fn spawn(self, future: impl Future<Output = ()> + Send + 'static) {
        match self {
            Runtime::AsyncStd => drop(async_std::task::spawn(future)),
            Runtime::Smol => smol::spawn(future).detach(),
        }
    }

    /// A connected pair of loopback TCP streams of the runtime: the client's end and the server's.
    pub async fn tcp_pair(self) -> (Client, Box<dyn Stream>) {
        macro_rules! pair {
            ($net:path) => {{
                use $net as net;
                let listener = net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let address = listener.local_addr().unwrap();
                let (client, accepted) = smol::future::zip(net::TcpStream::connect(address), listener.accept()).await;
                let client = client.unwrap();
                let shutdown = client.clone();
                let client = Client {
                    lines: BufReader::new(Box::new(client.clone())),
                    writer: Box::new(client),
                    shutdown: Box::new(move || shutdown.shutdown(std::net::Shutdown::Write).unwrap()),
                };
                (client, Box::new(accepted.unwrap().0) as Box<dyn Stream>)
            }};
        }
        match self {
            Runtime::AsyncStd => pair!(async_std::net),
            Runtime::Smol => pair!(smol::net),
        }
    }
}

/// The client's end of a TCP connection.
pub struct Client {
    lines: BufReader<Box<dyn Stream>>,
    writer: Box<dyn Stream>,
    shutdown: Box<dyn Fn() + Send>,
}

impl Client {
    pub async fn send(&mut self, text: &str) {
        self.writer.write_all(text.as_bytes()).await.unwrap();
    }

    /// Ends the server's input (a TCP half-close: `poll_close` of async-std's stream only flushes).
    pub fn end_input(&self) {
        (self.shutdown)();
    }

    /// The next answer, parsed; `None` once the server closed its end.
    pub async fn next(&mut self) -> Option<serde_json::Value> {
        next_line(&mut self.lines).await
    }
}

/// Reads one line and parses it; `None` at the end of the stream.
pub async fn next_line<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> Option<serde_json::Value> {
    let mut line = String::new();
    if reader.read_line(&mut line).await.unwrap() == 0 {
        return None;
    }
    assert!(line.ends_with('\n'), "the output ends inside a line: {line:?}");
    Some(serde_json::from_str(&line).unwrap_or_else(|error| panic!("invalid JSON {line:?}: {error}")))
}

pub struct FakeBoard {
    led: bool,
}

impl Board for FakeBoard {
    fn temperature(&mut self, sensor: Sensor, _now: Instant) -> Option<Centidegrees> {
        Some(match sensor {
            Sensor::Board => Centidegrees(2150),
            Sensor::Cpu => Centidegrees(4025),
        })
    }
    fn set_led(&mut self, on: bool) {
        self.led = on;
    }
    fn led(&self) -> bool {
        self.led
    }
    fn calibration(&self) -> &[u8] {
        &mcp_example_device::SAMPLE_CALIBRATION
    }
}

pub type DeviceServer = Server<'static, Device<FakeBoard>>;

/// The example device as a server, with `config` adjusted by `configure`.
pub fn device_server(configure: impl FnOnce(&mut Config<'static>)) -> DeviceServer {
    device_server_with(8192, 8192, configure)
}

/// [`device_server`] with `rx` and `tx` bytes of receive and transmit buffer.
pub fn device_server_with(rx: usize, tx: usize, configure: impl FnOnce(&mut Config<'static>)) -> DeviceServer {
    let mut config = Config::new("mcp-device", "0.1.0");
    configure(&mut config);
    Server::new_owned(Device::new(FakeBoard { led: false }), config, OwnedBuffers::zeroed(rx, tx, 0))
}

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
