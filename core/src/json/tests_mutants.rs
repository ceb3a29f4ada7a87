//! Tests added for mutants `cargo mutants` found surviving in `json/` (see docs/testing.md, "Mutation testing"):
//! each asserts a behaviour no other test pinned down.

use super::scan::is_json_number;

// ----- scan.rs -------------------------------------------------------------------------------------------

#[test]
fn is_json_number_accepts_exactly_one_whole_number() {
    for number in [&b"0"[..], b"-0", b"7", b"-12.5e+3", b"1E9", b"0.000001", b"123456789012345678901234567890"] {
        assert!(is_json_number(number), "{number:?}");
    }
    // A number followed by more bytes, a number cut short, and things that are not numbers at all.
    for not_number in [&b""[..], b"-", b"1x", b"1 ", b"1.", b"1e", b"01", b"+1", b".5", b"x", b"NaN", b"inf", b"\"1\""]
    {
        assert!(!is_json_number(not_number), "{not_number:?}");
    }
}
