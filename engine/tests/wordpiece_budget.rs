//! The chunk budget in the embedder's own word pieces: under the `minilm` counter every chunk's
//! `tokens` is exactly the word-piece count of its `embed_text` (prefix and lines counted apart
//! and summed, checked here against the tokenizer run over the whole text), and every chunk
//! fits the default 254 unless it is a single line that alone does not. The tokenizer comes
//! from the model folder scripts/setup.sh installs; a missing one fails, naming that step.

use proptest::prelude::*;
use routelens_engine::corpus::code_chunks::{chunk_file_all, ChunkConfig, Chunker, CodeChunk};
use routelens_engine::corpus::tokens::TokenCounter;
use routelens_engine::corpus::wordpiece::WordPieces;
use routelens_engine::retrieval::dense::pin::ModelPin;
use routelens_engine::retrieval::lexical::chunk_index::chunk_texts;

fn counter() -> WordPieces {
    let home = std::env::var_os("ROUTELENS_MODELS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var_os("HOME").unwrap())
                .join(".cache/routelens/models")
        });
    let path = home
        .join(ModelPin::minilm().install_as)
        .join("tokenizer.json");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        panic!("{}: {e}; install the model with `python3 scripts/install-model.py` (scripts/setup.sh does)", path.display())
    });
    ModelPin::minilm().check("tokenizer.json", &bytes).unwrap();
    WordPieces::from_tokenizer_json(&bytes).unwrap()
}

const CHUNKERS: [Chunker; 3] = [
    Chunker::Structural,
    Chunker::StructuralUnmerged,
    Chunker::Window,
];

/// Checks every chunk of `text` under the three chunkers; returns how many there were.
fn check(path: &str, text: &str, counter: &mut WordPieces) -> Result<usize, TestCaseError> {
    let cut = chunk_file_all(path, text, &CHUNKERS, ChunkConfig::default(), counter).unwrap();
    let mut seen = 0;
    for file in cut {
        let chunks: Vec<CodeChunk> = file.chunks;
        let texts = chunk_texts(&chunks, |_| text);
        for (chunk, embed_text) in chunks.iter().zip(texts) {
            let pieces = counter.count_tokens(&embed_text).unwrap();
            prop_assert_eq!(pieces, chunk.tokens as usize, "{:?}", chunk);
            prop_assert!(
                pieces <= 254 || chunk.start_line == chunk.end_line,
                "{} pieces: {:?}",
                pieces,
                chunk
            );
            seen += 1;
        }
    }
    Ok(seen)
}

/// A generated Python file: imports, functions, classes with a field and methods, comments in
/// several scripts, and accented identifiers.
fn python_file(blocks: &[(u8, u8)]) -> String {
    let mut text = String::new();
    for (at, &(block, size)) in blocks.iter().enumerate() {
        let body: String = (0..size)
            .map(|i| {
                format!("    größe_{i} = compute_{at}(value_{i}, {i}) + offset  # café №{i}\n")
            })
            .collect();
        match block % 5 {
            0 => text += &format!("import module_{at}\n"),
            1 => text += &format!("def function_{at}(value):\n{body}    return value\n\n"),
            2 => {
                text +=
                    &format!("class Class{at}:\n    \"\"\"Doc 文档.\"\"\"\n    field = {at}\n\n");
                for m in 0..(size % 4 + 1) {
                    text += &format!("    def method_{m}(self):\n    {body}        return {m}\n\n");
                }
            }
            3 => text += &format!("# комментарий {at}\n"),
            _ => text += &format!("TOTAL_{at} = {size}\n\n"),
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_chunk_is_its_embed_texts_exact_count_and_fits(
        blocks in prop::collection::vec((0u8..5, 0u8..30), 1..14),
    ) {
        let mut counter = counter();
        let text = python_file(&blocks);
        prop_assert!(check("pkg/gen.py", &text, &mut counter)? > 0);
    }
}

#[test]
fn this_repositorys_own_sources_fit() {
    let mut counter = counter();
    let mut chunks = 0;
    for path in [
        "src/corpus/code_chunks/structural.rs",
        "src/corpus/code_chunks/outline.rs",
        "src/retrieval/lexical/chunkings.rs",
        "../README.md",
        "../scripts/install-model.py",
    ] {
        let text = std::fs::read_to_string(path).unwrap();
        chunks += check(path, &text, &mut counter).unwrap();
    }
    assert!(chunks > 20, "{chunks}");
}
