#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_sansio_fuzz::client::run(data));
