//! One deterministic test per row of README's "Limits" and "Protocol behaviour" tables: each asserts the
//! exact JSON-RPC code (or API error) at the limit and just past it, and that the engine keeps serving.

mod behaviour;
mod limits;
mod mutants;
mod support;
