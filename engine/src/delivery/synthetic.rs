//! The context stage's benchmark input, shared by the criterion bench (`engine/benches/pack.rs`)
//! and the app's in-browser measurement (the Context view's benchmark panel), so both time the
//! same work: an issue and 16 deterministic files of 2,000-4,000 lines of Python-like text.

/// The benchmark's issue text.
pub const PACK_BENCH_ISSUE: &str =
    "TypeError in the session middleware when the cache backend returns None\n\n\
    After upgrading, `SessionMiddleware.process_response` raises TypeError because \
    `cache.get(session_key)` returns None for expired keys and `decode_payload` assumes bytes. \
    The signing module and the serializer both call into get_session_store; see \
    sessions/backends/cache.py and middleware.py. Steps: set SESSION_ENGINE to the cache \
    backend, expire a key, reload the page.";

/// The words the files are made of.
pub const PACK_BENCH_VOCABULARY: &[&str] = &[
    "self",
    "session",
    "cache",
    "key",
    "value",
    "return",
    "None",
    "if",
    "else",
    "def",
    "class",
    "import",
    "from",
    "request",
    "response",
    "payload",
    "decode",
    "encode",
    "bytes",
    "str",
    "raise",
    "TypeError",
    "ValueError",
    "settings",
    "backend",
    "store",
    "get",
    "set",
    "delete",
    "expire",
    "timeout",
    "data",
    "items",
    "for",
    "in",
    "not",
    "and",
    "or",
    "is",
    "True",
    "False",
    "middleware",
    "process",
    "signing",
    "serializer",
    "loads",
    "dumps",
    "max_age",
    "salt",
    "modified",
    "accessed",
    "cookie",
    "path",
    "domain",
    "secure",
    "httponly",
];

/// 16 files of 2,000–4,000 lines of Python-like text (a fixed xorshift sequence).
pub fn pack_bench_corpus() -> Vec<(String, String)> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    (0..16)
        .map(|f| {
            let lines = 2_000 + next(2_001);
            let mut text = String::new();
            for _ in 0..lines {
                text.push_str(&"    ".repeat(next(4) as usize));
                let words = next(10);
                for w in 0..words {
                    text.push_str(
                        PACK_BENCH_VOCABULARY[next(PACK_BENCH_VOCABULARY.len() as u64) as usize],
                    );
                    text.push_str(match next(6) {
                        0 => "(",
                        1 => ", ",
                        2 => ".",
                        3 if w + 1 < words => " = ",
                        _ => " ",
                    });
                }
                text.push('\n');
            }
            (format!("django/contrib/sessions/file_{f}.py"), text)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_files_of_two_to_four_thousand_lines() {
        let files = pack_bench_corpus();
        assert_eq!(files.len(), 16);
        for (_, text) in &files {
            let lines = text.lines().count();
            assert!((2_000..=4_000).contains(&lines), "{lines}");
        }
        assert_eq!(files, pack_bench_corpus());
    }
}
