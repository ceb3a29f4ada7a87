#![no_std]
//! mcp-sansio: a sans-IO Model Context Protocol engine (crate docs are written with the engine).

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

pub mod connection;
pub mod frame;
pub mod json;
pub mod time;
