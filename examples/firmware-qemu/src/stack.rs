//! Peak stack use, measured at run time: cortex-m-rt paints the RAM between the statics and the
//! initial stack pointer with `STACK_PAINT_VALUE` at reset (feature `paint-stack`); the deepest
//! word whose paint is gone marks the stack's high-water mark.

use core::ptr::{addr_of, read_volatile};

use cortex_m_rt::STACK_PAINT_VALUE;

unsafe extern "C" {
    /// Lowest address of the stack region (end of the statics), from cortex-m-rt's `link.x`.
    static _stack_end: u32;
    /// Initial stack pointer (top of RAM).
    static _stack_start: u32;
}

/// Bytes between the top of the stack and the deepest word it ever used.
pub fn peak() -> usize {
    let bottom = addr_of!(_stack_end) as usize;
    let top = addr_of!(_stack_start) as usize;
    let mut at = bottom;
    // SAFETY: every word between the two linker symbols is RAM owned by the stack region.
    while at < top && unsafe { read_volatile(at as *const u32) } == STACK_PAINT_VALUE {
        at += 4;
    }
    top - at
}

/// Size of the stack region.
pub fn size() -> usize {
    addr_of!(_stack_start) as usize - addr_of!(_stack_end) as usize
}
