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
    // Four digits at a time while the value needs 64 bits, then 32-bit arithmetic.
    while n > u64::from(u32::MAX) {
        let (quotient, low) = div_rem(n, 10_000);
        let mut low = u32::from(low);
        for _ in 0..4 {
            push(low % 10);
            low /= 10;
        }
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
/// Width, fill and alignment apply as for an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal(pub u64);

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        pad(f, true, self.0)
    }
}

/// An `i64` shown in decimal as [`Decimal`] shows a `u64`, with a `-` before a negative value (so
/// that a firmware's logs of signed values, a JSON-RPC error code say, link no integer formatting
/// of `core`'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignedDecimal(pub i64);

impl fmt::Display for SignedDecimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        pad(f, self.0 >= 0, self.0.unsigned_abs())
    }
}

/// Writes `magnitude` (negative unless `non_negative`) as an integer's `Display` does: width, fill,
/// alignment, `+` and `0` as the formatter says. Written here rather than through
/// `Formatter::pad_integral`, which links about 480 B of flash into a firmware.
fn pad(f: &mut fmt::Formatter<'_>, non_negative: bool, magnitude: u64) -> fmt::Result {
    let mut text = [0u8; U64_DIGITS];
    let start = digits(magnitude, &mut text);
    // Digits are ASCII.
    let digits = core::str::from_utf8(text.get(start..).unwrap_or_default()).unwrap_or_default();
    let sign = match (non_negative, f.sign_plus()) {
        (false, _) => "-",
        (true, true) => "+",
        (true, false) => "",
    };
    let padding = f.width().unwrap_or(0).saturating_sub(sign.len() + digits.len());
    // `{:0N}`: zeros between the sign and the digits, whatever the fill and alignment.
    let (zeros, before) = match f.align() {
        _ if f.sign_aware_zero_pad() => (padding, 0),
        Some(fmt::Alignment::Left) => (0, 0),
        Some(fmt::Alignment::Center) => (0, padding / 2),
        Some(fmt::Alignment::Right) | None => (0, padding),
    };
    let (fill, after) = (f.fill(), padding - zeros - before);
    repeat(f, fill, before)?;
    f.write_str(sign)?;
    repeat(f, '0', zeros)?;
    f.write_str(digits)?;
    repeat(f, fill, after)
}

fn repeat(f: &mut fmt::Formatter<'_>, c: char, count: usize) -> fmt::Result {
    (0..count).try_for_each(|_| fmt::Write::write_char(f, c))
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
    fn digits_and_padding() {
        for n in [0, 5, 10, 4_294_967_295, 4_294_967_296, 10_000_000_000_000, u64::MAX] {
            let mut text = [0u8; U64_DIGITS];
            let start = digits(n, &mut text);
            assert_eq!(&text[start..], n.to_string().as_bytes());
        }
        assert_eq!(format!("{:>6}|{:<4}|{:04}", Decimal(42), Decimal(7), Decimal(3)), "    42|7   |0003");
        for n in [0u64, 7, 12_345, u64::MAX] {
            let d = Decimal(n);
            assert_eq!(
                format!("{d:*^9}|{d:_<7}|{d:>3}|{d:+}|{d:+06}|{d:#>05}|{d:<05}"),
                format!("{n:*^9}|{n:_<7}|{n:>3}|{n:+}|{n:+06}|{n:#>05}|{n:<05}")
            );
        }
    }

    #[test]
    fn signed_values_show_as_integers_do() {
        for n in [0, 7, -7, -32_601, i64::from(i32::MIN), i64::MAX, i64::MIN] {
            assert_eq!(SignedDecimal(n).to_string(), n.to_string());
            assert_eq!(
                format!("{:06}|{:>5}|{:+}", SignedDecimal(n), SignedDecimal(n), SignedDecimal(n)),
                format!("{n:06}|{n:>5}|{n:+}")
            );
            let d = SignedDecimal(n);
            assert_eq!(
                format!("{d:*^9}|{d:_<8}|{d:+07}|{d:^+8}|{d:<06}"),
                format!("{n:*^9}|{n:_<8}|{n:+07}|{n:^+8}|{n:<06}")
            );
        }
    }
}
