//! JSON without an allocator: a validating scanner and a writer into caller-owned buffers.
//!
//! - [`scan`]: [`parse`] validates one untrusted document (strict RFC 8259, iterative, depth-limited) and
//!   returns a zero-copy [`Value`] to walk.
//! - [`from_value`] reads a [`Value`] as any `serde::Deserialize` type, borrowing its strings, with
//!   errors that name where they happened ([`DeError`]).
//! - [`mod@write`]: [`JsonWriter`] writes JSON into a caller-owned buffer, all-or-nothing per call, with no raw
//!   newline in its output.

pub(crate) mod de;
mod de_error;
mod peek;
pub mod scan;
mod ser;
mod spans;
mod string;
#[cfg(test)]
mod tests_mutants;
mod value;
pub mod write;

pub use de::{MAX_UNESCAPED_LEN, from_value};
pub use de_error::{DeError, MAX_MESSAGE_LEN, MAX_PATH_DEPTH};
pub use peek::peek_member;
pub use scan::{
    Elements, JsonStr, Kind, MAX_DEPTH_LIMIT, Members, ScanError, ScanErrorKind, UnescapedChars, Value, parse,
};
pub use write::JsonWriter;
#[cfg(feature = "http")]
pub(crate) use write::encode_base64_chunk;

pub(crate) use scan::parse_spanned;
pub(crate) use spans::Spans;
#[cfg(fuzzing)]
#[doc(hidden)]
pub use spans::recorded_walks_agree;
