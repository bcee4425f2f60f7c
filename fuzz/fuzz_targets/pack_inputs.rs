//! Fuzzes `routelens_fuzz_bodies::pack_inputs` (see its doc).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| routelens_fuzz_bodies::pack_inputs(data));
