//! Server-sent events (`text/event-stream`), as MCP's Streamable HTTP transport uses them.
//!
//! A server answers a POST (or a GET) with a stream of events, one JSON-RPC message in each event's
//! `data`. This module writes those events into caller buffers and reads them back for the client
//! role, without allocating and without panicking on any input.
//!
//! - Writing: [`SseEvent`] describes the fields before the data (an [`EventId`] for `Last-Event-ID`
//!   resumption, `retry`, `event`). [`write_event`] writes a whole event around a payload;
//!   [`prefix`] and [`SUFFIX`] let a message writer put the JSON straight between them with no copy.
//!   [`write_priming`] writes the 2025-11-25 priming event (an `id` and empty `data`) and
//!   [`write_comment`] a keep-alive. Every write is all-or-nothing: on error the buffer is untouched
//!   and [`SseWriteError::BufferTooSmall`] says how many bytes it needs.
//! - Reading: [`SseDecoder`] splits a byte stream received in arbitrary chunks into
//!   [`ReceivedEvent`]s inside a caller-owned buffer, following the WHATWG HTML parsing rules, with a
//!   hard event-length limit equal to the buffer size and resynchronisation after an over-long event,
//!   and the same `spare`/`commit`/`push` interface as [`LineBuffer`](super::LineBuffer).
//!
//! ```
//! use mcp_sansio::frame::sse::{EventId, SseDecoder, SseEvent, write_event, write_priming};
//!
//! let mut wire = [0u8; 128];
//! let mut len = write_priming(EventId::new(1, 0), Some(3000), &mut wire).unwrap();
//! len += write_event(&SseEvent::new().with_id(EventId::new(1, 1)), br#"{"id":1}"#, &mut wire[len..]).unwrap();
//!
//! let mut storage = [0u8; 64];
//! let mut decoder = SseDecoder::new(&mut storage);
//! assert_eq!(decoder.push(&wire[..len]), len);
//! let priming = decoder.next_event().unwrap().unwrap();
//! assert!(!priming.is_message());
//! assert_eq!(priming.retry(), Some(3000));
//! let message = decoder.next_event().unwrap().unwrap();
//! assert_eq!(message.data(), br#"{"id":1}"#);
//! assert_eq!(EventId::parse(message.id().unwrap()), Ok(EventId::new(1, 1)));
//! ```

mod decode;
mod encode;
mod id;
mod parse;

pub use decode::{ReceivedEvent, SseDecoder, SseError};
pub use encode::{SUFFIX, SseEvent, SseWriteError, prefix, write_comment, write_event, write_priming};
pub use id::{EventId, EventIdError};
