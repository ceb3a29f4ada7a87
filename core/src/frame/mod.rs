//! Framing: turning a byte stream into messages.
//!
//! MCP's stdio transport (and the serial transports) carry one JSON-RPC message per line, ended by
//! `\n`; a message never contains a raw newline. [`LineBuffer`] splits such a stream into [`Frame`]s
//! inside a caller-owned receive buffer, without allocating, and enforces a hard line-length limit
//! equal to the buffer size.
//!
//! MCP's Streamable HTTP transport carries messages as server-sent events; [`sse`] writes them and
//! decodes them ([`SseDecoder`]) with the same kind of buffer and limit.

mod intake;
pub mod line;
pub mod sse;

pub use line::{Frame, FrameError, LineBuffer};
pub use sse::{EventId, ReceivedEvent, SseDecoder, SseError, SseEvent, SseWriteError};
