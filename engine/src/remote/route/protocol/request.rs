//! The request side: the body the router sends ([`Request`]), its questions, and the choice
//! criteria that keep the menu's key order on the wire.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A System One request body. It never holds the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// What every question is about: for the router a string (`User question: ` and the
    /// issue's start), for the Jev reranker an object (the query and the batch's candidates).
    pub state: Value,
    /// The model name, e.g. `jev-1.13.0`.
    pub model: String,
    /// The questions by name; the router asks one, [`ROUTE_QUESTION`](super::ROUTE_QUESTION).
    pub questions: BTreeMap<String, Question>,
}

impl Request {
    /// The JSON body as sent.
    pub fn to_json(&self) -> String {
        // Serialising these plain types cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The state as text: a string state itself, any other its JSON text.
    pub fn state_text(&self) -> std::borrow::Cow<'_, str> {
        match &self.state {
            Value::String(text) => text.as_str().into(),
            other => other.to_string().into(),
        }
    }

    /// The request's size in characters of state and criteria, the measure menus are split by.
    pub fn chars(&self) -> usize {
        let criteria: usize = self
            .questions
            .values()
            .map(|question| match question {
                Question::Choice { criteria, .. } => criteria
                    .0
                    .iter()
                    .map(|(_, text)| text.chars().count())
                    .sum::<usize>(),
                Question::Score { criteria, .. } => {
                    criteria.iter().map(|t| t.chars().count()).sum::<usize>()
                }
            })
            .sum();
        self.state_text().chars().count() + criteria
    }
}

/// One question of a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
#[non_exhaustive]
pub enum Question {
    /// Pick one of named options; every option gets a probability.
    Choice {
        /// What to decide.
        instructions: String,
        /// The options by key, in menu order.
        criteria: Criteria,
    },
    /// Rate on an ordered rubric; level `i` is the `i`-th description (for the reranker later).
    Score {
        /// What to rate.
        instructions: String,
        /// The levels' descriptions, lowest first (2 to 10 of them).
        criteria: Vec<String>,
    },
}

/// The criteria of a choice question: `(key, text)` pairs in menu order, a JSON object on the
/// wire.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Criteria(pub Vec<(String, String)>);

impl Criteria {
    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(key, _)| key.as_str())
    }

    /// The text of a key.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, text)| text.as_str())
    }
}

impl Serialize for Criteria {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, text) in &self.0 {
            map.serialize_entry(key, text)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Criteria {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Criteria;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of option keys to option texts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Criteria, A::Error> {
                let mut pairs = Vec::new();
                while let Some((key, text)) = map.next_entry::<String, String>()? {
                    pairs.push((key, text));
                }
                Ok(Criteria(pairs))
            }
        }
        deserializer.deserialize_map(Ordered)
    }
}
