//! Floor 5: loaders. Bytes into studies: the fastindex archive ([`archive`], which also adds the
//! paper's fusion arms, so loaders stand above scoring), TREC and JSON Lines runs ([`runfile`]),
//! issue texts checked by hash ([`issue_text`]), question sets ([`question_set`]) and the second
//! labelling round's tasks and labels ([`labels`]).

pub mod archive;
pub mod issue_text;
pub mod labels;
pub mod question_set;
pub mod runfile;
