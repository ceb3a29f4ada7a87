//! The memory and limits of an endpoint: the caller's [`Buffers`] and the [`Limits`] on what is
//! received and written. Every limit is listed with its default in docs/limits.md.

/// Default JSON nesting limit for received messages.
pub const DEFAULT_MAX_DEPTH: usize = 64;
/// Default of [`Limits::write_threshold`]: about seven 64-byte echo answers.
pub const DEFAULT_WRITE_THRESHOLD: usize = 1024;
/// Default number of items on one page of `tools/list`, `resources/list` and `prompts/list`.
pub const DEFAULT_PAGE_SIZE: usize = 100;
/// Smallest transmit window the engine accepts: room for any error it writes itself.
pub const MIN_RESPONSE_WINDOW: usize = 256;

/// The caller-owned memory an endpoint works in.
pub struct Buffers<'a> {
    /// Receive buffer. Its length is the longest message accepted; longer lines are rejected with an
    /// error and skipped.
    pub rx: &'a mut [u8],
    /// Transmit buffer. Must be at least [`MIN_RESPONSE_WINDOW`] bytes.
    pub tx: &'a mut [u8],
}

/// Limits on received and transmitted messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest JSON nesting accepted in a received message (clamped to
    /// [`crate::json::MAX_DEPTH_LIMIT`]); deeper messages are rejected with `-32600`.
    pub max_depth: usize,
    /// Largest message the endpoint writes, in bytes (clamped to the transmit buffer, and to at least
    /// [`MIN_RESPONSE_WINDOW`]). A result that does not fit becomes a `-32603` error; list results end
    /// the page early instead. The engine only reads the next request when this much transmit space is
    /// free: with the default (the whole transmit buffer) it answers one request at a time; a transmit
    /// buffer several times larger lets it answer a burst of requests before the adapter writes
    /// (up to [`Limits::write_threshold`] bytes of them).
    pub max_response: usize,
    /// Items per page of the list methods.
    pub page_size: usize,
    /// Output, in bytes, after which the engine takes no further request from the receive buffer
    /// until the adapter has written what waits (`transmit_done`); it then goes on with
    /// the requests it holds. A peer that pipelines requests (sends many before reading) thus reads
    /// its first answers while the later ones are computed, instead of after the whole burst: on two
    /// CPUs both sides work at once. The cost is a write per this many bytes of answers (or per
    /// answer, for answers larger than it); `usize::MAX` answers everything buffered before the
    /// first write. Values below 1 count as 1. It is measured,
    /// on both counts, in docs/performance.md. Applies to byte streams
    /// (`rx_commit`); whole messages (`handle_message`) are one request each.
    pub write_threshold: usize,
}

impl Limits {
    /// The defaults: [`DEFAULT_MAX_DEPTH`], the whole transmit buffer, [`DEFAULT_PAGE_SIZE`],
    /// [`DEFAULT_WRITE_THRESHOLD`].
    pub const DEFAULT: Limits = Limits {
        max_depth: DEFAULT_MAX_DEPTH,
        max_response: usize::MAX,
        page_size: DEFAULT_PAGE_SIZE,
        write_threshold: DEFAULT_WRITE_THRESHOLD,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
