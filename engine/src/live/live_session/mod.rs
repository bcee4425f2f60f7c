//! The live arms' heavy half as one session: a bundle's search index, every file's text and the
//! cl100k_base counter, each loaded once, and the work the Search and Context views ask of them
//! (every arm over an issue, packs, line recall over many issues, timed calls, the pack bench),
//! and a bundle's chunkings for chunk search and the CodeAtlas grid.
//!
//! The browser runs it in a Web Worker (`worker/`) so that the page that shows studies never
//! loads tantivy or the tokenizer, and long work runs off the page's thread. The messages
//! ([`messages`]) need no feature, so the page speaks them without the session; the session
//! needs `lexical`. It does no I/O: the worker fetches the bytes and hands them over, and passes
//! its clock in. Natively, tests drive it directly.

pub mod messages;
#[cfg(feature = "lexical")]
mod session;

pub use messages::{
    AlsoGold, Answer, AnswerBody, BundleUrls, Call, CallBody, ChunkResult, CrossEncoderAt, LineJob,
    PackAnswer, PackedReport, WireRun,
};
#[cfg(feature = "lexical")]
pub use session::LiveSession;
