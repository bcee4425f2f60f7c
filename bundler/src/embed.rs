//! `routelens embed`: texts to all-MiniLM-L6-v2 vectors with the engine's embedder, from the
//! model folder scripts/setup.sh installs (or `--model DIR`), each file checked against its pin.

use std::io::Write;
use std::path::Path;

use routelens_engine::retrieval::dense::pin::ModelPin;
use serde::Serialize;

use crate::cli::{EmbedArgs, OutputFormat};
use crate::failure::Failure;
use crate::input::read_text;
use crate::model::{EmbedRun, ModelChoice};

#[derive(Serialize)]
struct Output<'a> {
    model: ModelRef<'a>,
    vectors: Vec<Vec<f32>>,
}

#[derive(Serialize)]
struct ModelRef<'a> {
    name: &'a str,
    sha256: std::collections::BTreeMap<&'a str, &'a str>,
    /// The mantissa bits the weights were rounded to (`--weights page`).
    #[serde(skip_serializing_if = "Option::is_none")]
    mantissa_bits: Option<u8>,
}

/// Runs the command.
pub fn run(args: &EmbedArgs, out: &mut dyn Write) -> Result<(), Failure> {
    let mut texts = args.texts.clone();
    if let Some(file) = &args.file {
        texts.extend(read_lines(file)?);
    }
    if texts.is_empty() {
        return Err(Failure::Usage(
            "embed: nothing to embed; give --text T or --file F.jsonl".into(),
        ));
    }
    let pin = ModelPin::minilm();
    let model = ModelChoice::new(args.model.as_deref(), args.weights, args.mantissa_bits)?;
    let mantissa_bits = model.mantissa_bits;
    let embedder = model.load(EmbedRun::Batches)?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = embedder.embed(&refs)?;
    let text = match args.format {
        OutputFormat::Json => {
            let model = ModelRef {
                name: &pin.name,
                sha256: pin
                    .files
                    .iter()
                    .map(|(name, file)| (name.as_str(), file.sha256.as_str()))
                    .collect(),
                mantissa_bits,
            };
            crate::bundle::json_line(&Output { model, vectors })?
        }
        OutputFormat::Table => texts
            .iter()
            .zip(&vectors)
            .map(|(text, vector)| {
                let head: Vec<String> = vector.iter().take(4).map(|v| format!("{v:+.4}")).collect();
                format!(
                    "{} … ({} dims)  {}\n",
                    head.join(" "),
                    vector.len(),
                    crate::render::one_line(text)
                )
            })
            .collect(),
    };
    out.write_all(text.as_bytes()).map_err(Failure::output)
}

/// The `text` of each line of a JSON Lines file; a line that is not `{"text": "…"}` is refused
/// with its number.
fn read_lines(path: &Path) -> Result<Vec<String>, Failure> {
    let file = path.display().to_string();
    let text = read_text(path)?;
    let mut texts = Vec::new();
    for (at, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_slice(line.as_bytes()).map_err(|e| {
            Failure::Engine(routelens_engine::Error::Line {
                file: file.clone(),
                line: at + 1,
                message: e.to_string(),
            })
        })?;
        let Some(text) = value.get("text").and_then(|t| t.as_str()) else {
            return Err(Failure::Engine(routelens_engine::Error::Line {
                file: file.clone(),
                line: at + 1,
                message: "needs a string field \"text\"".into(),
            }));
        };
        texts.push(text.to_string());
    }
    if texts.is_empty() {
        return Err(Failure::Usage(format!(
            "{file} holds no texts (no line {{\"text\": …}})"
        )));
    }
    Ok(texts)
}
