//! Fuzzes `routelens_fuzz_bodies::split_index` (see its doc).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| routelens_fuzz_bodies::split_index(data));
