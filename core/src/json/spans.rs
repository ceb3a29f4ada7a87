//! Where the shallow containers of a validated document end, recorded by the validator.
//!
//! Walking an object's members skips each value to find the next member; for a container that
//! means scanning all of it again (the validator already did once). A request is walked several
//! times at shallow depth: the envelope (skipping `params`), `params` (skipping `arguments` and
//! `_meta`), `_meta` (skipping the client's capabilities and information). [`Spans`] keeps the
//! lengths of the first [`MAX_SPANS`] containers at depths 2 to [`SPAN_DEPTH`] (the root container is
//! depth 1), in document order, so those skips cost a lookup instead of a scan. Deeper or later
//! containers are scanned as before; results are the same either way.

use super::value::Value;

/// Containers recorded per document.
pub(crate) const MAX_SPANS: usize = 8;
/// The deepest container depth recorded (the root container is depth 1).
const SPAN_DEPTH: usize = 4;

/// The lengths of a document's first shallow containers, by start offset. Filled by
/// [`scan::parse_spanned`](super::scan::parse_spanned); empty (no lookup hits) otherwise.
#[derive(Clone, Debug, Default)]
pub(crate) struct Spans {
    /// Address of the document's first byte.
    base: usize,
    /// The document's length: only values inside it are looked up.
    doc_len: usize,
    /// Index into `entries` of each open container at depths 2..=SPAN_DEPTH, if it was recorded.
    open: [Option<u8>; SPAN_DEPTH],
    /// `(start offset, length)`; length 0 while the container is open.
    entries: [(usize, usize); MAX_SPANS],
    len: usize,
}

impl Spans {
    /// Starts recording for `input`, forgetting any earlier document.
    pub(super) fn begin(&mut self, input: &[u8]) {
        // Entries past `len` are never read, and an open slot is always written before it is read.
        self.base = input.as_ptr() as usize;
        self.doc_len = input.len();
        self.len = 0;
    }
}

impl super::scan::Record for Spans {
    /// A container opened at `offset`; `depth` counts it (the root container is 1).
    #[inline]
    fn open(&mut self, depth: usize, offset: usize) {
        if !(2..=SPAN_DEPTH).contains(&depth) {
            return;
        }
        let recorded = match self.entries.get_mut(self.len) {
            Some(entry) => {
                *entry = (offset, 0);
                self.len += 1;
                u8::try_from(self.len - 1).ok()
            }
            None => None,
        };
        if let Some(slot) = self.open.get_mut(depth - 1) {
            *slot = recorded;
        }
    }

    /// The container at `depth` closed; `end` is the offset just after its closing bracket.
    #[inline]
    fn close(&mut self, depth: usize, end: usize) {
        if !(2..=SPAN_DEPTH).contains(&depth) {
            return;
        }
        let index = self.open.get_mut(depth - 1).and_then(Option::take);
        if let Some((start, len)) = index.and_then(|i| self.entries.get_mut(usize::from(i))) {
            *len = end.saturating_sub(*start);
        }
    }
}

impl Spans {
    /// The length of the container at the start of `bytes`, if it was recorded (and fits `bytes`).
    #[inline]
    pub(super) fn container_len(&self, bytes: &[u8]) -> Option<usize> {
        let offset = (bytes.as_ptr() as usize).checked_sub(self.base)?;
        if offset >= self.doc_len {
            return None;
        }
        let entries = self.entries.get(..self.len)?;
        let &(_, len) = entries.iter().find(|&&(start, len)| start == offset && len != 0)?;
        (len <= bytes.len()).then_some(len)
    }

    /// How many containers were recorded (tests).
    #[cfg(test)]
    pub(super) fn recorded(&self) -> usize {
        self.len
    }
}

impl<'a> Value<'a> {
    /// [`members`](Value::members), skipping the containers `spans` recorded without rescanning them.
    pub(crate) fn members_spanned(&self, spans: &'a Spans) -> super::Members<'a> {
        self.members().with_spans(spans)
    }
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use super::{MAX_SPANS, Spans};
    use crate::json::scan::{parse, parse_spanned};
    use crate::json::{Kind, Value};

    /// Walks every object and array of `value`, checking that the spanned walk yields exactly the
    /// members of the plain one; returns how many containers it visited.
    fn same_walks(value: Value<'_>, spans: &Spans) -> usize {
        match value.kind() {
            Kind::Object => {
                let plain: Vec<_> = value.members().collect();
                let spanned: Vec<_> = value.members_spanned(spans).collect();
                assert_eq!(plain, spanned, "{value:?}");
                1 + plain.iter().map(|(_, v)| same_walks(*v, spans)).sum::<usize>()
            }
            Kind::Array => 1 + value.elements().map(|v| same_walks(v, spans)).sum::<usize>(),
            _ => 0,
        }
    }

    #[test]
    fn spanned_walks_yield_what_plain_walks_yield() {
        let docs: [&[u8]; 6] = [
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"}]{[\""},"_meta":{"a":{"b":{"c":[1,{}]}}}}}"#,
            br#" { "a" : { } , "b" : [ ] , "c" : { "d" : [ { } , [ ] ] } , "e" : "{" } "#,
            br#"[{"params":{"x":[1,2,{"y":{}}]}},{"params":{}},[[[[]]]]]"#,
            br#"{"k":{"a":{},"b":{},"c":{},"d":{},"e":{},"f":{},"g":{},"h":{},"i":{"j":[]}},"l":[{"m":1}]}"#,
            br#"{"s":"no containers"}"#,
            b"[]",
        ];
        for doc in docs {
            let mut spans = Spans::default();
            let value = parse_spanned(doc, 64, &mut spans).expect("valid");
            assert_eq!(value, parse(doc, 64).expect("valid"));
            assert!(spans.recorded() <= MAX_SPANS);
            assert!(same_walks(value, &spans) > 0);
        }
    }

    #[test]
    fn records_the_first_shallow_containers_and_looks_up_only_their_starts() {
        let doc = br#"{"params":{"arguments":{"deep":{"deeper":{}}}},"after":[1]}"#;
        let mut spans = Spans::default();
        let value = parse_spanned(doc, 64, &mut spans).expect("valid");
        // params (depth 2), arguments (3), deep (4), after (2); not the root, not `deeper` (5).
        assert_eq!(spans.recorded(), 4);
        let params = value.get("params").expect("params");
        assert_eq!(spans.container_len(params.as_bytes()), Some(params.as_bytes().len()));
        let arguments = params.get("arguments").expect("arguments");
        assert_eq!(spans.container_len(arguments.as_bytes()), Some(arguments.as_bytes().len()));
        let deeper = arguments.get("deep").and_then(|d| d.get("deeper")).expect("deeper");
        assert_eq!(spans.container_len(deeper.as_bytes()), None);
        // The root is not recorded; a slice starting inside a container is no hit; nor is another
        // document, or a slice too short for the recorded length.
        assert_eq!(spans.container_len(value.as_bytes()), None);
        assert_eq!(spans.container_len(&params.as_bytes()[1..]), None);
        assert_eq!(spans.container_len(br#"{"other":{}}"#), None);
        assert_eq!(spans.container_len(&params.as_bytes()[..3]), None);
        // More containers than slots: the first ones are kept, the rest are scanned.
        let many = br#"{"a":[[],[],[],[],[],[],[],[],[],[]]}"#;
        let value = parse_spanned(many, 64, &mut spans).expect("valid");
        assert_eq!(spans.recorded(), MAX_SPANS);
        assert_eq!(same_walks(value, &spans), 12);
    }
}
