//! The embedding model routelens runs, pinned: its name, the PyPI package it is installed from
//! and each file's size and SHA-256 (`all-minilm-l6-v2.json`, which `scripts/install-model.py`
//! reads too). Vectors carry the pin they were made with; vectors of another model are refused
//! by name.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::checksum::sha256_hex;
use crate::error::{Error, Result};

/// The pin's text, one file for the installer and the engine.
const MINILM: &str = include_str!("all-minilm-l6-v2.json");

/// A pinned model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelPin {
    /// The model's hub name (`sentence-transformers/all-MiniLM-L6-v2`).
    pub name: String,
    /// The PyPI requirement its files come from.
    pub package: String,
    /// The licence, as the package's model card gives it.
    pub license: String,
    /// The folder inside the wheel that holds the files.
    pub folder_in_wheel: String,
    /// The folder name it is installed under.
    pub install_as: String,
    /// Each file's size and SHA-256, by file name.
    pub files: BTreeMap<String, PinnedFile>,
    /// The weights as the page fetches them, narrowed from the pinned f32 file
    /// (`page_weights`); absent for a model the page fetches at full width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_weights: Option<PageWeights>,
}

/// The page's narrowed weights: which file they are made from and how, and the result's size
/// and SHA-256 (`routelens` makes the same bytes from the same f32 file every time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageWeights {
    /// Its file name beside the pinned files (`model.safetensors.rlpw`).
    pub file: String,
    /// The pinned f32 file it is made from.
    pub from: String,
    /// The mantissa bits each f32 weight keeps (of 23).
    pub mantissa_bits: u8,
    /// The DEFLATE level it is compressed at.
    pub level: u8,
    /// Its size and SHA-256.
    #[serde(flatten)]
    pub pinned: PinnedFile,
}

/// One pinned file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedFile {
    /// Its size in bytes.
    pub bytes: u64,
    /// Its lower-case hex SHA-256.
    pub sha256: String,
}

impl PinnedFile {
    /// Refuses a `file` of `len` bytes with SHA-256 `sha256` unless it is this one, saying what
    /// `whose` pin holds.
    fn check(&self, file: &str, whose: &str, len: usize, sha256: &str) -> Result<()> {
        if len as u64 == self.bytes && sha256 == self.sha256 {
            return Ok(());
        }
        Err(Error::Model {
            file: file.to_string(),
            message: format!(
                "{len} bytes with SHA-256 {sha256}; {whose} is pinned at {} bytes, {}",
                self.bytes, self.sha256
            ),
        })
    }
}

impl ModelPin {
    /// all-MiniLM-L6-v2, the embedder CodeAtlas used.
    pub fn minilm() -> ModelPin {
        serde_json::from_slice(MINILM.as_bytes()).expect("the committed pin is valid JSON")
    }

    /// Checks `bytes` as the pinned file `name`: a file the pin does not list, or other bytes,
    /// is refused naming the file.
    pub fn check(&self, name: &str, bytes: &[u8]) -> Result<()> {
        self.check_digest(name, bytes.len(), &sha256_hex(bytes))
    }

    /// As [`ModelPin::check`] for a file of `len` bytes whose SHA-256 the caller has computed
    /// (the browser's own SubtleCrypto, where hashing 91 MB again in wasm took most of a
    /// second).
    pub fn check_digest(&self, name: &str, len: usize, sha256: &str) -> Result<()> {
        let want = self.files.get(name).ok_or_else(|| Error::Model {
            file: name.to_string(),
            message: format!("not one of {}'s pinned files", self.name),
        })?;
        want.check(name, &self.name, len, sha256)
    }

    /// The page's narrowed weights, or an error when this model has none.
    pub fn page_weights(&self) -> Result<&PageWeights> {
        self.page_weights.as_ref().ok_or_else(|| Error::Model {
            file: "model.safetensors".into(),
            message: format!("{} has no narrowed weights for the page", self.name),
        })
    }

    /// As [`ModelPin::check_digest`] for the page's narrowed weights.
    pub fn check_page_weights(&self, len: usize, sha256: &str) -> Result<()> {
        let page = self.page_weights()?;
        let whose = format!("{}'s page weights", self.name);
        page.pinned.check(&page.file, &whose, len, sha256)
    }
}

#[cfg(test)]
mod tests {
    use super::ModelPin;

    #[test]
    fn the_pin_names_the_three_files_and_refuses_other_bytes() {
        let pin = ModelPin::minilm();
        assert_eq!(pin.name, "sentence-transformers/all-MiniLM-L6-v2");
        assert_eq!(
            pin.files.keys().collect::<Vec<_>>(),
            ["config.json", "model.safetensors", "tokenizer.json"]
        );
        let refused = pin.check("config.json", b"{}").unwrap_err().to_string();
        assert!(
            refused.starts_with("config.json: embedding model: 2 bytes"),
            "{refused}"
        );
        assert!(pin.check("vocab.txt", b"").is_err());
        let config = &pin.files["config.json"];
        let bytes = config.bytes as usize;
        assert!(pin
            .check_digest("config.json", bytes, &config.sha256)
            .is_ok());
        let other = "0".repeat(64);
        assert!(pin.check_digest("config.json", bytes, &other).is_err());
        assert!(pin
            .check_digest("config.json", bytes + 1, &config.sha256)
            .is_err());
    }
}
