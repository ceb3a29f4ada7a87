//! Text for `format_args!` that links none of `core`'s padding. A `{}` of a `&str` or a `bool`
//! goes through `Formatter::pad`, which honours width and precision: about 650 B of flash in a
//! firmware that never asks for either. The engine shows the strings in its messages through
//! [`Plain`], and a firmware can do the same (integers: [`Decimal`](crate::num::Decimal)).

use core::fmt;

/// A string shown as it is: `format_args!("Unknown tool: {}", Plain(name))`. Width, fill and
/// precision do not apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plain<'a>(pub &'a str);

impl Plain<'static> {
    /// `true` or `false`, as a `bool`'s `Display` shows it.
    pub const fn bool(value: bool) -> Self {
        Plain(if value { "true" } else { "false" })
    }
}

impl fmt::Display for Plain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::format;

    #[test]
    fn shows_the_text_and_ignores_width() {
        assert_eq!(format!("{}|{:>4}|{}", Plain("a\"b"), Plain("x"), Plain::bool(false)), "a\"b|x|false");
        assert_eq!(format!("{}", Plain::bool(true)), "true");
    }
}
