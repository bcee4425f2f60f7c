//! Fuzzes `routelens_fuzz_bodies::jsonl` (see its doc).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| routelens_fuzz_bodies::jsonl(data));
