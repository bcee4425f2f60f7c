//! Floor 4, beside scoring: delivered context. What a model would be handed: the shared line
//! selector ([`select`]), the token packer ([`pack`]), line recall of what was delivered
//! ([`linescore`]), the three together for one issue ([`context`]), and the benchmark corpus of the
//! context stage ([`synthetic`]).

pub mod context;
pub mod linescore;
pub mod pack;
pub mod select;
pub mod synthetic;
