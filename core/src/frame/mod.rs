//! Framing: turning a byte stream into messages.
