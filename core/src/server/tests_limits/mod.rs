//! One deterministic test per row of the "Limits" (docs/limits.md) and "Protocol behaviour"
//! (docs/protocol.md) tables: each asserts the exact JSON-RPC code (or API error) at the limit and
//! just past it, and that the engine keeps serving.

mod behaviour;
mod limits;
mod mutants;
mod support;
