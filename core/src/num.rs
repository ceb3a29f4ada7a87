//! Decimal text of 64-bit integers with 32-bit division only. A Cortex-M divides 32-bit integers
//! in hardware but 64-bit ones in software: any `u64 / u64`, `u64 % u64` or `{}` of a `u64` pulls
//! about 1.3 KiB of compiler-builtins code into a firmware. The engine writes its integers through
//! this module, and a firmware can show its own with [`Decimal`] and [`div_rem`].

use core::fmt;

/// Longest decimal text of a `u64` (`18446744073709551615`).
pub const U64_DIGITS: usize = 20;

/// `(n / d, n % d)` for a divisor below 2^16 (a divisor of 0 is taken as 1). On 32-bit targets by
/// long division in 16-bit digits: four 32-bit divisions.
#[inline]
pub const fn div_rem(n: u64, d: u16) -> (u64, u16) {
    let d = if d == 0 { 1 } else { d };
    if cfg!(target_pointer_width = "64") { (n / d as u64, (n % d as u64) as u16) } else { long_div_rem(n, d) }
}

/// [`div_rem`] with 32-bit divisions (`d > 0`), over the dividend's four 16-bit digits, most
/// significant first (taken by constant shifts: no call to a 64-bit shift routine). Out of line:
/// one copy in flash for every caller (docs/firmware.md, "Flash: code for what a build serves").
#[inline(never)]
const fn long_div_rem(n: u64, d: u16) -> (u64, u16) {
    let d = d as u32;
    let digits = [(n >> 48) as u32, (n >> 32) as u32 & 0xffff, (n >> 16) as u32 & 0xffff, n as u32 & 0xffff];
    let (mut quotient, mut remainder) = (0u64, 0u32);
    let mut i = 0;
    while i < digits.len() {
        // `remainder < d < 2^16`, so the partial dividend fits 32 bits.
        let partial = (remainder << 16) | digits[i];
        quotient = (quotient << 16) | (partial / d) as u64;
        remainder = partial % d;
        i += 1;
    }
    (quotient, remainder as u16)
}

/// Writes the decimal digits of `n` right-aligned into `text` and returns where they start.
pub fn digits(mut n: u64, text: &mut [u8; U64_DIGITS]) -> usize {
    let mut start = text.len();
    let mut push = |digit: u32| {
        start = start.saturating_sub(1);
        if let Some(slot) = text.get_mut(start) {
            *slot = b'0' + digit as u8;
        }
    };
    // A digit at a time by long division while the value needs 64 bits, then 32-bit arithmetic.
    while n > u64::from(u32::MAX) {
        let (quotient, digit) = div_rem(n, 10);
        push(u32::from(digit));
        n = quotient;
    }
    let mut small = n as u32;
    loop {
        push(small % 10);
        small /= 10;
        if small == 0 {
            return start;
        }
    }
}

/// A `u64` shown in decimal without 64-bit division: `format_args!("up {} ms", Decimal(ms))`.
/// The digits are written as they are: width, fill, alignment and `+` do not apply (as for
/// [`Plain`](crate::text::Plain)), so no padding code is linked (about 440 B of flash in a
/// firmware). [`ZeroPadded`] writes a fixed number of digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal(pub u64);

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        show(f, false, self.0, 0)
    }
}

/// An `i64` shown in decimal as [`Decimal`] shows a `u64`, with a `-` before a negative value (so
/// that a firmware's logs of signed values, a JSON-RPC error code say, link no integer formatting
/// of `core`'s). Width, fill, alignment and `+` do not apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignedDecimal(pub i64);

impl fmt::Display for SignedDecimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        show(f, self.0 < 0, self.0.unsigned_abs(), 0)
    }
}

/// A `u64` shown in decimal with leading zeros to at least `.1` digits (at most [`U64_DIGITS`]), as
/// `{:03}` shows an integer: `format_args!("{}.{} s", Decimal(s), ZeroPadded(ms, 3))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZeroPadded(pub u64, pub usize);

impl fmt::Display for ZeroPadded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        show(f, false, self.0, self.1)
    }
}

/// Writes `magnitude` in decimal, with a `-` before it if `negative` and zeros before its digits
/// up to `width` digits.
fn show(f: &mut fmt::Formatter<'_>, negative: bool, magnitude: u64, width: usize) -> fmt::Result {
    let mut text = [b'0'; U64_DIGITS];
    let start = digits(magnitude, &mut text).min(U64_DIGITS.saturating_sub(width));
    if negative {
        f.write_str("-")?;
    }
    // Digits are ASCII.
    f.write_str(core::str::from_utf8(text.get(start..).unwrap_or_default()).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::format;
    use std::string::ToString;

    #[test]
    fn division_matches_the_native_one() {
        let mut rng = crate::test_rng::XorShift::new(64);
        let mut values = std::vec![0, 1, 9_999, 10_000, u64::from(u32::MAX), u64::from(u32::MAX) + 1, u64::MAX];
        for _ in 0..5_000 {
            let bits = rng.next();
            values.push(bits >> (bits % 64));
        }
        for n in values {
            for d in [1u16, 3, 7, 10, 1000, 10_000, 65_535] {
                let expected = (n / u64::from(d), (n % u64::from(d)) as u16);
                assert_eq!(div_rem(n, d), expected, "{n} / {d}");
                assert_eq!(long_div_rem(n, d), expected, "{n} / {d}");
            }
            assert_eq!(Decimal(n).to_string(), n.to_string());
        }
        assert_eq!(div_rem(7, 0), (7, 0), "0 is taken as 1");
    }

    #[test]
    fn digits_without_padding() {
        for n in [0, 5, 10, 4_294_967_295, 4_294_967_296, 10_000_000_000_000, u64::MAX] {
            let mut text = [0u8; U64_DIGITS];
            let start = digits(n, &mut text);
            assert_eq!(&text[start..], n.to_string().as_bytes());
        }
        // Width, fill, alignment and `+` do not apply.
        assert_eq!(format!("{:>6}|{:<4}|{:04}|{:+}", Decimal(42), Decimal(7), Decimal(3), Decimal(9)), "42|7|3|9");
    }

    #[test]
    fn zero_padded_shows_as_an_integer_with_a_zero_width() {
        for n in [0u64, 7, 12_345, u64::MAX] {
            for width in [0, 1, 3, 6, 20] {
                assert_eq!(ZeroPadded(n, width).to_string(), format!("{n:0width$}"), "{n} {width}");
            }
            assert_eq!(ZeroPadded(n, 99).to_string(), format!("{n:020}"), "at most 20 digits");
        }
    }

    #[test]
    fn signed_values_show_as_integers_do() {
        for n in [0, 7, -7, -32_601, i64::from(i32::MIN), i64::MAX, i64::MIN] {
            assert_eq!(SignedDecimal(n).to_string(), n.to_string());
            assert_eq!(format!("{:06}|{:+}", SignedDecimal(n), SignedDecimal(n)), format!("{n}|{n}"));
        }
    }
}
