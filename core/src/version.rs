//! Protocol versions and eras.
//!
//! MCP has two eras. The *legacy* era (2024-11-05 … 2025-11-25) opens a session with the `initialize`
//! handshake. The *modern* era (2026-07-28 and later) is stateless: every request carries its version
//! and the client's capabilities in `params._meta`. A dual-era server, like this one, picks the era per
//! request.

use core::fmt;

/// A protocol revision this crate implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05: the first release.
    V2024_11_05,
    /// 2025-03-26: Streamable HTTP, JSON-RPC batches, tool annotations, audio.
    V2025_03_26,
    /// 2025-06-18: structured tool output, elicitation, titles; batches removed.
    V2025_06_18,
    /// 2025-11-25: the last legacy revision (icons, URL elicitation, tasks).
    V2025_11_25,
    /// 2026-07-28: the first modern revision (stateless, `server/discover`, `resultType`).
    V2026_07_28,
}

/// Whether a version opens sessions with `initialize` (legacy) or is stateless (modern).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Era {
    /// 2025-11-25 and earlier: `initialize` handshake, sessions.
    Legacy,
    /// 2026-07-28 and later: per-request `_meta`, no handshake.
    Modern,
}

impl ProtocolVersion {
    /// Every version, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];
    /// The newest legacy version: what `initialize` answers when the client asks for one we lack.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;
    /// The newest version overall.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The version's wire name, e.g. `"2025-11-25"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a wire name; `None` for a version this crate does not implement.
    pub fn from_wire(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.as_str() == name)
    }

    /// The version's era.
    pub const fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Modern,
            _ => Era::Legacy,
        }
    }

    /// The era a server of this build serves this version in: [`era`](Self::era), or the one era
    /// the build has (cargo features `legacy`, `modern`), so that the other era's code paths are
    /// known unreachable and left out. A server only ever serves versions of the eras it has.
    pub(crate) const fn served_era(self) -> Era {
        match (cfg!(feature = "legacy"), cfg!(feature = "modern")) {
            (true, false) => Era::Legacy,
            (false, true) => Era::Modern,
            _ => self.era(),
        }
    }

    /// Whether arguments that do not match a tool's input schema are answered as a tool execution
    /// error (`isError: true`, so that the model can correct itself) rather than the protocol error
    /// `-32602`: from 2025-11-25 (SEP-1303).
    pub const fn reports_invalid_arguments_in_results(self) -> bool {
        matches!(self, ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28)
    }

    /// `structuredContent` on tool results (2025-06-18 and later).
    pub const fn has_structured_content(self) -> bool {
        matches!(self, ProtocolVersion::V2025_06_18 | ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28)
    }

    /// `title` on tools, resources and prompts (2025-06-18 and later).
    pub const fn has_titles(self) -> bool {
        self.has_structured_content()
    }

    /// Tool `annotations` (2025-03-26 and later).
    pub const fn has_tool_annotations(self) -> bool {
        !matches!(self, ProtocolVersion::V2024_11_05)
    }

    /// `completion/complete` and the `completions` capability (2025-03-26 and later).
    pub const fn has_completions(self) -> bool {
        !matches!(self, ProtocolVersion::V2024_11_05)
    }

    /// Audio content blocks (2025-03-26 and later).
    pub const fn has_audio(self) -> bool {
        self.has_tool_annotations()
    }

    /// `resource_link` content blocks, `_meta` on listed items, elicitation (2025-06-18 and later).
    pub const fn has_resource_links(self) -> bool {
        self.has_structured_content()
    }

    /// Icons, `websiteUrl` and `description` on implementations, URL elicitation and tool use in
    /// sampling (2025-11-25 and later).
    pub const fn has_icons(self) -> bool {
        matches!(self, ProtocolVersion::V2025_11_25 | ProtocolVersion::V2026_07_28)
    }

    /// JSON-RPC batches must be accepted (2025-03-26 only).
    pub const fn accepts_batches(self) -> bool {
        matches!(self, ProtocolVersion::V2025_03_26)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_round_trip_and_unknown_names_are_rejected() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::from_wire(v.as_str()), Some(v));
        }
        assert_eq!(ProtocolVersion::from_wire("1900-01-01"), None);
        assert_eq!(ProtocolVersion::from_wire(""), None);
    }

    #[test]
    fn each_feature_starts_with_the_version_that_added_it() {
        use ProtocolVersion as V;
        // (version, structured content and titles, annotations/completions/audio, resource links, icons, batches)
        let table = [
            (V::V2024_11_05, false, false, false, false, false),
            (V::V2025_03_26, false, true, false, false, true),
            (V::V2025_06_18, true, true, true, false, false),
            (V::V2025_11_25, true, true, true, true, false),
            (V::V2026_07_28, true, true, true, true, false),
        ];
        for (v, structured, annotated, links, icons, batches) in table {
            assert_eq!((v.has_structured_content(), v.has_titles()), (structured, structured), "{v}");
            assert_eq!(
                (v.has_tool_annotations(), v.has_completions(), v.has_audio()),
                (annotated, annotated, annotated),
                "{v}"
            );
            assert_eq!((v.has_resource_links(), v.has_icons(), v.accepts_batches()), (links, icons, batches), "{v}");
        }
    }

    #[test]
    fn eras_split_at_2026() {
        assert_eq!(ProtocolVersion::V2025_11_25.era(), Era::Legacy);
        assert_eq!(ProtocolVersion::V2026_07_28.era(), Era::Modern);
        assert!(ProtocolVersion::ALL.windows(2).all(|w| w[0] < w[1]));
    }
}
