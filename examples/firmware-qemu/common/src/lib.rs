//! What every QEMU board of the example firmware shares, so that a board brings only its UART, its
//! tick, its memory layout and its entry:
//!
//! - [`serve`]: the example device (`mcp-example-device`) served over a board's UART with the
//!   embedded driver, forever, in both protocol eras; rejected input and each new stack high-water
//!   mark reported on the diagnostic channel, with the engine slots the build's profile serves
//!   ([`IN_FLIGHT`], [`OUTBOUND`]); [`serve_in`] keeps the `Server` in a static; [`serve_handler`]
//!   serves another handler alike;
//! - [`executor`]: a `block_on` for one future that sleeps until an interrupt wakes it;
//! - [`clock`]: milliseconds from the board's 1 kHz tick, and the driver's [`Clock`];
//! - [`uart`]: a board's UART registers ([`uart::Port`]) as async `Read` and `Write` halves, over a
//!   receive [`ring`] and the [`waker`] slots the interrupt handler wakes;
//! - [`stack`]: the stack's peak use, read from the paint the start-up code left;
//! - [`log`]: diagnostics on the host's stderr through QEMU semihosting, the panic handler.
//!
//! Architecture-specific pieces (sleeping, semihosting, the stack region and, on RISC-V, painting it) are
//! in `arch`, for Cortex-M (ARMv6-M and ARMv7-M) and RISC-V (RV32, machine mode). Nothing here
//! needs an atomic read-modify-write, so the ARMv6-M boards (no compare-and-swap) build it as is.
//!
//! [`Clock`]: mcp_sansio_embedded::Clock
#![no_std]

mod arch;
pub mod clock;
pub mod executor;
pub mod log;
pub mod ring;
mod serve;
pub mod stack;
pub mod uart;
pub mod waker;

pub use serve::{
    DeviceServer, IN_FLIGHT, INPUT_BYTES, Logged, OUTBOUND, RX_BYTES, Served, Storage, TX_BYTES, serve, serve_handler,
    serve_handler_in, serve_in,
};
