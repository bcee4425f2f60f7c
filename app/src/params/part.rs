//! One part of the settings and its URL keys: the trait every part implements (the keys several
//! views share, and each view's own in its `params.rs`), so that the permalink is a loop over the
//! parts and a view's new setting is added in one file, beside the view. Also the value readers
//! several parts use.
//!
//! A part lists its keys, reads only those and writes them back in its own order; the
//! permalink hands each `key=value` to the part that lists the key. `Settings::parts` lists the
//! parts, and a test there checks that no key is listed, or read, by two parts.

use routelens_engine::Study;

/// What a part made of one `key=value` of the link.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// Not a setting of this part: a key it does not list, or an empty value it does not read
    /// (an empty arm or case names nothing). The link is told it names an unknown parameter.
    Unknown,
    /// Read into the part.
    Read,
    /// This part's key with a value it refuses: the setting keeps its value and the reader is
    /// told why.
    Refused(String),
}

/// A part of the settings that reads and writes its own URL keys.
pub trait Params {
    /// Every key `read` takes, legacy spellings included (`issue` for `case`); the permalink
    /// hands the part these keys and no others.
    fn keys(&self) -> &'static [&'static str];

    /// Appends the part's `key=value` pairs in the order the link shows them: most only when
    /// set or not the default, a few always (each part's module doc says which).
    fn write(&self, pairs: &mut Vec<(&'static str, String)>);

    /// Reads one `key=value` of the link into the part.
    fn read(&mut self, key: &str, value: &str) -> Claim;
}

/// Sets `field` to a value that parsed, or refuses it with why not.
pub fn set<T>(field: &mut T, parsed: Result<T, String>) -> Claim {
    match parsed {
        Ok(value) => {
            *field = value;
            Claim::Read
        }
        Err(why) => Claim::Refused(why),
    }
}

/// Sets `field` to a value, unless it is empty: an empty value is not read ([`Claim::Unknown`]).
pub fn set_text(field: &mut String, value: &str) -> Claim {
    if value.is_empty() {
        return Claim::Unknown;
    }
    *field = value.to_string();
    Claim::Read
}

/// [`set_text`] for a setting that may be unset.
pub fn set_some(field: &mut Option<String>, value: &str) -> Claim {
    if value.is_empty() {
        return Claim::Unknown;
    }
    *field = Some(value.to_string());
    Claim::Read
}

/// A comma-separated list, without empty items.
pub fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .filter(|item| !item.is_empty())
        .map(str::to_string)
        .collect()
}

/// A whole number of at least 1 (and at most 100,000: caps, cut-offs and depths).
pub fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=100_000).contains(&n) => Ok(n),
        _ => Err(format!("{text:?} is not a whole number from 1 to 100000")),
    }
}

/// A k the engine accepts (1 to 16).
pub fn k_value(text: &str) -> Result<usize, String> {
    let k: usize = text
        .parse()
        .map_err(|_| format!("{text:?} is not a whole number"))?;
    Study::check_k(k).map_err(|e| e.to_string())
}
