//! Floor 6: retrieval. Rankings made here: the paper's lexical arms over a bundle ([`lexical`])
//! and BM25 over a chunking's chunks ([`chunk_search`]), dense vectors ([`dense`]), and the
//! cross-encoder that reorders a ranking's head ([`cross_encoder`]).

pub mod chunk_search;
pub mod cross_encoder;
pub mod dense;
pub mod lexical;
