//! Diagnostics on the host's stderr through semihosting (QEMU `-semihosting-config
//! enable=on,target=native`), never on the UART that carries MCP. Compiled out without the
//! `semihosting` feature: a semihosting call without a debugger attached would fault on a real
//! board.

use core::fmt;
#[cfg(feature = "semihosting")]
use core::fmt::Write;
use core::panic::PanicInfo;

#[cfg(feature = "semihosting")]
use crate::arch;

/// Formats a line into a stack buffer and writes it to the host's stderr.
#[macro_export]
macro_rules! log {
    ($($arg:tt)*) => {
        $crate::log::write_line(format_args!($($arg)*))
    };
}

/// A line buffer: long lines are cut, never split across calls.
#[cfg(feature = "semihosting")]
struct Line {
    bytes: [u8; 160],
    len: usize,
}

#[cfg(feature = "semihosting")]
impl Write for Line {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // Keep one byte for the terminating NUL.
        let room = self.bytes.len() - 1 - self.len;
        let n = s.len().min(room);
        self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }

    /// Formatting writes single chars to pad (`{:>5}`), always ASCII; any other char is logged
    /// as `?`. (The default method holds a UTF-8 encoder of its own: about 100 bytes of flash.)
    fn write_char(&mut self, c: char) -> fmt::Result {
        if self.len < self.bytes.len() - 1 {
            self.bytes[self.len] = if c.is_ascii() { c as u8 } else { b'?' };
            self.len += 1;
        }
        Ok(())
    }
}

/// A 32-bit word in a log line as `0x` and eight hex digits (a fault's address), written here:
/// `{:#010x}` links `core`'s integer padding, about 550 B of flash.
#[derive(Clone, Copy)]
pub struct Hex(pub u32);

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("0x")?;
        for shift in (0..8).rev() {
            let nibble = (self.0 >> (4 * shift) & 0xf) as u8;
            let digit = if nibble < 10 { b'0' + nibble } else { b'a' - 10 + nibble };
            fmt::Write::write_char(f, char::from(digit))?;
        }
        Ok(())
    }
}

#[cfg(feature = "semihosting")]
pub fn write_line(args: fmt::Arguments<'_>) {
    let mut line = Line { bytes: [0; 160], len: 0 };
    let _ = line.write_str("firmware: ");
    let _ = line.write_fmt(args);
    let _ = line.write_str("\n");
    line.bytes[line.len.min(line.bytes.len() - 1)] = 0;
    // SYS_WRITE0: a NUL-terminated string to the debugger's console (QEMU: its stderr).
    // SAFETY: the block is a valid NUL-terminated string for the duration of the call.
    unsafe { arch::semihosting_call(0x04, line.bytes.as_ptr() as usize) };
}

#[cfg(not(feature = "semihosting"))]
pub fn write_line(_args: fmt::Arguments<'_>) {}

/// Ends the QEMU process with `ok` as exit status 0, otherwise 1 (after a panic). Without
/// semihosting: sleeps forever.
pub fn exit(ok: bool) -> ! {
    #[cfg(feature = "semihosting")]
    {
        // SYS_EXIT with ADP_Stopped_ApplicationExit (status 0) or ADP_Stopped_RunTimeErrorUnknown.
        let reason = if ok { 0x2_0026 } else { 0x2_0023 };
        // SAFETY: SYS_EXIT on a 32-bit target takes the reason code itself as its argument.
        unsafe { arch::semihosting_call(0x18, reason) };
    }
    let _ = ok;
    crate::arch::halt()
}

/// Logs the panic and ends QEMU with a failure. Its file and line only with the `panic-location`
/// feature: every panic site's location costs flash (2.5 KiB on the Cortex-M3 board).
#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    #[cfg(feature = "panic-location")]
    if let Some(at) = info.location() {
        crate::log!("panic at {}:{}", mcp_sansio::text::Plain(at.file()), mcp_sansio::num::Decimal(at.line().into()));
        exit(false)
    }
    let _ = info;
    crate::log!("panic (build with --features panic-location for its place)");
    exit(false)
}
