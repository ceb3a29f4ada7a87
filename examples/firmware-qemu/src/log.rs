//! Diagnostics on the host's stderr through semihosting (QEMU `-semihosting-config
//! enable=on,target=native`), never on the UART that carries MCP. Compiled out without the
//! `semihosting` feature: a semihosting call without a debugger attached would fault on a real
//! board.

use core::fmt;
#[cfg(feature = "semihosting")]
use core::fmt::Write;

/// Formats a line into a stack buffer and writes it to the host's stderr.
macro_rules! log {
    ($($arg:tt)*) => {
        $crate::log::write_line(format_args!($($arg)*))
    };
}
pub(crate) use log;

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
}

#[cfg(feature = "semihosting")]
pub fn write_line(args: fmt::Arguments<'_>) {
    let mut line = Line { bytes: [0; 160], len: 0 };
    let _ = line.write_str("firmware-qemu: ");
    let _ = line.write_fmt(args);
    let _ = line.write_str("\n");
    line.bytes[line.len.min(line.bytes.len() - 1)] = 0;
    // SYS_WRITE0: a NUL-terminated string to the debugger's console (QEMU: its stderr).
    // SAFETY: the block is a valid NUL-terminated string for the duration of the call.
    unsafe { semihosting_call(0x04, line.bytes.as_ptr() as usize) };
}

#[cfg(not(feature = "semihosting"))]
pub fn write_line(_args: fmt::Arguments<'_>) {}

/// Ends the QEMU process with `ok` as exit status 0, otherwise 1 (after a panic). Without
/// semihosting: spins.
pub fn exit(ok: bool) -> ! {
    #[cfg(feature = "semihosting")]
    {
        // SYS_EXIT with ADP_Stopped_ApplicationExit (status 0) or ADP_Stopped_RunTimeErrorUnknown.
        let reason = if ok { 0x2_0026 } else { 0x2_0023 };
        // SAFETY: SYS_EXIT on 32-bit ARM takes the reason code itself as its argument.
        unsafe { semihosting_call(0x18, reason) };
    }
    let _ = ok;
    loop {
        cortex_m::asm::wfi();
    }
}

/// # Safety
/// `arg` must be what the semihosting operation `op` expects.
#[cfg(feature = "semihosting")]
unsafe fn semihosting_call(op: u32, arg: usize) -> usize {
    let result: usize;
    // SAFETY: the caller provides a valid argument; `bkpt 0xab` is the semihosting trap on
    // M-profile cores, handled by QEMU.
    unsafe {
        core::arch::asm!("bkpt #0xab", inout("r0") op as usize => result, in("r1") arg, options(nostack));
    }
    result
}
