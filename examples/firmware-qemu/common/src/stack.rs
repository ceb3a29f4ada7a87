//! Peak stack use, measured at run time: the start-up code paints the RAM between the statics and
//! the initial stack pointer with [`PAINT`] (cortex-m-rt's `paint-stack` feature on Cortex-M, this
//! crate's `__pre_init` on RISC-V); the deepest word whose paint is gone marks the stack's
//! high-water mark.

use core::ptr::read_volatile;

use crate::arch;

/// The word the stack region is painted with.
pub const PAINT: u32 = 0xCCCC_CCCC;

/// Bytes between the top of the stack and the deepest word it ever used.
pub fn peak() -> usize {
    let (bottom, top) = arch::stack_region();
    let mut at = bottom;
    // SAFETY: every word between the two linker symbols is RAM owned by the stack region.
    while at < top && unsafe { read_volatile(at as *const u32) } == PAINT {
        at += 4;
    }
    top - at
}

/// Size of the stack region.
pub fn size() -> usize {
    let (bottom, top) = arch::stack_region();
    top - bottom
}
