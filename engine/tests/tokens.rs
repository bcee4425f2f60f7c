//! The lazily loaded cl100k_base counter ([`Cl100k::from_rank_table`], fed the rank table that
//! ships in the tiktoken-rs crate's sources) counts exactly as tiktoken-rs's embedded
//! `cl100k_base()` encoder, special-token text counted as ordinary text.

mod rank_table;

use routelens_engine::corpus::tokens::Cl100k;

/// Texts covering the pattern's branches: contractions, letters, digit groups, punctuation
/// runs with newlines, trailing whitespace, CRLF, non-ASCII scripts, emoji, special-token text,
/// and a rendered block.
const TEXTS: &[&str] = &[
    "",
    "hello world",
    "tiktoken is great!",
    "I'm sure they'll've DONE it; we're here.",
    "1234567 12 3.14159 0x1F",
    "fn main() {\n    println!(\"{}\", a[0]);\n}\n",
    "trailing spaces   \n\n\t\n   ",
    "windows\r\nline\r\nends\r\n",
    "Übergrößenträger naïve café — 日本語のテキスト 🚀🔥 مرحبا",
    "<|endoftext|><|fim_prefix|><|fim_middle|><|fim_suffix|><|endofprompt|>",
    "text <|endoftext|> more",
    "\n===== src/transformers/models/idefics/modeling_idefics.py =====\n01463:     def forward(self, x):\n01464:         return x\n",
    "page\x0cbreak\u{2028}line\u{85}next",
];

#[test]
fn rank_table_counter_matches_the_embedded_encoder() {
    let Some(bytes) = rank_table::read_rank_table() else {
        return;
    };
    let ours = Cl100k::from_rank_table(&bytes).unwrap();
    let embedded = tiktoken_rs::cl100k_base().unwrap();
    for text in TEXTS {
        assert_eq!(
            ours.count(text).unwrap(),
            embedded.encode_ordinary(text).len(),
            "{text:?}"
        );
    }
    // Known counts.
    assert_eq!(ours.count("hello world").unwrap(), 2);
    assert_eq!(ours.count("tiktoken is great!").unwrap(), 6);
    // `<|endoftext|>` is several ordinary tokens, not the special token 100257.
    assert_eq!(
        ours.count("<|endoftext|>").unwrap(),
        embedded.encode_ordinary("<|endoftext|>").len()
    );
    assert!(ours.count("<|endoftext|>").unwrap() > 1);
    assert_eq!(
        embedded.encode_with_special_tokens("<|endoftext|>").len(),
        1
    );
    // A longer mixed text.
    let long: String = TEXTS.concat().repeat(50);
    assert_eq!(
        ours.count(&long).unwrap(),
        embedded.encode_ordinary(&long).len()
    );
}

#[test]
fn a_damaged_rank_table_is_refused() {
    let Some(mut bytes) = rank_table::read_rank_table() else {
        return;
    };
    bytes[10] ^= 1;
    let error = Cl100k::from_rank_table(&bytes).unwrap_err().to_string();
    assert!(
        error.starts_with("cl100k_base.tiktoken: SHA-256 mismatch"),
        "{error}"
    );
}

#[test]
fn a_regex_failure_is_an_error_not_a_panic() {
    let Some(bytes) = rank_table::read_rank_table() else {
        return;
    };
    let ours = Cl100k::from_rank_table(&bytes).unwrap();
    // A million spaces before a letter exceed fancy-regex's backtracking limit; tiktoken-rs's
    // `encode_ordinary` would panic here.
    let text = " ".repeat(1_000_000) + "x";
    let error = ours.count(&text).unwrap_err().to_string();
    assert!(error.starts_with("text: cannot count tokens:"), "{error}");
    assert!(error.contains("backtracking"), "{error}");
}
