//! Floor 6: retrieval. Rankings made here: the paper's lexical arms over a bundle ([`lexical`])
//! and BM25 over a chunking's chunks ([`chunk_search`]).

pub mod chunk_search;
pub mod dense;
pub mod lexical;
