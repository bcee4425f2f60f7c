//! Gold files one arm finds that others miss, as the fastindex paper counts them (section 4.1):
//! a gold file of an issue is an *occurrence* (the same path in two issues counts twice), and an
//! occurrence is the arm's own when it is in the arm's first `k` paths and in none of the other
//! arms' first `k`. The paper prints both how many occurrences and how many issues hold one.

use crate::study::Study;

/// The occurrences only one arm found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnFinds {
    /// Gold-file occurrences in the arm's first `k` and in no other arm's.
    pub occurrences: usize,
    /// Cases with at least one such occurrence.
    pub cases: usize,
    /// Every gold-file occurrence: the whole the occurrences are out of.
    pub gold: usize,
}

/// The gold files in the first `k` of arm `arm` (an index) and in the first `k` of none of
/// `others`, over every case.
pub fn own_finds(study: &Study, arm: usize, others: &[usize], k: usize) -> OwnFinds {
    let top = |arm: usize, case: usize| {
        let ranking = &study.arms[arm].rankings[case];
        &ranking[..k.min(ranking.len())]
    };
    let mut finds = OwnFinds {
        occurrences: 0,
        cases: 0,
        gold: 0,
    };
    for (index, case) in study.cases.iter().enumerate() {
        let own = case
            .gold_files
            .iter()
            .filter(|gold| {
                top(arm, index).contains(gold)
                    && others
                        .iter()
                        .all(|&other| !top(other, index).contains(gold))
            })
            .count();
        finds.occurrences += own;
        finds.cases += usize::from(own > 0);
        finds.gold += case.gold_files.len();
    }
    finds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::runfile::load_jsonl;

    fn study() -> Study {
        load_jsonl(
            "s.jsonl",
            r#"{"id": "r::1", "gold": ["a.rs", "b.rs", "c.rs"]}
{"id": "r::2", "gold": ["a.rs"]}
{"id": "r::3", "gold": ["d.rs"]}
{"id": "r::1", "arm": "x", "paths": ["a.rs", "b.rs", "c.rs"]}
{"id": "r::2", "arm": "x", "paths": ["a.rs"]}
{"id": "r::3", "arm": "x", "paths": ["z.rs", "d.rs"]}
{"id": "r::1", "arm": "y", "paths": ["z.rs", "a.rs"]}
{"id": "r::2", "arm": "y", "paths": ["z.rs", "a.rs"]}
{"id": "r::3", "arm": "y", "paths": ["d.rs"]}
{"id": "r::1", "arm": "w", "paths": ["b.rs"]}
{"id": "r::2", "arm": "w", "paths": []}
{"id": "r::3", "arm": "w", "paths": []}"#,
        )
        .unwrap()
    }

    #[test]
    fn an_occurrence_is_the_arms_own_when_no_other_arm_has_it_in_its_first_k() {
        let study = study();
        let [x, y, w] = ["x", "y", "w"].map(|name| study.arm_index(name).unwrap());
        // At 1, y's first paths are z, z, d: x alone has a.rs twice.
        let finds = own_finds(&study, x, &[y], 1);
        assert_eq!((finds.occurrences, finds.cases, finds.gold), (2, 2, 5));
        // At 2, y has a.rs in both issues: x alone has b.rs, in one issue; at 3, c.rs too.
        let at_two = own_finds(&study, x, &[y], 2);
        assert_eq!((at_two.occurrences, at_two.cases), (1, 1));
        assert_eq!(own_finds(&study, x, &[y], 3).occurrences, 2);
        // Absent from both y and w: w has b.rs, so only c.rs is left.
        let both = own_finds(&study, x, &[y, w], 3);
        assert_eq!((both.occurrences, both.cases), (1, 1));
        // y's own at 1: d.rs, which x ranks second.
        assert_eq!(own_finds(&study, y, &[x], 1).occurrences, 1);
        assert_eq!(own_finds(&study, y, &[x], 2).occurrences, 0);
    }
}
