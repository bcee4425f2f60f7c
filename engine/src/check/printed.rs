//! A paper's printed numbers as data (`routelens-printed/1`), and how a printed value is read.
//!
//! ```json
//! {"format": "routelens-printed/1", "paper": "…", "source": "000_….txt",
//!  "numbers": [
//!    {"where": "Table 2, Name-only tree, File@8", "printed": "0.465",
//!     "compute": {"stat": "file_recall", "arm": "tree", "k": 8}},
//!    {"where": "Table 6, aligned at annotated range", "printed": "940",
//!     "why": "the span-level audit is archived as counts per case, not per span"}
//!  ]}
//! ```
//!
//! Each number says where the paper prints it, the text exactly as printed, and either the
//! statistic that recomputes it ([`Quantity`]) or why the data cannot yield it. The printed text
//! fixes the precision a recomputation is judged at: `0.465` three decimals, `+0.113` a signed
//! value, `71.40%` a percentage with two decimals, `25/82` a count of a whole, `12.2K` thousands,
//! `$0.000512` a currency amount. A number printed in other units than the data's says so with
//! `"scale"` (`0.001` for milliseconds printed as seconds).

use serde::{Deserialize, Serialize};

use super::quantity::Quantity;
use crate::error::{Error, Result};

/// The `format` of a printed-numbers file.
pub const PRINTED_FORMAT: &str = "routelens-printed/1";

/// The printed numbers routelens carries, by study: transcribed once from the papers (the seeds
/// under `shared/seeds/`), committed beside this module.
pub const BUILT_IN: [(&str, &str); 2] = [
    ("fastindex", include_str!("papers/fastindex.json")),
    ("codenib", include_str!("papers/codenib.json")),
];

/// The text of the built-in printed numbers of `study` (`fastindex` or `codenib`), if it has them.
pub fn built_in_text(study: &str) -> Option<&'static str> {
    BUILT_IN
        .iter()
        .find(|(name, _)| *name == study)
        .map(|(_, text)| *text)
}

/// The built-in printed numbers of `study` (`fastindex` or `codenib`), read.
pub fn built_in(study: &str) -> Result<PrintedFile> {
    let text = built_in_text(study)
        .ok_or_else(|| Error::setting("study", study, "fastindex or codenib"))?;
    PrintedFile::from_json(&format!("{study}.json (built in)"), text)
}

/// A paper's printed numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrintedFile {
    /// Always [`PRINTED_FORMAT`].
    pub format: String,
    /// The paper's title.
    pub paper: String,
    /// Where the numbers were transcribed from.
    pub source: String,
    /// The numbers, in the paper's order.
    pub numbers: Vec<PrintedNumber>,
}

/// One printed number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrintedNumber {
    /// Where the paper prints it (table, row and column, or the sentence's section).
    #[serde(rename = "where")]
    pub place: String,
    /// The text as printed.
    pub printed: String,
    /// The statistic that recomputes it; `None` when the data cannot yield it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute: Option<Quantity>,
    /// A factor the recomputed value is multiplied by before it is compared, for a number printed
    /// in other units than the data's (`0.001` for milliseconds printed as seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<f64>,
    /// Why it cannot be recomputed, or what explains a known difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// How a printed value is written, which fixes how a recomputed one is formatted to compare.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Notation {
    /// A decimal number with `decimals` digits after the point; `signed` when printed with `+`.
    Decimal {
        /// Digits after the point.
        decimals: usize,
        /// Printed with an explicit `+` on positive values.
        signed: bool,
    },
    /// A percentage with `decimals` digits (the value is the fraction: `71.40%` is 0.714).
    Percent {
        /// Digits after the point.
        decimals: usize,
    },
    /// Thousands with `decimals` digits (`12.2K` is 12,200).
    Thousands {
        /// Digits after the point.
        decimals: usize,
    },
    /// A count out of a whole (`25/82`): the count, and the whole it is out of.
    Fraction {
        /// The whole.
        whole: u64,
    },
}

/// A printed value read: its notation and the digits it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct PrintedValue {
    /// How it is written.
    pub notation: Notation,
    /// The printed digits without decoration (`0.113`, `-0.020`, `71.40`, `12.2`, `25`).
    pub digits: String,
    /// Its value in the statistic's own units (a percentage as a fraction, thousands whole).
    pub value: f64,
}

impl PrintedValue {
    /// Reads `text` as printed; errors name the number's place.
    pub fn parse(place: &str, text: &str) -> Result<PrintedValue> {
        let bad = |why: &str| Error::field("printed numbers", place, format!("{text:?}: {why}"));
        let trimmed = text.trim().trim_start_matches('$');
        if let Some((count, whole)) = trimmed.split_once('/') {
            let count: u64 = count.trim().parse().map_err(|_| bad("not a count"))?;
            let whole: u64 = whole.trim().parse().map_err(|_| bad("not a whole"))?;
            return Ok(PrintedValue {
                notation: Notation::Fraction { whole },
                digits: count.to_string(),
                value: count as f64,
            });
        }
        let (body, notation_of): (&str, fn(usize, bool) -> Notation) =
            if let Some(body) = trimmed.strip_suffix('%') {
                (body, |decimals, _| Notation::Percent { decimals })
            } else if let Some(body) = trimmed.strip_suffix('K') {
                (body, |decimals, _| Notation::Thousands { decimals })
            } else {
                (trimmed, |decimals, signed| Notation::Decimal {
                    decimals,
                    signed,
                })
            };
        let signed = body.starts_with('+');
        let digits = body.trim_start_matches('+').replace('−', "-");
        let number: f64 = digits.parse().map_err(|_| bad("not a number"))?;
        if !number.is_finite() {
            return Err(bad("not a finite number"));
        }
        let decimals = digits.split_once('.').map_or(0, |(_, d)| d.len());
        let notation = notation_of(decimals, signed);
        // Shifted in decimal, so `71.40%` is the f64 nearest 0.714, not 71.4 / 100.
        let shifted = |exponent: &str| format!("{digits}{exponent}").parse().unwrap_or(number);
        let value = match notation {
            Notation::Percent { .. } => shifted("e-2"),
            Notation::Thousands { .. } => shifted("e3"),
            _ => number,
        };
        Ok(PrintedValue {
            notation,
            digits,
            value,
        })
    }

    /// `value` written as this printed value is, for comparing digit by digit (`-0.000` is
    /// written `0.000`, as a paper would print it).
    pub fn format_like(&self, value: f64) -> String {
        let fixed = |x: f64, decimals: usize| {
            let text = format!("{x:.decimals$}");
            match text.strip_prefix('-') {
                Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
                _ => text,
            }
        };
        match self.notation {
            Notation::Decimal { decimals, .. } => fixed(value, decimals),
            Notation::Percent { decimals } => fixed(value * 100.0, decimals),
            Notation::Thousands { decimals } => fixed(value / 1000.0, decimals),
            Notation::Fraction { .. } => fixed(value, 0),
        }
    }

    /// `value` written with the printed value's decoration too: its sign, `%`, `K` or `$`.
    pub fn display_like(&self, value: f64, printed: &str) -> String {
        let digits = self.format_like(value);
        let signed = matches!(self.notation, Notation::Decimal { signed: true, .. });
        let mut text = if signed && !digits.starts_with('-') {
            format!("+{digits}")
        } else {
            digits
        };
        match self.notation {
            Notation::Percent { .. } => text.push('%'),
            Notation::Thousands { .. } => text.push('K'),
            _ => {}
        }
        if printed.trim_start().starts_with('$') {
            text.insert(0, '$');
        }
        text
    }

    /// The half-width of the printed precision, in the statistic's units: a recomputed value this
    /// close rounds to the printed digits.
    pub fn half_unit(&self) -> f64 {
        let unit = |decimals: usize| 10f64.powi(-(decimals as i32)) / 2.0;
        match self.notation {
            Notation::Decimal { decimals, .. } => unit(decimals),
            Notation::Percent { decimals } => unit(decimals) / 100.0,
            Notation::Thousands { decimals } => unit(decimals) * 1000.0,
            Notation::Fraction { .. } => 0.5,
        }
    }
}

impl PrintedFile {
    /// Reads a printed-numbers file; errors name `file` and the field. Every printed value must
    /// read, and every number must either say how to recompute it or why it cannot be.
    pub fn from_json(file: &str, text: &str) -> Result<PrintedFile> {
        let printed: PrintedFile = crate::error::from_json_file(file, text)?;
        if printed.format != PRINTED_FORMAT {
            return Err(Error::field(
                file,
                "format",
                format!("{:?} is not {PRINTED_FORMAT:?}", printed.format),
            ));
        }
        for (index, number) in printed.numbers.iter().enumerate() {
            let field = |name: &str| format!("numbers[{index}].{name}");
            PrintedValue::parse(&number.place, &number.printed)
                .map_err(|err| Error::field(file, field("printed"), err.to_string()))?;
            if number.compute.is_none() && number.why.is_none() {
                return Err(Error::field(
                    file,
                    field("compute"),
                    "neither how to recompute it nor why it cannot be is given",
                ));
            }
        }
        Ok(printed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> PrintedValue {
        PrintedValue::parse("here", text).unwrap()
    }

    #[test]
    fn printed_values_read_with_their_precision() {
        assert_eq!(read("0.465").format_like(0.46519), "0.465");
        assert_eq!(read("+0.113").format_like(0.11349), "0.113");
        assert_eq!(read("-0.020").format_like(-0.0204), "-0.020");
        assert_eq!(read("0.000").format_like(-0.0001), "0.000");
        assert_eq!(read("71.40%").value, 0.714);
        assert_eq!(read("71.40%").format_like(0.71402), "71.40");
        assert_eq!(read("12.2K").format_like(12_180.0), "12.2");
        assert_eq!(read("+0.113").display_like(0.1131, "+0.113"), "+0.113");
        assert_eq!(read("71.40%").display_like(0.714, "71.40%"), "71.40%");
        assert_eq!(
            read("$0.000512").display_like(0.000512, "$0.000512"),
            "$0.000512"
        );
        assert_eq!(read("$0.000512").format_like(0.00051249), "0.000512");
        let full = read("25/82");
        assert_eq!(full.notation, Notation::Fraction { whole: 82 });
        assert_eq!(full.format_like(25.0), "25");
        assert!((read("0.46").half_unit() - 0.005).abs() < 1e-15);
    }

    #[test]
    fn the_built_in_files_read() {
        for (name, _) in BUILT_IN {
            let file = built_in(name).unwrap();
            assert!(!file.numbers.is_empty(), "{name}");
        }
    }

    #[test]
    fn unreadable_values_and_unexplained_numbers_are_refused_by_field() {
        assert!(PrintedValue::parse("Table 2", "n/a").is_err());
        let text = r#"{"format": "routelens-printed/1", "paper": "p", "source": "s",
            "numbers": [{"where": "Table 2", "printed": "0.4"}]}"#;
        let err = PrintedFile::from_json("p.json", text)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("p.json") && err.contains("numbers[0].compute"),
            "{err}"
        );
        let text = text.replace("0.4", "zero");
        let err = PrintedFile::from_json("p.json", &text)
            .unwrap_err()
            .to_string();
        assert!(err.contains("numbers[0].printed"), "{err}");
    }
}
