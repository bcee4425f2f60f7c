//! Floor 9: live sessions. The live study of a question set ([`study`]), arms run live with the
//! evidence that produced them, the live study export and its replay ([`evidence`]), which of the
//! open study's cases a bundle may answer ([`snapshot`]), a case run live on its own snapshot against
//! the archive ([`against_archive`]), live results as a TREC run
//! ([`trec_export`]), and the worker's session ([`live_session`]).

pub mod against_archive;
pub mod evidence;
pub mod live_session;
pub mod snapshot;
pub mod study;
pub mod trec_export;
