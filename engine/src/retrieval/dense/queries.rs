//! Where a question's vector comes from, and the one model every vector must come from.
//!
//! A bundle stores its question set's vectors keyed by the SHA-256 of each question's text, so
//! the grid and a search for one of those questions need no model; any other text is embedded
//! by the embedder when one is given (the CLI's), and refused otherwise with a message that says
//! so. Every vector set joined here — a chunking's, the stored questions', the embedder's — must
//! name the pinned model ([`ModelPin`]): its hub name and the SHA-256 of its weights; another
//! model's vectors are refused naming their file.

use std::collections::HashMap;

use super::pin::ModelPin;
use crate::checksum::sha256_hex;
use crate::corpus::bundle::VectorModel;
use crate::error::{Error, Result};

/// Embeds one text (the CLI gives the loaded embedder; the browser none yet).
pub type EmbedFn = Box<dyn Fn(&str) -> Result<Vec<f32>> + Send + Sync>;

/// The question vectors at hand.
#[derive(Default)]
pub struct QueryVectors {
    stored: HashMap<String, Vec<f32>>,
    embed: Option<EmbedFn>,
}

impl std::fmt::Debug for QueryVectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryVectors")
            .field("stored", &self.stored.len())
            .field("embed", &self.embed.is_some())
            .finish()
    }
}

impl QueryVectors {
    /// Adds stored vectors (text SHA-256 → vector) made by `model`, read from `file`.
    pub fn add_stored(
        &mut self,
        file: &str,
        model: VectorModel,
        vectors: Vec<(String, Vec<f32>)>,
    ) -> Result<()> {
        check_model(file, model)?;
        self.stored.extend(vectors);
        Ok(())
    }

    /// Embeds texts with no stored vector by `embed`.
    pub fn set_embedder(&mut self, embed: EmbedFn) {
        self.embed = Some(embed);
    }

    /// Whether `text` has a vector without the embedder.
    pub fn has_stored(&self, text: &str) -> bool {
        self.stored.contains_key(&sha256_hex(text.as_bytes()))
    }

    /// The vector of `text`: stored, or embedded.
    pub fn vector(&self, text: &str) -> Result<Vec<f32>> {
        if let Some(vector) = self.stored.get(&sha256_hex(text.as_bytes())) {
            return Ok(vector.clone());
        }
        match &self.embed {
            Some(embed) => embed(text),
            None => Err(Error::setting(
                "question",
                format!("{:?}", short(text)),
                "one of the bundle's questions (its vectors are stored), or a run with the \
                 embedding model loaded",
            )),
        }
    }
}

/// Refuses vectors of another model than the pinned one, naming their `file`.
pub fn check_model(file: &str, model: VectorModel) -> Result<()> {
    let pin = ModelPin::minilm();
    let weights = pin
        .files
        .get("model.safetensors")
        .map(|f| f.sha256.as_str())
        .unwrap_or_default();
    if model.name == pin.name && model.weights_sha256 == weights {
        return Ok(());
    }
    Err(Error::Model {
        file: file.to_string(),
        message: format!(
            "vectors made by {} (weights {}); this build embeds with {} (weights {weights})",
            model.name, model.weights_sha256, pin.name
        ),
    })
}

fn short(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
