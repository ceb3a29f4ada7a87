//! RFC 6570 URI templates, as resource templates use them: matching a URI against a template and
//! reading the variables out of it, without allocating.
//!
//! Supported expressions: simple string expansion `{name}` (level 1: the value holds no `/`, `?`
//! or `#`), reserved expansion `{+name}` (level 2: the value may hold them, as in `file:///{+path}`),
//! and several variables in one expression separated by commas only where a literal lies between
//! them. Other operators (`{#…}`, `{/…}`, `{?…}`, …) make the template unmatched by any URI.
//! Values are returned as they appear in the URI (still percent-encoded).

/// Most variables a template may hold for matching.
pub const MAX_TEMPLATE_VARIABLES: usize = 8;

/// A URI template (RFC 6570, levels 1 and 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UriTemplate<'t>(pub &'t str);

/// The variables read from a URI that matched a template, in template order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variables<'t, 'u> {
    pairs: [(&'t str, &'u str); MAX_TEMPLATE_VARIABLES],
    len: usize,
}

impl<'t, 'u> Variables<'t, 'u> {
    const EMPTY: Variables<'static, 'static> = Variables { pairs: [("", ""); MAX_TEMPLATE_VARIABLES], len: 0 };

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&'u str> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// Every `(name, value)` pair.
    pub fn iter(&self) -> impl Iterator<Item = (&'t str, &'u str)> + '_ {
        self.pairs[..self.len].iter().copied()
    }

    /// How many variables matched.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the template had no variables.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// One part of a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part<'t> {
    Literal(&'t str),
    Variable { name: &'t str, reserved: bool },
}

/// The parts of a template, in order; `Err` for a syntax this module does not match.
struct Parts<'t> {
    rest: &'t str,
    /// Variables still to hand out from a `{a,b}` expression.
    pending: Option<(&'t str, bool)>,
}

impl<'t> Iterator for Parts<'t> {
    type Item = Result<Part<'t>, ()>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some((names, reserved)) = self.pending.take() {
            return Some(self.variable(names, reserved));
        }
        if self.rest.is_empty() {
            return None;
        }
        // Braces are ASCII, so every index below is a character boundary; `get` keeps even that
        // from needing a proof (no panic path).
        match self.rest.bytes().position(|b| b == b'{') {
            Some(0) => {
                let Some(end) = self.rest.bytes().position(|b| b == b'}') else { return Some(Err(())) };
                let body = self.rest.get(1..end).unwrap_or("");
                self.rest = self.rest.get(end + 1..).unwrap_or("");
                let (names, reserved) = match body.strip_prefix("+") {
                    Some(names) => (names, true),
                    None => (body, false),
                };
                Some(self.variable(names, reserved))
            }
            Some(start) => {
                let literal = self.rest.get(..start).unwrap_or("");
                self.rest = self.rest.get(start..).unwrap_or("");
                Some(literal_part(literal))
            }
            None => {
                let literal = self.rest;
                self.rest = "";
                Some(literal_part(literal))
            }
        }
    }
}

fn literal_part(literal: &str) -> Result<Part<'_>, ()> {
    if literal.bytes().any(|b| b == b'}') { Err(()) } else { Ok(Part::Literal(literal)) }
}

impl<'t> Parts<'t> {
    fn variable(&mut self, names: &'t str, reserved: bool) -> Result<Part<'t>, ()> {
        // A byte search (`split_once` inlines core's `memchr` here: 114 B of Thumb-2 code).
        let (name, more) = match names.bytes().position(|b| b == b',') {
            Some(comma) => (names.get(..comma).unwrap_or(""), names.get(comma + 1..)),
            None => (names, None),
        };
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.') {
            return Err(());
        }
        self.pending = more.map(|more| (more, reserved));
        Ok(Part::Variable { name, reserved })
    }
}

impl<'t> UriTemplate<'t> {
    fn parts(&self) -> Parts<'t> {
        Parts { rest: self.0, pending: None }
    }

    /// Whether the template is one this module can match (levels 1 and 2, at most
    /// [`MAX_TEMPLATE_VARIABLES`] variables, each followed by a literal or the end).
    pub fn is_supported(&self) -> bool {
        let mut variables = 0;
        let mut after_variable = false;
        for part in self.parts() {
            match part {
                Err(()) => return false,
                Ok(Part::Variable { .. }) if after_variable => return false,
                Ok(Part::Variable { .. }) => {
                    variables += 1;
                    after_variable = true;
                }
                Ok(Part::Literal(_)) => after_variable = false,
            }
        }
        variables <= MAX_TEMPLATE_VARIABLES
    }

    /// The names of the template's variables, in order.
    pub fn variable_names(&self) -> impl Iterator<Item = &'t str> {
        self.parts().filter_map(|part| match part {
            Ok(Part::Variable { name, .. }) => Some(name),
            _ => None,
        })
    }

    /// Matches `uri` against the template: the variables' values if it matches. Each value is
    /// non-empty; a simple variable takes the shortest value up to the next literal, a reserved one
    /// the longest.
    pub fn matches<'u>(&self, uri: &'u str) -> Option<Variables<'t, 'u>> {
        let mut vars = Variables::EMPTY;
        let matched = self.walk(uri, &mut |name, value| match vars.pairs.get_mut(vars.len) {
            Some(slot) => {
                *slot = (name, value);
                vars.len += 1;
                true
            }
            None => false,
        });
        matched.then_some(vars)
    }

    /// The value of variable `name` if `uri` matches the template (as [`matches`](Self::matches)
    /// finds it, without keeping the others).
    pub fn variable<'u>(&self, uri: &'u str, name: &str) -> Option<&'u str> {
        let mut found = None;
        let matched = self.walk(uri, &mut |variable, value| {
            if variable == name && found.is_none() {
                found = Some(value);
            }
            true
        });
        found.filter(|_| matched)
    }

    /// Whether `uri` matches the template (as [`matches`](Self::matches) would).
    pub fn is_match(&self, uri: &str) -> bool {
        self.walk(uri, &mut |_, _| true)
    }

    /// Matches `uri`, handing each variable's name and value to `each` in order (`false` from it
    /// stops the match); whether it matched. Not generic over `each`: one copy in flash for every
    /// kind of match (see docs/firmware.md, "Flash: code for what a build serves").
    fn walk<'u>(&self, uri: &'u str, each: &mut dyn FnMut(&'t str, &'u str) -> bool) -> bool {
        if !self.is_supported() {
            return false;
        }
        let mut rest = uri;
        // Each part with the one after it (a variable's value ends where that literal starts);
        // `is_supported` saw no malformed part.
        let mut parts = self.parts();
        let mut next = parts.next();
        while let Some(Ok(part)) = next {
            next = parts.next();
            match part {
                Part::Literal(literal) => match rest.strip_prefix(literal) {
                    Some(after) => rest = after,
                    None => return false,
                },
                Part::Variable { name, reserved } => {
                    let value = match next {
                        None => Some(rest),
                        Some(Ok(Part::Literal(after))) => find(rest, after, reserved).and_then(|end| rest.get(..end)),
                        Some(Ok(Part::Variable { .. }) | Err(())) => None,
                    };
                    let Some(value) = value else { return false };
                    if value.is_empty() || (!reserved && value.bytes().any(|b| matches!(b, b'/' | b'?' | b'#'))) {
                        return false;
                    }
                    if !each(name, value) {
                        return false;
                    }
                    rest = rest.get(value.len()..).unwrap_or_default();
                }
            }
        }
        rest.is_empty()
    }
}

/// The first (or with `last`, the last) position of `needle` in `haystack`: a plain byte search,
/// as templates and URIs are short.
fn find(haystack: &str, needle: &str, last: bool) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    let mut hits = (0..=h.len().checked_sub(n.len())?).filter(|&i| h.get(i..i + n.len()) == Some(n));
    if last { hits.next_back() } else { hits.next() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs<'t, 'u>(v: &Variables<'t, 'u>) -> std::vec::Vec<(&'t str, &'u str)> {
        v.iter().collect()
    }

    #[test]
    fn simple_variables_match_one_segment() {
        let t = UriTemplate("test://template/{id}/data");
        assert_eq!(pairs(&t.matches("test://template/42/data").unwrap()), [("id", "42")]);
        assert_eq!(t.matches("test://template//data"), None);
        assert_eq!(t.matches("test://template/a/b/data"), None);
        assert_eq!(t.matches("test://template/42/data/more"), None);
        assert_eq!(t.matches("test://other/42/data"), None);
        let d = UriTemplate("device://sensor/{name}");
        assert_eq!(d.matches("device://sensor/temperature").unwrap().get("name"), Some("temperature"));
        assert_eq!(d.matches("device://sensor/a?b"), None);
    }

    #[test]
    fn one_variable_is_found_as_all_of_them_are() {
        let t = UriTemplate("repo://{owner}/{+path}.md");
        for uri in ["repo://me/docs/a.b/readme.md", "repo://me/x.md", "repo://me/.md", "repo:///x.md", "other"] {
            let all = t.matches(uri);
            assert_eq!(t.is_match(uri), all.is_some(), "{uri}");
            for name in ["owner", "path", "nothing"] {
                assert_eq!(t.variable(uri, name), all.as_ref().and_then(|v| v.get(name)), "{uri} {name}");
            }
        }
        assert_eq!(t.variable("repo://me/docs/readme.md", "path"), Some("docs/readme"));
        assert_eq!(UriTemplate("a{x}{y}").variable("a1", "x"), None, "unsupported");
    }

    #[test]
    fn reserved_variables_take_slashes() {
        let t = UriTemplate("file:///{+path}");
        assert_eq!(t.matches("file:///etc/hosts").unwrap().get("path"), Some("etc/hosts"));
        let t = UriTemplate("repo://{owner}/{+path}.md");
        let v = t.matches("repo://me/docs/a.b/readme.md").unwrap();
        assert_eq!(pairs(&v), [("owner", "me"), ("path", "docs/a.b/readme")]);
        assert_eq!((v.len(), v.is_empty()), (2, false));
    }

    #[test]
    fn variable_names_may_hold_underscores_and_dots() {
        let t = UriTemplate("db://{table_name}/{v.1}");
        assert!(t.is_supported());
        assert_eq!(pairs(&t.matches("db://users/7").unwrap()), [("table_name", "users"), ("v.1", "7")]);
        let none = UriTemplate("plain://uri").matches("plain://uri").unwrap();
        assert_eq!((none.len(), none.is_empty()), (0, true));
    }

    #[test]
    fn unsupported_templates_match_nothing() {
        for t in ["a{x}{y}", "a{#x}", "a{/x}", "a{?q}", "a{x", "a}b", "a{}", "a{x,y}"] {
            assert!(!UriTemplate(t).is_supported(), "{t}");
            assert_eq!(UriTemplate(t).matches("a1"), None, "{t}");
        }
        let many = "{a}.{b}.{c}.{d}.{e}.{f}.{g}.{h}.{i}";
        assert!(!UriTemplate(many).is_supported());
        assert!(UriTemplate("{a}.{b}.{c}.{d}.{e}.{f}.{g}.{h}").is_supported());
        assert_eq!(UriTemplate("plain://uri").matches("plain://uri").map(|v| v.len()), Some(0));
        assert_eq!(UriTemplate("x/{a}").variable_names().collect::<std::vec::Vec<_>>(), ["a"]);
    }
}
