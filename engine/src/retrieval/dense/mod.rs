//! Dense retrieval (CodeAtlas): chunk and question vectors from all-MiniLM-L6-v2, computed as
//! sentence-transformers computes them (`embedder`, feature `dense`), and the model's pin: its
//! name and the SHA-256 of each file, which every vector set records and is checked against; and
//! the exact cosine ranking over a chunking's vectors (`rank`), which reads an f16 file's rows
//! as stored and widens them as it goes (`halves`), in AVX2's registers four rows at a time
//! where the processor has them (`wide_scan`), natively after a first pass over 8-bit codes
//! that leaves only the rows that could be among the best (`sketch`); where a question's vector comes
//! from (`queries`: the bundle's stored question vectors, else the embedder); the weights as the
//! page fetches them, rounded and compressed (`page_weights`); a BERT's linear weights handed
//! to candle transposed, so its products read them in place (`transposed`); BERT's encoder
//! (`encoder`) with its element-wise steps vectorised (`kernels`).

#[cfg(feature = "dense")]
pub mod embedder;
#[cfg(feature = "dense")]
pub mod encoder;
mod halves;
#[cfg(feature = "dense")]
mod kernels;
#[cfg(feature = "dense")]
pub mod page_weights;
pub mod pin;
pub mod queries;
pub mod rank;
pub mod sketch;
#[cfg(feature = "dense")]
pub mod transposed;
#[cfg(all(feature = "dense", target_arch = "x86_64"))]
mod wide_scan;
