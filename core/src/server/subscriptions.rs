//! Change notifications: legacy `resources/subscribe` and `notifications/…/list_changed`, and the
//! 2026-07-28 `subscriptions/listen` streams, with the bounded state each keeps.
//!
//! A listen stream is an open request: it takes one of the engine's `IN_FLIGHT` slots until the
//! client cancels it, its stream closes, or the server ends it.

use crate::json::JsonWriter;
use crate::jsonrpc::OwnedId;

/// Most resource URIs one legacy session, or one listen stream, is subscribed to at once; more
/// subscriptions are refused (`-32603` for `resources/subscribe`; left out of a listen's
/// acknowledgement).
pub const MAX_SUBSCRIPTIONS: usize = 8;

/// Which list changed (see [`Engine::list_changed`](crate::server::Engine::list_changed)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ListChanged {
    /// `tools/list`.
    Tools,
    /// `prompts/list`.
    Prompts,
    /// `resources/list` (and the templates).
    Resources,
}

impl ListChanged {
    pub(crate) fn method(self) -> &'static str {
        match self {
            ListChanged::Tools => "notifications/tools/list_changed",
            ListChanged::Prompts => "notifications/prompts/list_changed",
            ListChanged::Resources => "notifications/resources/list_changed",
        }
    }
}

/// Which lists a handler changed while serving a request (see
/// [`Handler::take_list_changes`](crate::server::Handler::take_list_changes)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ListChanges {
    /// The tools changed.
    pub tools: bool,
    /// The prompts changed.
    pub prompts: bool,
    /// The resources or resource templates changed.
    pub resources: bool,
    /// The contents of resources changed, by index in [`Handler::resource`] (bit `i`: resource `i`,
    /// the first 32): subscribers get `notifications/resources/updated`.
    ///
    /// [`Handler::resource`]: crate::server::Handler::resource
    pub updated: u32,
}

impl ListChanges {
    /// Nothing changed.
    pub const NONE: ListChanges = ListChanges { tools: false, prompts: false, resources: false, updated: 0 };
}

/// A set of resource URIs, kept as 32-bit FNV-1a hashes (a collision costs at worst one
/// notification the client did not ask for).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct UriSet {
    hashes: [u32; MAX_SUBSCRIPTIONS],
    len: u8,
}

/// FNV-1a of the unescaped text of a URI.
pub(crate) fn uri_hash(uri: &str) -> u32 {
    uri.bytes().fold(0x811c_9dc5, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

impl UriSet {
    pub(crate) const EMPTY: UriSet = UriSet { hashes: [0; MAX_SUBSCRIPTIONS], len: 0 };

    /// The hashes and how many of them are in the set.
    pub(crate) fn parts(&self) -> (&[u32; MAX_SUBSCRIPTIONS], u8) {
        (&self.hashes, self.len)
    }

    /// The set [`parts`](Self::parts) gave; `None` if `len` is too large.
    pub(crate) fn from_parts(hashes: [u32; MAX_SUBSCRIPTIONS], len: u8) -> Option<Self> {
        (usize::from(len) <= MAX_SUBSCRIPTIONS).then_some(UriSet { hashes, len })
    }

    pub(crate) fn contains(&self, uri: &str) -> bool {
        let hash = uri_hash(uri);
        self.hashes[..usize::from(self.len)].contains(&hash)
    }

    /// Adds `uri`; `false` if the set is full.
    #[cfg(feature = "subscriptions")]
    pub(crate) fn insert(&mut self, uri: &str) -> bool {
        if self.contains(uri) {
            return true;
        }
        match self.hashes.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = uri_hash(uri);
                self.len += 1;
                true
            }
            None => false,
        }
    }

    #[cfg(all(feature = "resources", feature = "subscriptions"))]
    pub(crate) fn remove(&mut self, uri: &str) {
        let hash = uri_hash(uri);
        let len = usize::from(self.len);
        if let Some(i) = self.hashes[..len].iter().position(|h| *h == hash) {
            self.hashes.copy_within(i + 1..len, i);
            self.len -= 1;
        }
    }
}

/// What one open `subscriptions/listen` stream asked for, as far as the server honours it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Listen {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    pub(crate) uris: UriSet,
    /// The tasks whose status changes it is told of (`notifications/tasks`, the tasks extension).
    #[cfg(feature = "tasks")]
    pub(crate) tasks: UriSet,
}

impl Listen {
    pub(crate) fn wants(&self, list: ListChanged) -> bool {
        match list {
            ListChanged::Tools => self.tools,
            ListChanged::Prompts => self.prompts,
            ListChanged::Resources => self.resources,
        }
    }
}

/// Writes `"_meta":{"io.modelcontextprotocol/subscriptionId":<id>}`.
pub(crate) fn write_subscription_meta(w: &mut JsonWriter<'_>, id: &OwnedId) {
    w.raw(b"\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":");
    id.write(w);
    w.byte(b'}');
}

#[cfg(all(test, feature = "resources", feature = "subscriptions"))]
mod tests {
    use super::*;

    #[test]
    fn uri_sets_are_bounded_and_exact_for_distinct_uris() {
        let mut set = UriSet::EMPTY;
        for i in 0..MAX_SUBSCRIPTIONS {
            assert!(set.insert(&std::format!("file:///{i}")));
        }
        assert!(set.insert("file:///0"), "already there");
        assert!(!set.insert("file:///full"));
        assert!(set.contains("file:///3") && !set.contains("file:///full"));
        set.remove("file:///3");
        assert!(!set.contains("file:///3") && set.contains("file:///7"));
        assert!(set.insert("file:///full"));
    }
}
