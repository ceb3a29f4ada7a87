//! What the validator records of a document's shallow structure, so that walks need not rescan it.
//!
//! Walking an object's members scans each name and skips each value to find the next member; for a
//! container that means scanning all of it again (the validator already did once). A request is
//! walked several times at shallow depth: the envelope, `params`, `_meta`, the tool's `arguments`.
//! [`Spans`] keeps, in document order:
//!
//! - the extent of the first [`MAX_SPANS`] containers at depths 1 to [`SPAN_DEPTH`] (the root
//!   container is depth 1), so skipping one costs a lookup instead of a scan;
//! - the name and value extents of the first [`MAX_MEMBERS`] members of those objects, so walking an
//!   object all of whose members were recorded reads the record and scans nothing.
//!
//! An object with a member past the record, and deeper or later containers, are walked by scanning
//! as before; results are the same either way (the tests compare both walks). The record is a fixed
//! [`SPANS_SIZE_LIMIT`] bytes at most (360 on 64-bit targets, 340 on 32-bit ones), on the stack of
//! the call that validates messages. Its offsets are 16 bits: a document longer than
//! [`MAX_RECORDED_LEN`] is not recorded (it is walked by scanning), which halves the record for the
//! messages that are.
//!
//! The record is the cargo feature `walk-index` (in `full`). Without it the record has no room
//! (a few words: every walk scans, as for a document past the record), and a firmware's stack is
//! 340 B shallower.

use super::value::Value;

/// Containers recorded per document.
pub(crate) const MAX_SPANS: usize = if cfg!(feature = "walk-index") { 12 } else { 0 };
/// Members of recorded objects recorded per document.
pub(crate) const MAX_MEMBERS: usize = if cfg!(feature = "walk-index") { 24 } else { 0 };
/// The deepest container depth recorded (the root container is depth 1).
const SPAN_DEPTH: usize = if cfg!(feature = "walk-index") { 4 } else { 0 };
/// The most bytes a [`Spans`] takes (checked at compile time).
pub(crate) const SPANS_SIZE_LIMIT: usize = 384;
/// The longest document recorded: offsets into it fit 16 bits.
pub(crate) const MAX_RECORDED_LEN: usize = u16::MAX as usize;
/// An offset into a recorded document.
type Offset = u16;
const _: () = assert!(size_of::<Spans>() <= SPANS_SIZE_LIMIT);
/// No member (a link to nothing).
const NO_MEMBER: u8 = u8::MAX;
const _: () = assert!(MAX_MEMBERS < NO_MEMBER as usize && MAX_SPANS < u8::MAX as usize);

/// A recorded container: offsets into the document.
#[derive(Clone, Copy, Debug, Default)]
struct Container {
    start: Offset,
    /// Length, brackets included; 0 while the container is open.
    len: Offset,
    /// The first recorded member (objects), or [`NO_MEMBER`].
    first: u8,
    /// Whether every member of the object was recorded (so a walk may read the record alone).
    complete: bool,
}

/// A recorded member of an object: offsets into the document.
#[derive(Clone, Copy, Debug, Default)]
struct Member {
    /// Just after the name's opening quote.
    name: Offset,
    /// The name's closing quote.
    name_end: Offset,
    /// The value's first byte.
    value: Offset,
    /// Just after the value's last byte (0 until the value has ended).
    value_end: Offset,
    /// The object's next recorded member, or [`NO_MEMBER`].
    next: u8,
    /// Whether the name has no escape.
    plain: bool,
}

/// The shallow structure of one validated document. Filled by
/// [`scan::parse_spanned`](super::scan::parse_spanned); empty (no lookup hits) otherwise.
#[derive(Clone, Debug)]
pub(crate) struct Spans {
    /// Address of the document's first byte.
    base: usize,
    /// The document's length: only values inside it are looked up (0: nothing is recorded).
    doc_len: usize,
    /// Index into `containers` of each open container at depths 1..=SPAN_DEPTH, if it was recorded.
    open: [Option<u8>; SPAN_DEPTH],
    /// The last recorded member of each open object at depths 1..=SPAN_DEPTH, if any.
    last: [u8; SPAN_DEPTH],
    containers: [Container; MAX_SPANS],
    containers_len: usize,
    members: [Member; MAX_MEMBERS],
    members_len: usize,
}

impl Default for Spans {
    fn default() -> Self {
        Spans::EMPTY
    }
}

impl Spans {
    /// A record of no document.
    pub(crate) const EMPTY: Spans = Spans {
        base: 0,
        doc_len: 0,
        open: [None; SPAN_DEPTH],
        last: [NO_MEMBER; SPAN_DEPTH],
        containers: [Container { start: 0, len: 0, first: NO_MEMBER, complete: false }; MAX_SPANS],
        containers_len: 0,
        members: [Member { name: 0, name_end: 0, value: 0, value_end: 0, next: NO_MEMBER, plain: false }; MAX_MEMBERS],
        members_len: 0,
    };

    /// Starts recording for `input`, forgetting any earlier document. A document longer than
    /// [`MAX_RECORDED_LEN`] is not recorded.
    pub(super) fn begin(&mut self, input: &[u8]) {
        // Entries past the lengths are never read, and an open slot is always written before it is read.
        self.base = input.as_ptr() as usize;
        self.doc_len = if input.len() <= MAX_RECORDED_LEN { input.len() } else { 0 };
        self.containers_len = 0;
        self.members_len = 0;
    }
}

/// An offset that [`Spans::begin`] checked fits an [`Offset`] (offsets never exceed the document's
/// length).
fn offset(value: usize) -> Offset {
    Offset::try_from(value).unwrap_or(Offset::MAX)
}

impl super::scan::Record for Spans {
    /// A container opened at `offset`; `depth` counts it (the root container is 1).
    #[inline]
    fn open(&mut self, depth: usize, at: usize) {
        if depth == 0 || depth > SPAN_DEPTH || self.doc_len == 0 {
            return;
        }
        let recorded = match self.containers.get_mut(self.containers_len) {
            Some(entry) => {
                *entry = Container { start: offset(at), len: 0, first: NO_MEMBER, complete: true };
                self.containers_len += 1;
                u8::try_from(self.containers_len - 1).ok()
            }
            None => None,
        };
        if let Some(slot) = self.open.get_mut(depth - 1) {
            *slot = recorded;
        }
        if let Some(last) = self.last.get_mut(depth - 1) {
            *last = NO_MEMBER;
        }
    }

    /// The container at `depth` closed; `end` is the offset just after its closing bracket.
    #[inline]
    fn close(&mut self, depth: usize, end: usize) {
        if depth == 0 || depth > SPAN_DEPTH {
            return;
        }
        let index = self.open.get_mut(depth - 1).and_then(Option::take);
        if let Some(container) = index.and_then(|i| self.containers.get_mut(usize::from(i))) {
            container.len = offset(end).saturating_sub(container.start);
        }
    }

    /// A member of the object open at `depth`: its name from `name` to `name_end` (quotes
    /// included), its value starting at `value`; `plain`: the name has no escape.
    #[inline]
    fn member(&mut self, depth: usize, name: usize, name_end: usize, value: usize, plain: bool) {
        let Some(slot) = depth.checked_sub(1) else { return };
        let (Some(last), Some(Some(open))) = (self.last.get_mut(slot), self.open.get(slot)) else { return };
        let Some(container) = self.containers.get_mut(usize::from(*open)) else { return };
        let index = self.members_len;
        let (true, Some(entry), Ok(new)) = (container.complete, self.members.get_mut(index), u8::try_from(index))
        else {
            // Out of room: the object is walked by scanning, and its later values are not recorded.
            container.complete = false;
            *last = NO_MEMBER;
            return;
        };
        // The name without its quotes (a name is at least `""`).
        let (name, name_end) = (offset(name).saturating_add(1), offset(name_end).saturating_sub(1));
        *entry = Member { name, name_end, value: offset(value), value_end: 0, next: NO_MEMBER, plain };
        self.members_len += 1;
        match self.members.get_mut(usize::from(*last)) {
            Some(previous) => previous.next = new,
            None => container.first = new,
        }
        *last = new;
    }

    /// A value in the container open at `depth` ended at `end` (for an object: the value of its
    /// last member).
    #[inline]
    fn value_end(&mut self, depth: usize, end: usize) {
        let Some(&last) = depth.checked_sub(1).and_then(|i| self.last.get(i)) else { return };
        if let Some(member) = self.members.get_mut(usize::from(last)) {
            member.value_end = offset(end);
        }
    }
}

/// A walk of a recorded object's members: the object's bytes and the next member to yield.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Recorded<'a> {
    spans: &'a Spans,
    /// The object's bytes, and their offset in the document.
    object: &'a [u8],
    start: usize,
    next: u8,
}

impl<'a> Recorded<'a> {
    /// The next member's name (between the quotes) and value, both slices of the object, and
    /// whether the name is known to have no escape.
    #[inline]
    pub(crate) fn next_member(&mut self) -> Option<(&'a [u8], &'a [u8], bool)> {
        let member = self.spans.members.get(usize::from(self.next))?;
        self.next = member.next;
        // Offsets in the object (one before its start wraps, and is out of range too).
        let start = self.start;
        let at = |offset: Offset| usize::from(offset).wrapping_sub(start);
        let name = self.object.get(at(member.name)..at(member.name_end))?;
        let value = self.object.get(at(member.value)..at(member.value_end))?;
        Some((name, value, member.plain))
    }
}

impl Spans {
    /// The recorded container starting at the start of `bytes`, if it was recorded, has closed and
    /// fits `bytes`.
    #[inline]
    fn container(&self, bytes: &[u8]) -> Option<&Container> {
        let at = (bytes.as_ptr() as usize).checked_sub(self.base)?;
        if at >= self.doc_len {
            return None;
        }
        let containers = self.containers.get(..self.containers_len)?;
        let container = containers.iter().find(|c| usize::from(c.start) == at && c.len != 0)?;
        (usize::from(container.len) <= bytes.len()).then_some(container)
    }

    /// The length of the container at the start of `bytes`, if it was recorded (and fits `bytes`).
    #[inline]
    pub(super) fn container_len(&self, bytes: &[u8]) -> Option<usize> {
        self.container(bytes).map(|c| usize::from(c.len))
    }

    /// A walk of the members of the object `object` (exactly its bytes) from the record, if all of
    /// them were recorded.
    #[inline]
    pub(super) fn recorded_members<'a>(&'a self, object: &'a [u8]) -> Option<Recorded<'a>> {
        let container = self.container(object).filter(|c| c.complete && usize::from(c.len) == object.len())?;
        Some(Recorded { spans: self, object, start: usize::from(container.start), next: container.first })
    }

    /// How many containers were recorded (tests).
    #[cfg(all(test, feature = "walk-index"))]
    pub(super) fn recorded(&self) -> usize {
        self.containers_len
    }

    /// How many members were recorded (tests).
    #[cfg(all(test, feature = "walk-index"))]
    pub(super) fn recorded_member_count(&self) -> usize {
        self.members_len
    }
}

impl<'a> Value<'a> {
    /// [`members`](Value::members), read from what `spans` recorded of the object when it holds all
    /// its members, and otherwise skipping the containers `spans` recorded without rescanning them.
    pub(crate) fn members_spanned(&self, spans: &'a Spans) -> super::Members<'a> {
        self.members().with_spans(spans, self.as_bytes())
    }
}

/// For the `json` fuzz target: whether every object of `input`, down to depth 6, yields the same
/// members read from the record as scanned (`None` if `input` is not valid JSON).
#[cfg(fuzzing)]
pub fn recorded_walks_agree(input: &[u8]) -> Option<bool> {
    fn agree(value: Value<'_>, spans: &Spans, depth: usize) -> bool {
        match value.kind() {
            _ if depth > 6 => true,
            super::Kind::Object => {
                value.members().eq(value.members_spanned(spans))
                    && value.members().all(|(_, member)| agree(member, spans, depth + 1))
            }
            super::Kind::Array => value.elements().all(|element| agree(element, spans, depth + 1)),
            _ => true,
        }
    }
    let mut spans = Spans::default();
    let value = super::scan::parse_spanned(input, super::MAX_DEPTH_LIMIT, &mut spans).ok()?;
    Some(agree(value, &spans, 0))
}

// The record's tests need its room.
#[cfg(all(test, feature = "walk-index"))]
mod tests {
    use std::string::String;
    use std::vec::Vec;

    use super::{MAX_MEMBERS, MAX_RECORDED_LEN, MAX_SPANS, Spans};
    use crate::json::scan::{parse, parse_spanned};
    use crate::json::{Kind, Value};
    use crate::test_rng::XorShift;

    /// Walks every object and array of `value`, checking that the spanned walk yields exactly the
    /// members of the plain one; returns how many containers it visited and how many objects it
    /// read from the record.
    fn same_walks(value: Value<'_>, spans: &Spans) -> (usize, usize) {
        let sum = |walks: &mut dyn Iterator<Item = (usize, usize)>| walks.fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        match value.kind() {
            Kind::Object => {
                let plain: Vec<_> = value.members().collect();
                let spanned = value.members_spanned(spans);
                let recorded = usize::from(spanned.reads_record());
                let spanned: Vec<_> = spanned.collect();
                assert_eq!(plain, spanned, "{value:?}");
                let (containers, records) = sum(&mut plain.iter().map(|(_, v)| same_walks(*v, spans)));
                (1 + containers, recorded + records)
            }
            Kind::Array => {
                let (containers, records) = sum(&mut value.elements().map(|v| same_walks(v, spans)));
                (1 + containers, records)
            }
            _ => (0, 0),
        }
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn the_record_is_as_large_as_documented() {
        // 64-bit: 4 machine words, 8 bytes of open slots and 4 of last members, 12 containers of
        // 6 bytes, 24 members of 10.
        assert_eq!(size_of::<Spans>(), 360);
    }

    #[test]
    fn the_longest_recorded_document_is_recorded_and_a_longer_one_is_scanned() {
        // `{"a":{"b":"xx…"},"c":[1]}` of exactly `len` bytes.
        let doc = |len: usize| {
            let frame = r#"{"a":{"b":""},"c":[1]}"#.len();
            let mut doc = String::from(r#"{"a":{"b":""#);
            doc.extend(std::iter::repeat_n('x', len - frame));
            doc.push_str(r#""},"c":[1]}"#);
            assert_eq!(doc.len(), len);
            doc
        };
        let mut spans = Spans::default();
        let longest = doc(MAX_RECORDED_LEN);
        let value = parse_spanned(longest.as_bytes(), 64, &mut spans).expect("valid");
        assert_eq!(spans.recorded(), 3);
        assert_eq!(spans.container_len(value.as_bytes()), Some(MAX_RECORDED_LEN));
        assert_eq!(same_walks(value, &spans), (3, 2));
        let longer = doc(MAX_RECORDED_LEN + 1);
        let value = parse_spanned(longer.as_bytes(), 64, &mut spans).expect("valid");
        assert_eq!(spans.recorded(), 0);
        assert_eq!(spans.container_len(value.as_bytes()), None);
        assert_eq!(same_walks(value, &spans), (3, 0));
    }

    #[test]
    fn spanned_walks_yield_what_plain_walks_yield() {
        let docs: [(&[u8], usize); 6] = [
            (
                br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"}]{[\""},"_meta":{"a":{"b":{"c":[1,{}]}}}}}"#,
                5,
            ),
            (br#" { "a" : { } , "b" : [ ] , "c" : { "d" : [ { } , [ ] ] } , "\u0065" : "{" } "#, 4),
            (br#"[{"params":{"x":[1,2,{"y":{}}]}},{"params":{}},[[[[]]]]]"#, 4),
            (br#"{"k":{"a":{},"b":{},"c":{},"d":{},"e":{},"f":{},"g":{},"h":{},"i":{"j":[]}},"l":[{"m":1}]}"#, 11),
            (br#"{"s":"no containers","s":"duplicate"}"#, 1),
            (b"[]", 0),
        ];
        for (doc, records) in docs {
            let mut spans = Spans::default();
            let value = parse_spanned(doc, 64, &mut spans).expect("valid");
            assert_eq!(value, parse(doc, 64).expect("valid"));
            assert!(spans.recorded() <= MAX_SPANS);
            let (containers, read) = same_walks(value, &spans);
            assert!(containers > 0);
            assert_eq!(read, records, "{}", String::from_utf8_lossy(doc));
        }
    }

    #[test]
    fn records_the_first_shallow_containers_and_looks_up_only_their_starts() {
        let doc = br#"{"params":{"arguments":{"deep":{"deeper":{}}}},"after":[1]}"#;
        let mut spans = Spans::default();
        let value = parse_spanned(doc, 64, &mut spans).expect("valid");
        // The root (depth 1), params (2), arguments (3), deep (4), after (2); not `deeper` (5).
        assert_eq!(spans.recorded(), 5);
        assert_eq!(spans.container_len(value.as_bytes()), Some(doc.len()));
        let params = value.get("params").expect("params");
        assert_eq!(spans.container_len(params.as_bytes()), Some(params.as_bytes().len()));
        let arguments = params.get("arguments").expect("arguments");
        assert_eq!(spans.container_len(arguments.as_bytes()), Some(arguments.as_bytes().len()));
        let deeper = arguments.get("deep").and_then(|d| d.get("deeper")).expect("deeper");
        assert_eq!(spans.container_len(deeper.as_bytes()), None);
        assert!(deeper.members_spanned(&spans).next().is_none());
        // A slice starting inside a container is no hit; nor is another document, or a slice too
        // short for the recorded length; nor are members of anything but the recorded object.
        assert_eq!(spans.container_len(&params.as_bytes()[1..]), None);
        assert_eq!(spans.container_len(br#"{"other":{}}"#), None);
        assert_eq!(spans.container_len(&params.as_bytes()[..3]), None);
        assert!(spans.recorded_members(&params.as_bytes()[..3]).is_none());
        assert!(spans.recorded_members(br#"{"params":{}}"#).is_none());
        // Members of the root, params, arguments and deep (deeper's is at depth 5).
        assert_eq!(spans.recorded_member_count(), 5);
        // More containers than slots: the first ones are kept, the rest are scanned.
        let many = br#"{"a":[[],[],[],[],[],[],[],[],[],[],[],[],[],[]]}"#;
        let value = parse_spanned(many, 64, &mut spans).expect("valid");
        assert_eq!(spans.recorded(), MAX_SPANS);
        assert_eq!(same_walks(value, &spans), (16, 1));
    }

    #[test]
    fn an_object_with_members_past_the_record_is_walked_by_scanning() {
        // The root's first member, then MAX_MEMBERS - 1 in `inner`, then one too many in `inner`
        // and one in the root after it: neither object is read from the record.
        let mut doc = String::from(r#"{"first":1,"inner":{"#);
        for i in 0..MAX_MEMBERS {
            doc.push_str(&std::format!(r#""k{i}":{i},"#));
        }
        doc.push_str(r#""last":{"x":[]}},"after":true}"#);
        let mut spans = Spans::default();
        let value = parse_spanned(doc.as_bytes(), 64, &mut spans).expect("valid");
        assert_eq!(spans.recorded_member_count(), MAX_MEMBERS);
        assert!(!value.members_spanned(&spans).reads_record());
        let inner = value.get("inner").expect("inner");
        assert!(!inner.members_spanned(&spans).reads_record());
        // `last`'s object opened after the record was full: its member is not recorded either.
        assert_eq!(same_walks(value, &spans), (4, 0));
        assert_eq!(inner.members_spanned(&spans).count(), MAX_MEMBERS + 1);
        // Exactly MAX_MEMBERS members fit.
        let mut doc = String::from("{");
        for i in 0..MAX_MEMBERS {
            doc.push_str(&std::format!(r#"{}"k{i}" : [{i}]"#, if i == 0 { "" } else { "," }));
        }
        doc.push('}');
        let value = parse_spanned(doc.as_bytes(), 64, &mut spans).expect("valid");
        assert_eq!(same_walks(value, &spans), (1 + MAX_MEMBERS, 1));
    }

    /// A random JSON value: containers up to 7 deep, names and strings with escapes, whitespace.
    fn random_value(rng: &mut XorShift, depth: usize, out: &mut String) {
        let space = |rng: &mut XorShift, out: &mut String| {
            for _ in 0..rng.below(3).saturating_sub(1) {
                out.push([' ', '\n', '\t', '\r'][rng.below(4)]);
            }
        };
        let string = |rng: &mut XorShift, out: &mut String| {
            out.push('"');
            for _ in 0..rng.below(6) {
                out.push_str(["a", "k", "\\\"", "\\u0061", "é", "{", "]", "\\\\", ","][rng.below(9)]);
            }
            out.push('"');
        };
        space(rng, out);
        match if depth >= 7 { 2 + rng.below(3) } else { rng.below(5) } {
            kind @ (0 | 1) => {
                let object = kind == 0;
                out.push(if object { '{' } else { '[' });
                for i in 0..rng.below(6) {
                    if i > 0 {
                        out.push(',');
                    }
                    if object {
                        space(rng, out);
                        string(rng, out);
                        space(rng, out);
                        out.push(':');
                    }
                    random_value(rng, depth + 1, out);
                }
                space(rng, out);
                out.push(if object { '}' } else { ']' });
            }
            2 => string(rng, out),
            3 => out.push_str(["0", "-1.5e3", "12"][rng.below(3)]),
            _ => out.push_str(["true", "false", "null"][rng.below(3)]),
        }
        space(rng, out);
    }

    #[test]
    fn recorded_walks_agree_with_scanning_on_random_documents() {
        let mut rng = XorShift::new(0x5a11);
        let mut spans = Spans::default();
        let (mut objects, mut read) = (0, 0);
        for _ in 0..3_000 {
            let mut doc = String::new();
            random_value(&mut rng, 0, &mut doc);
            let value = parse_spanned(doc.as_bytes(), 64, &mut spans).expect(&doc);
            let (containers, records) = same_walks(value, &spans);
            objects += containers;
            read += records;
        }
        // Most shallow objects fit the record; the test exercises both walks.
        assert!(read > 1_000 && objects > 2 * read, "{read} of {objects}");
    }
}
