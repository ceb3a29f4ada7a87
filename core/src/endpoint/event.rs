//! What an endpoint reports about the connection itself, whichever its role.

use crate::frame::FrameError;

/// Something about the connection itself that either role reports: a received message answered
/// with an error, a frame the framing layer dropped, an answer nobody waits for. A role's own
/// event type carries it (the server's as [`server::Event::Endpoint`](crate::server::Event::Endpoint)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Event {
    /// A received message was answered with an error (`code`) instead of being served.
    Rejected {
        /// The JSON-RPC error code sent.
        code: i32,
        /// The error message's fixed text, after the code's name (`"params" must be an object` of
        /// `Invalid params: "params" must be an object`); for a message with a formatted part (a
        /// tool's name, a limit, …) the code's name itself ([`code::name`](crate::jsonrpc::code::name)).
        reason: &'static str,
    },
    /// A frame was dropped by the framing layer (too long, or cut off by the end of input).
    FrameDropped(FrameError),
    /// The peer sent a response or an error that answers no request this endpoint is waiting for
    /// (it sent none with that id, or the request timed out already).
    UnexpectedResponse,
}
