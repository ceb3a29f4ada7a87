//! What depends on the instruction set, not on the board: sleeping until an interrupt, the
//! semihosting trap, the bounds of the painted stack region, and (RISC-V) painting it.

#[cfg(target_arch = "arm")]
mod imp {
    use core::ptr::addr_of;

    unsafe extern "C" {
        /// Lowest address of the stack region (end of the statics), from cortex-m-rt's `link.x`.
        static _stack_end: u32;
        /// Initial stack pointer (top of RAM).
        static _stack_start: u32;
    }

    // cortex-m-rt paints the region at reset with the same word.
    const _: () = assert!(cortex_m_rt::STACK_PAINT_VALUE == crate::stack::PAINT);

    /// Sleeps (`wfi`) unless `woken()`, with interrupts masked while it checks, so that a wake-up
    /// between the check and `wfi` is not lost: a pending interrupt still ends `wfi`, and its
    /// handler runs once they are unmasked.
    pub fn sleep_unless(woken: impl Fn() -> bool) {
        cortex_m::interrupt::disable();
        if !woken() {
            cortex_m::asm::wfi();
        }
        // SAFETY: interrupts were enabled before `disable` above (nothing here runs in a critical section).
        unsafe { cortex_m::interrupt::enable() };
    }

    pub fn stack_region() -> (usize, usize) {
        (addr_of!(_stack_end) as usize, addr_of!(_stack_start) as usize)
    }

    pub fn halt() -> ! {
        loop {
            cortex_m::asm::wfi();
        }
    }

    /// # Safety
    /// `arg` must be what the semihosting operation `op` expects.
    #[cfg(feature = "semihosting")]
    pub unsafe fn semihosting_call(op: u32, arg: usize) -> usize {
        let result: usize;
        // SAFETY: the caller provides a valid argument; `bkpt 0xab` is the semihosting trap on
        // M-profile cores, handled by QEMU.
        unsafe {
            core::arch::asm!("bkpt #0xab", inout("r0") op as usize => result, in("r1") arg, options(nostack));
        }
        result
    }
}

#[cfg(target_arch = "riscv32")]
mod imp {
    use core::ptr::addr_of;

    unsafe extern "C" {
        /// Lowest address of the stack region (after the statics and the empty heap), from
        /// riscv-rt's `link.x`.
        static __estack: u32;
        /// Initial stack pointer (top of the stack region).
        static _stack_start: u32;
        #[cfg(feature = "semihosting")]
        fn firmware_semihosting_call(op: usize, arg: usize) -> usize;
    }

    // riscv-rt calls `__pre_init` (feature `pre-init`) once the stack pointer is set and before
    // the statics are initialised; nothing is on the stack yet, so the whole region is painted
    // (as cortex-m-rt's `paint-stack` does on Cortex-M). It may use t0-t2 and a3-a4 only.
    core::arch::global_asm!(
        ".pushsection .text.__pre_init,\"ax\",@progbits",
        ".global __pre_init",
        "__pre_init:",
        "    la t0, __estack",
        "    la t1, _stack_start",
        "    li t2, 0xCCCCCCCC",
        "1:  bgeu t0, t1, 2f",
        "    sw t2, 0(t0)",
        "    addi t0, t0, 4",
        "    j 1b",
        "2:  ret",
        ".popsection",
    );

    // The semihosting trap: `ebreak` between these two no-op shifts, uncompressed, which QEMU
    // reads as a semihosting call (a0: the operation, a1: its argument; the result in a0). Its own
    // 16-byte aligned function, so that the three instructions never straddle a page.
    #[cfg(feature = "semihosting")]
    core::arch::global_asm!(
        ".pushsection .text.firmware_semihosting_call,\"ax\",@progbits",
        ".balign 16",
        ".option push",
        ".option norvc",
        ".global firmware_semihosting_call",
        "firmware_semihosting_call:",
        "    slli zero, zero, 0x1f",
        "    ebreak",
        "    srai zero, zero, 7",
        "    ret",
        ".option pop",
        ".popsection",
    );

    /// Sleeps (`wfi`) unless `woken()`, with interrupts masked while it checks: `wfi` still ends
    /// when an enabled interrupt is pending, and its handler runs once they are unmasked.
    pub fn sleep_unless(woken: impl Fn() -> bool) {
        riscv::interrupt::disable();
        if !woken() {
            riscv::asm::wfi();
        }
        // SAFETY: interrupts were enabled before `disable` above (nothing here runs in a critical section).
        unsafe { riscv::interrupt::enable() };
    }

    pub fn stack_region() -> (usize, usize) {
        (addr_of!(__estack) as usize, addr_of!(_stack_start) as usize)
    }

    pub fn halt() -> ! {
        loop {
            riscv::asm::wfi();
        }
    }

    /// # Safety
    /// `arg` must be what the semihosting operation `op` expects.
    #[cfg(feature = "semihosting")]
    pub unsafe fn semihosting_call(op: u32, arg: usize) -> usize {
        // SAFETY: the caller provides a valid argument; QEMU handles the trap.
        unsafe { firmware_semihosting_call(op as usize, arg) }
    }
}

pub use imp::*;
