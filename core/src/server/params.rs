//! A request's `params`, with the members the engine reads found in one walk.
//!
//! Serving a `tools/call` reads `_meta`, `name`, `arguments`, `inputResponses` and `requestState`
//! (and `task` with tasks);
//! looked up one by one, each absent key costs a walk of the whole object (skipping `arguments` each
//! time). [`Params`] walks it once ([`Value::get_all`]) for the keys the common requests read and
//! falls back to a walk for any other key, so every lookup returns what [`Value::get`] would.

use crate::json::{Kind, Spans, Value};
use crate::mcp::meta::Meta;

/// The members found by the one walk, in this order: those the build's methods read (another is
/// found when it is asked for). With tasks also `task` (2025-11-25's task augmentation), read for
/// every `tools/call` of a 2025-11-25 session.
const PICKED_NAMES: &[&str] = &[
    "_meta",
    "name",
    "arguments",
    "cursor",
    #[cfg(feature = "resources")]
    "uri",
    #[cfg(feature = "input")]
    "inputResponses",
    #[cfg(feature = "input")]
    "requestState",
    #[cfg(feature = "tasks")]
    "task",
];

/// [`PICKED_NAMES`] as an array, as [`Value::find_all`] takes them.
const PICKED: [&str; PICKED_NAMES.len()] = {
    let mut names = [""; PICKED_NAMES.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = PICKED_NAMES[i];
        i += 1;
    }
    names
};

/// `params` (an object, or absent) and its members named in [`PICKED`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params<'a> {
    value: Option<Value<'a>>,
    picked: [Option<Value<'a>>; PICKED.len()],
}

impl<'a> Params<'a> {
    /// Walks `value` once (skipping the containers `spans` recorded). `None` (no `params`) reads as
    /// an empty object.
    pub(crate) fn new(value: Option<Value<'a>>, spans: &'a Spans) -> Self {
        let mut params = Params { value, picked: [None; PICKED.len()] };
        if let Some(value) = value {
            value.members_spanned(spans).find_into(&PICKED, &mut params.picked);
        }
        params
    }

    /// [`Params::new`] with a record that does not live as long as `value`: what it keeps borrows
    /// `value`, not the record.
    pub(crate) fn recorded(value: Value<'a>, spans: &Spans) -> Self {
        let picked = value.members_spanned(spans).find_all(PICKED).map(|v| v.map(|v| v.within(value)));
        Params { value: Some(value), picked }
    }

    /// The first member named `key`, as [`Value::get`] finds it.
    pub(crate) fn get(&self, key: &str) -> Option<Value<'a>> {
        match PICKED.iter().position(|picked| *picked == key) {
            Some(index) => self.picked.get(index).copied().flatten(),
            None => self.value.and_then(|v| v.get(key)),
        }
    }

    /// The `params` object itself.
    pub(crate) fn value(&self) -> Option<Value<'a>> {
        self.value
    }
}

/// What the engine reads of a request's `params` (an object) and of its `_meta` (an object, or
/// absent), found once when a body is validated ([`ParsedMessage`](crate::jsonrpc::ParsedMessage))
/// for every reader of it: the HTTP rules and the engine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Picked<'a> {
    pub(crate) params: Params<'a>,
    /// `_meta`'s members; default when `_meta` is absent or not an object.
    pub(crate) meta: Meta<'a>,
}

impl<'a> Picked<'a> {
    /// Reads `params` with `spans`, the validator's record of its document; `None` unless it is an
    /// object.
    pub(crate) fn new(params: Value<'a>, spans: &Spans) -> Option<Self> {
        if params.kind() != Kind::Object {
            return None;
        }
        let params = Params::recorded(params, spans);
        let meta = params.get("_meta").filter(|m| m.kind() == Kind::Object);
        let meta = meta.map_or_else(Meta::default, |m| Meta::recorded(m, spans));
        Some(Picked { params, meta })
    }
}

#[cfg(test)]
mod tests {
    use super::{PICKED, Params};
    use crate::json::{Spans, parse, parse_spanned};

    #[test]
    fn every_lookup_agrees_with_a_walk_of_its_own() {
        let text = br#"{"name":"a","arguments":{"name":"inner"},"n\u0061me":"escaped duplicate","uri":"u","name":"second","level":"info","cursor":null,"requestState":"s","task":{"ttl":1}}"#;
        let mut spans = Spans::default();
        let value = parse_spanned(text, 8, &mut spans).expect("valid");
        let params = Params::new(Some(value), &spans);
        for key in PICKED.iter().copied().chain(["level", "missing", "inner", ""]) {
            assert_eq!(params.get(key), value.get(key), "{key}");
        }
        assert_eq!(params.get("name").and_then(|v| v.as_str()).map(|s| s.raw()), Some(&b"a"[..]));
        assert_eq!(params.get("level").map(|v| v.as_bytes()), Some(&br#""info""#[..]));
        assert_eq!(params.get("inputResponses"), None);
        assert_eq!(params.value(), Some(value));
    }

    #[test]
    fn escaped_names_are_found_and_absent_params_read_as_empty() {
        let spans = Spans::default();
        let value = parse(br#"{"\u005fmeta":{"k":1},"arguments":[]}"#, 8).expect("valid");
        let params = Params::new(Some(value), &spans);
        assert_eq!(params.get("_meta").map(|v| v.as_bytes()), Some(&br#"{"k":1}"#[..]));
        let none = Params::new(None, &spans);
        assert!(PICKED.iter().all(|key| none.get(key).is_none()) && none.get("other").is_none());
        let array = parse(b"[1]", 8).expect("valid");
        assert_eq!(Params::new(Some(array), &spans).get("name"), None);
    }
}
