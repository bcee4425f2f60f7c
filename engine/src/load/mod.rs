//! Floor 5: loaders. Bytes into studies: the fastindex archive ([`archive`], which also adds the
//! paper's fusion arms, so loaders stand above scoring), TREC and JSON Lines runs ([`runfile`]),
//! issue texts checked by hash ([`issue_text`]) and question sets ([`question_set`]).

pub mod archive;
pub mod issue_text;
pub mod question_set;
pub mod runfile;
