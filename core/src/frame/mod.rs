//! Framing: turning a byte stream into messages.
//!
//! MCP's stdio transport (and the serial transports) carry one JSON-RPC message per line, ended by
//! `\n`; a message never contains a raw newline. [`LineBuffer`] splits such a stream into [`Frame`]s
//! inside a caller-owned receive buffer, without allocating, and enforces a hard line-length limit
//! equal to the buffer size.

pub mod line;

pub use line::{Frame, FrameError, LineBuffer};
