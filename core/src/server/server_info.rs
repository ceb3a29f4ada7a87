//! `serverInfo` of the modern era's results, written once per engine.
//!
//! A 2026-07-28 server SHOULD add `io.modelcontextprotocol/serverInfo` to every result (the
//! `_meta` of `Result` in the 2026-07-28 schema): it is the same text for every result of an
//! engine, so with the `alloc` feature (a host serving many requests) the engine writes it once and
//! every result copies it. Without `alloc` (firmware) nothing is kept: the 160 bytes of RAM per
//! engine, and a wider reply on the stack, cost more there than writing it each time.

use crate::json::JsonWriter;
use crate::mcp::Implementation;
use crate::version::ProtocolVersion;

/// Longest `serverInfo` text kept; a longer one is written for each result.
#[cfg(feature = "alloc")]
const CAPACITY: usize = 160;

/// The version whose fields the kept text has.
#[cfg(feature = "alloc")]
const VERSION: ProtocolVersion = ProtocolVersion::V2026_07_28;

/// The `serverInfo` object as [`Implementation::write`] writes it for 2026-07-28, if it fits (with
/// `alloc`; nothing without).
#[derive(Clone)]
pub(crate) struct ServerInfoText {
    #[cfg(feature = "alloc")]
    buf: [u8; CAPACITY],
    #[cfg(feature = "alloc")]
    len: usize,
}

impl ServerInfoText {
    /// Writes `info` once; empty if it does not fit.
    #[cfg(feature = "alloc")]
    pub(crate) fn new(info: &Implementation<'_>) -> Self {
        let mut buf = [0; CAPACITY];
        let mut w = JsonWriter::new(&mut buf);
        info.write(&mut w, VERSION);
        let len = if w.is_overflowed() { 0 } else { w.len() };
        ServerInfoText { buf, len }
    }

    /// Keeps nothing (without `alloc`).
    #[cfg(not(feature = "alloc"))]
    pub(crate) fn new(_info: &Implementation<'_>) -> Self {
        ServerInfoText {}
    }

    /// What results answer with: `info` and this text of it.
    pub(crate) fn with<'a>(&'a self, info: &'a Implementation<'a>) -> ServerInfo<'a> {
        ServerInfo {
            info,
            #[cfg(feature = "alloc")]
            text: (self.len > 0).then(|| &self.buf[..self.len]),
        }
    }
}

/// The `serverInfo` a result writes: its text for 2026-07-28 when kept, else written from `info`.
#[derive(Clone, Copy)]
pub(crate) struct ServerInfo<'a> {
    info: &'a Implementation<'a>,
    #[cfg(feature = "alloc")]
    text: Option<&'a [u8]>,
}

impl ServerInfo<'_> {
    /// Writes the `Implementation` object with the fields `version` has.
    pub(crate) fn write(&self, w: &mut JsonWriter<'_>, version: ProtocolVersion) {
        #[cfg(feature = "alloc")]
        if let Some(text) = self.text.filter(|_| version == VERSION) {
            w.raw(text);
            return;
        }
        self.info.write(w, version)
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;

    fn written(info: ServerInfo<'_>, version: ProtocolVersion) -> std::vec::Vec<u8> {
        let mut buf = [0; 512];
        let mut w = JsonWriter::new(&mut buf);
        info.write(&mut w, version);
        let len = w.len();
        buf[..len].to_vec()
    }

    #[test]
    fn the_kept_text_is_what_implementation_writes() {
        let long = "x".repeat(300);
        for info in [
            Implementation::new("thermo", "1.2.0").with_title("Thermo \"meter\"\n"),
            Implementation::new(&long, "1.0.0"),
        ] {
            let text = ServerInfoText::new(&info);
            for version in [VERSION, ProtocolVersion::V2025_11_25, ProtocolVersion::V2024_11_05] {
                let mut buf = [0; 512];
                let mut w = JsonWriter::new(&mut buf);
                info.write(&mut w, version);
                let len = w.len();
                assert_eq!(written(text.with(&info), version), buf[..len].to_vec());
            }
        }
    }
}
