//! `#[tools]` refuses what it cannot make a tool of, with errors that point at the user's code.

#[test]
fn wrong_signatures_are_compile_errors_at_the_users_code() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
