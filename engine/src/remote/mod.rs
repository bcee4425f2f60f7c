//! Floor 8: remote protocols. The stages that ask a model, as step machines with no I/O that the
//! caller drives (natively or in the browser): name-only routing over TypeSafe's System One
//! ([`route`]) and CodeNib's planned pools and Jev Score reranking ([`rerank`]).

pub mod rerank;
pub mod route;
