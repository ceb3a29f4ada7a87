//! `floor`: the least an NDJSON stdio server can do per message, as a lower bound for `mcp-bench`.
//!
//! It reads stdin in large chunks, parses each line with serde_json (into a borrowed struct: the
//! `id` kept, `params` checked and skipped), and writes a canned answer with that id: an
//! `initialize` result for `initialize`, an empty result for `ping`, and one fixed text content for
//! anything else (the echo text is not copied). Notifications get nothing. All answers to the
//! lines of one read go out in one write.
//!
//! `--write-threshold N`: write the answers once N bytes of them wait, before parsing the next line
//! (as `mcp_sansio::server::Limits::write_threshold` does), instead of once per read.
//!
//! `--spin-us N`: when stdin is empty, poll it without blocking for up to N microseconds before
//! sleeping in `poll(2)` (the wake-up experiment of the README's performance section). The
//! default, 0, sleeps at once, like any blocking reader.

use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde::de::IgnoredAny;

#[derive(Deserialize)]
struct Request<'a> {
    #[serde(borrow)]
    id: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    method: &'a str,
    #[allow(dead_code)] // parsed and checked, then dropped
    params: Option<IgnoredAny>,
}

const INITIALIZE: &str =
    r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0"}}"#;
const CALL: &str = r#"{"content":[{"type":"text","text":"canned"}]}"#;

fn answer(line: &[u8], out: &mut Vec<u8>) {
    let Ok(request) = serde_json::from_slice::<Request<'_>>(line) else {
        out.extend_from_slice(
            b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"parse error\"}}\n",
        );
        return;
    };
    let Some(id) = request.id else { return };
    let result = match request.method {
        "initialize" => INITIALIZE,
        "ping" => "{}",
        _ => CALL,
    };
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.get().as_bytes());
    out.extend_from_slice(b",\"result\":");
    out.extend_from_slice(result.as_bytes());
    out.extend_from_slice(b"}\n");
}

/// Reads at least one byte, spinning on a non-blocking descriptor for up to `spin` first.
fn read_spinning(stdin: &mut io::StdinLock<'_>, buf: &mut [u8], spin: Duration) -> io::Result<usize> {
    if spin.is_zero() {
        return stdin.read(buf);
    }
    let fd = stdin.as_raw_fd();
    let mut deadline = None;
    loop {
        match stdin.read(buf) {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                let deadline = *deadline.get_or_insert_with(|| Instant::now() + spin);
                if Instant::now() < deadline {
                    std::hint::spin_loop();
                    continue;
                }
                let mut pollfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
                // SAFETY: one valid pollfd.
                unsafe { libc::poll(&mut pollfd, 1, -1) };
            }
            other => return other,
        }
    }
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    // The number after `flag`, if given.
    let number = |flag: &str| -> Option<u64> {
        let value = args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1))?;
        Some(value.parse().unwrap_or_else(|_| panic!("{flag} takes a number")))
    };
    let spin = Duration::from_micros(number("--spin-us").unwrap_or(0));
    let write_threshold = number("--write-threshold").map_or(usize::MAX, |n| n as usize);
    let mut stdin = io::stdin().lock();
    if !spin.is_zero() {
        let fd = stdin.as_raw_fd();
        // SAFETY: fcntl on our own stdin.
        unsafe { libc::fcntl(fd, libc::F_SETFL, libc::fcntl(fd, libc::F_GETFL) | libc::O_NONBLOCK) };
    }
    let mut stdout = io::stdout().lock();
    let mut buf = vec![0u8; 1 << 20];
    let mut out = Vec::with_capacity(1 << 20);
    let mut filled = 0;
    loop {
        let n = read_spinning(&mut stdin, &mut buf[filled..], spin)?;
        if n == 0 {
            return Ok(());
        }
        filled += n;
        let mut start = 0;
        while let Some(end) = memchr::memchr(b'\n', &buf[start..filled]) {
            answer(&buf[start..start + end], &mut out);
            start += end + 1;
            if out.len() >= write_threshold {
                stdout.write_all(&out)?;
                stdout.flush()?;
                out.clear();
            }
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
        if !out.is_empty() {
            stdout.write_all(&out)?;
            stdout.flush()?;
            out.clear();
        }
    }
}
