//! `mcp-serial`: a stdio MCP server that is really a device on a serial line (or a TCP port).
//!
//! An MCP host launches `mcp-serial /dev/ttyACM0` like any stdio server; the bridge forwards
//! newline-delimited JSON-RPC between its stdin/stdout and the device, one whole line at a time,
//! so frames are never mixed or truncated. Diagnostics go to stderr only.
//!
//! When the device goes away (a USB CDC-ACM device re-enumerating after a reset, a closed TCP
//! connection), the bridge:
//! - answers every request the device had not answered with a JSON-RPC error (never silence);
//! - drops the partial line the device was sending, if any;
//! - holds the host's new lines and reconnects until the device is back;
//! - for a legacy-era session (one that began with `initialize`), replays the host's `initialize`
//!   and `notifications/initialized` to the fresh device and swallows the duplicate answer, so the
//!   host's session carries on; modern-era requests carry their own version and need nothing;
//! - then forwards the held lines.
//!
//! A device that resets without the link noticing (a bare UART) cannot be detected this way.

use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::{Value, json};

/// Bridges stdio to an MCP server on a serial device or a TCP port, and survives device resets.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// The device: a serial device path (`/dev/ttyACM0`), or `tcp:HOST:PORT`.
    device: String,
    /// Baud rate of a serial device (ignored for USB CDC-ACM devices and TCP).
    #[arg(short, long, default_value_t = 115_200)]
    baud: u32,
    /// Pause between reconnection attempts, in milliseconds.
    #[arg(long, default_value_t = 100)]
    retry_ms: u64,
    /// After the host closes stdin, how long to wait for outstanding answers, in milliseconds.
    #[arg(long, default_value_t = 2_000)]
    drain_ms: u64,
    /// Host lines held while the device is away; beyond this, requests are answered with an error.
    #[arg(long, default_value_t = 64)]
    max_held: usize,
    /// Log every connection event on stderr (errors and resets are always logged).
    #[arg(short, long)]
    verbose: bool,
}

/// JSON-RPC error code of the answers the bridge writes itself (implementation-defined server error).
const BRIDGE_ERROR: i64 = -32000;
/// Id prefix of the `initialize` requests the bridge replays; their answers are swallowed.
const REPLAY_ID_PREFIX: &str = "mcp-serial/replay/";

#[derive(Clone, Debug)]
enum Target {
    Serial { path: String, baud: u32 },
    Tcp(String),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Serial { path, baud } => write!(f, "{path} at {baud} baud"),
            Target::Tcp(address) => write!(f, "tcp:{address}"),
        }
    }
}

type DeviceReader = Box<dyn Read + Send>;
type DeviceWriter = Box<dyn Write + Send>;

fn connect(target: &Target) -> io::Result<(DeviceReader, DeviceWriter)> {
    match target {
        Target::Tcp(address) => {
            let stream = TcpStream::connect(address)?;
            stream.set_nodelay(true)?;
            Ok((Box::new(stream.try_clone()?), Box::new(stream)))
        }
        Target::Serial { path, baud } => {
            let file = serial::open(path, *baud)?;
            Ok((Box::new(file.try_clone()?), Box::new(file)))
        }
    }
}

#[cfg(unix)]
mod serial {
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;

    /// Opens a tty in raw mode at `baud`, discarding whatever was received before.
    pub fn open(path: &str, baud: u32) -> io::Result<File> {
        let file = OpenOptions::new().read(true).write(true).custom_flags(libc::O_NOCTTY).open(path)?;
        let fd = file.as_raw_fd();
        let speed = speed(baud)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("unsupported baud rate {baud}")))?;
        // SAFETY: `fd` is an open descriptor for the duration of these calls; `termios` is plain data.
        unsafe {
            let mut termios: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(fd, &mut termios) != 0 {
                return Err(io::Error::last_os_error());
            }
            libc::cfmakeraw(&mut termios);
            termios.c_cflag |= libc::CLOCAL | libc::CREAD;
            termios.c_cc[libc::VMIN] = 1;
            termios.c_cc[libc::VTIME] = 0;
            if libc::cfsetispeed(&mut termios, speed) != 0 || libc::cfsetospeed(&mut termios, speed) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::tcsetattr(fd, libc::TCSANOW, &termios) != 0 {
                return Err(io::Error::last_os_error());
            }
            libc::tcflush(fd, libc::TCIOFLUSH);
        }
        Ok(file)
    }

    fn speed(baud: u32) -> Option<libc::speed_t> {
        Some(match baud {
            9_600 => libc::B9600,
            19_200 => libc::B19200,
            38_400 => libc::B38400,
            57_600 => libc::B57600,
            115_200 => libc::B115200,
            230_400 => libc::B230400,
            #[cfg(target_os = "linux")]
            460_800 => libc::B460800,
            #[cfg(target_os = "linux")]
            921_600 => libc::B921600,
            #[cfg(target_os = "linux")]
            1_000_000 => libc::B1000000,
            #[cfg(target_os = "linux")]
            2_000_000 => libc::B2000000,
            _ => return None,
        })
    }
}

#[cfg(not(unix))]
mod serial {
    use std::fs::File;
    use std::io;

    pub fn open(_path: &str, _baud: u32) -> io::Result<File> {
        Err(io::Error::new(io::ErrorKind::Unsupported, "serial devices are supported on Unix only; use tcp:HOST:PORT"))
    }
}

/// The link to the device, as the host side sees it.
enum Link {
    /// Connected and ready: host lines go straight to the device.
    Up(DeviceWriter),
    /// Connected, replaying the legacy handshake: host lines wait.
    Replaying,
    /// Away: host lines wait for the reconnection.
    Down,
}

struct State {
    link: Link,
    /// Requests sent to the device and not answered yet: id (as JSON text) to id.
    pending: HashMap<String, Value>,
    /// The host's `initialize` request (legacy era), to replay after a reset.
    initialize: Option<Value>,
    /// The host sent `notifications/initialized`.
    initialized: bool,
    /// Host lines waiting for the device.
    held: VecDeque<Vec<u8>>,
    /// Replays sent so far (for unique ids).
    replays: u64,
}

struct Bridge {
    args: Args,
    target: Target,
    state: Mutex<State>,
    /// Signalled when `pending` empties (for the drain at exit).
    answered: Condvar,
    stdout: Mutex<io::Stdout>,
}

/// What a line is, as far as the bridge cares.
struct Peek {
    value: Option<Value>,
    method: Option<String>,
    /// The `id` of a request or response, as JSON text.
    id_key: Option<String>,
}

fn peek(line: &[u8]) -> Peek {
    let value: Option<Value> = serde_json::from_slice(line).ok();
    let method = value.as_ref().and_then(|v| v.get("method")).and_then(Value::as_str).map(str::to_owned);
    let id_key = value.as_ref().and_then(|v| v.get("id")).filter(|id| !id.is_null()).map(Value::to_string);
    Peek { value, method, id_key }
}

/// Writes one whole line to the device.
fn send(writer: &mut DeviceWriter, line: &[u8]) -> io::Result<()> {
    writer.write_all(line)?;
    writer.flush()
}

/// Remembers a request sent to the device until it is answered.
fn track(pending: &mut HashMap<String, Value>, peeked: &Peek) {
    if peeked.method.is_some()
        && let (Some(key), Some(value)) = (&peeked.id_key, &peeked.value)
    {
        pending.insert(key.clone(), value["id"].clone());
    }
}

fn error_answer(id: &Value, message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": BRIDGE_ERROR, "message": message },
    }))
    .expect("a JSON value serializes");
    line.push(b'\n');
    line
}

impl Bridge {
    fn log(&self, message: std::fmt::Arguments<'_>) {
        eprintln!("mcp-serial: {message}");
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Writes one whole line to stdout; ends the process if the host is gone.
    fn to_host(&self, line: &[u8]) {
        let mut stdout = self.stdout.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if stdout.write_all(line).and_then(|()| stdout.flush()).is_err() {
            // The host closed our stdout: nobody is listening any more.
            std::process::exit(0);
        }
    }

    /// A line from the host: note what the bridge must remember, then send or hold it.
    fn on_host_line(&self, line: Vec<u8>) {
        let peeked = peek(&line);
        let mut state = self.lock();
        match peeked.method.as_deref() {
            Some("initialize") if peeked.id_key.is_some() => {
                state.initialize = peeked.value.clone();
                state.initialized = false;
            }
            Some("notifications/initialized") => state.initialized = true,
            _ => {}
        }
        if let Link::Up(writer) = &mut state.link {
            let sent = send(writer, &line);
            if sent.is_ok() {
                track(&mut state.pending, &peeked);
                return;
            }
            // The reader side notices the broken link and reconnects; this line waits for it.
            state.link = Link::Down;
        }
        if state.held.len() < self.args.max_held {
            state.held.push_back(line);
            return;
        }
        drop(state);
        if let (Some(_), Some(value)) = (&peeked.method, peeked.value.as_ref().filter(|_| peeked.id_key.is_some())) {
            self.to_host(&error_answer(&value["id"], "mcp-serial: the device is unavailable (reconnecting)"));
        }
    }

    /// Runs forever: connects, serves the device's output, and reconnects after each loss.
    fn device_loop(&self) {
        let mut announced_wait = false;
        loop {
            let (reader, mut writer) = match connect(&self.target) {
                Ok(link) => link,
                Err(error) => {
                    if !announced_wait {
                        self.log(format_args!("waiting for {}: {error}", self.target));
                        announced_wait = true;
                    }
                    thread::sleep(Duration::from_millis(self.args.retry_ms));
                    continue;
                }
            };
            announced_wait = false;
            self.log(format_args!("connected to {}", self.target));
            let replay_id = {
                let mut state = self.lock();
                match state.initialize.clone() {
                    Some(mut initialize) => {
                        state.replays += 1;
                        let id = format!("{REPLAY_ID_PREFIX}{}", state.replays);
                        initialize["id"] = Value::String(id.clone());
                        let mut line = serde_json::to_vec(&initialize).expect("a JSON value serializes");
                        line.push(b'\n');
                        if send(&mut writer, &line).is_err() {
                            drop(state);
                            thread::sleep(Duration::from_millis(self.args.retry_ms));
                            continue;
                        }
                        self.log(format_args!("replaying the host's initialize to the device"));
                        state.link = Link::Replaying;
                        Some((id, writer))
                    }
                    None => {
                        self.go_up(&mut state, writer);
                        None
                    }
                }
            };
            let lost = self.serve(reader, replay_id);
            self.log(format_args!("lost the device: {lost}"));
            self.fail_pending();
            thread::sleep(Duration::from_millis(self.args.retry_ms));
        }
    }

    /// The link is ready: forward the held lines, then let host lines through.
    fn go_up(&self, state: &mut State, mut writer: DeviceWriter) {
        while let Some(line) = state.held.pop_front() {
            if send(&mut writer, &line).is_err() {
                state.held.push_front(line);
                state.link = Link::Down;
                return;
            }
            track(&mut state.pending, &peek(&line));
        }
        state.link = Link::Up(writer);
    }

    /// Forwards the device's lines to the host until the link fails; returns why.
    fn serve(&self, reader: DeviceReader, mut replay: Option<(String, DeviceWriter)>) -> String {
        let mut reader = BufReader::with_capacity(64 * 1024, reader);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => return "end of stream".into(),
                Ok(_) if line.last() != Some(&b'\n') => {
                    return format!("end of stream inside a line ({} bytes dropped)", line.len());
                }
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return error.to_string(),
            }
            let peeked = peek(&line);
            if let Some(key) = &peeked.id_key
                && peeked.method.is_none()
            {
                if let Some((replay_id, _)) = &replay
                    && key == &Value::String(replay_id.clone()).to_string()
                {
                    // The fresh device's answer to the replayed handshake: the host has its own.
                    let (_, mut writer) = replay.take().expect("checked above");
                    let mut state = self.lock();
                    if state.initialized {
                        let note = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
                        if send(&mut writer, note).is_err() {
                            return "write failed after the replayed initialize".into();
                        }
                    }
                    if self.args.verbose {
                        self.log(format_args!("the device accepted the replayed initialize"));
                    }
                    self.go_up(&mut state, writer);
                    continue;
                }
                let mut state = self.lock();
                state.pending.remove(key);
                if state.pending.is_empty() {
                    self.answered.notify_all();
                }
            }
            self.to_host(&line);
        }
    }

    /// The device went away: every request it did not answer gets an error.
    fn fail_pending(&self) {
        let lost: Vec<Value> = {
            let mut state = self.lock();
            state.link = Link::Down;
            state.pending.drain().map(|(_, id)| id).collect()
        };
        for id in &lost {
            self.to_host(&error_answer(
                id,
                "mcp-serial: the device reset or disconnected before answering; the request may or may not have run",
            ));
        }
        if !lost.is_empty() {
            self.log(format_args!("answered {} lost request(s) with an error", lost.len()));
        }
        self.answered.notify_all();
    }

    /// The host closed stdin: wait a little for outstanding answers, then exit.
    fn drain_and_exit(&self) -> ! {
        let deadline = Instant::now() + Duration::from_millis(self.args.drain_ms);
        let mut state = self.lock();
        while !state.pending.is_empty() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            state =
                self.answered.wait_timeout(state, deadline - now).map(|(s, _)| s).unwrap_or_else(|e| e.into_inner().0);
        }
        if self.args.verbose {
            self.log(format_args!("stdin closed; exiting"));
        }
        std::process::exit(0)
    }
}

fn parse_target(device: &str, baud: u32) -> Target {
    match device.strip_prefix("tcp:") {
        Some(address) => Target::Tcp(address.to_owned()),
        None => Target::Serial { path: device.to_owned(), baud },
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let target = parse_target(&args.device, args.baud);
    let bridge = Arc::new(Bridge {
        target,
        state: Mutex::new(State {
            link: Link::Down,
            pending: HashMap::new(),
            initialize: None,
            initialized: false,
            held: VecDeque::new(),
            replays: 0,
        }),
        answered: Condvar::new(),
        stdout: Mutex::new(io::stdout()),
        args,
    });
    let device_side = Arc::clone(&bridge);
    thread::spawn(move || device_side.device_loop());

    let mut stdin = io::stdin().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match stdin.read_until(b'\n', &mut line) {
            Ok(0) => bridge.drain_and_exit(),
            Ok(_) => {
                if line.last() != Some(&b'\n') {
                    // The host ended inside a line: that is not a message.
                    bridge.drain_and_exit();
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                bridge.on_host_line(std::mem::take(&mut line));
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => {
                eprintln!("mcp-serial: reading stdin: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
}
