//! Floor 2: the corpus. What a searchable corpus is and how it is stored: which files count
//! ([`policy`]), the index bundle's format ([`bundle`]), the code chunkers ([`code_chunks`]), the
//! texts once read ([`file_texts`]), the cl100k token counter ([`tokens`]) and the embedder's
//! word-piece counter (`wordpiece`). It knows nothing of studies.

pub mod bundle;
pub mod code_chunks;
pub mod file_texts;
pub mod policy;
pub mod tokens;
#[cfg(feature = "wordpiece")]
pub mod wordpiece;
