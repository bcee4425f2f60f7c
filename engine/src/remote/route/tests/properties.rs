//! Property tests: every walk, of either strategy, ends within its caps with distinct paths of
//! the tree.

use super::*;
use proptest::prelude::*;

/// Probabilities from a hash of the seed and the option text, so every menu differs.
struct Hashed(u64);

impl Decider for Hashed {
    fn decide(&mut self, request: &Request) -> Result<Response, DecisionError> {
        let Question::Choice { criteria, .. } = &request.questions["route"] else {
            panic!("choice expected")
        };
        let probabilities: Vec<f64> = criteria
            .0
            .iter()
            .filter(|(key, _)| key != NONE_KEY)
            .map(|(_, text)| {
                let mut h = self.0 ^ 0x9e37_79b9_7f4a_7c15;
                for b in text.bytes() {
                    h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                }
                // Some options fall under the 0.01 floor, some tie at 0.5.
                match h % 4 {
                    0 => 0.005,
                    1 => 0.5,
                    _ => (h % 1000) as f64 / 1000.0,
                }
            })
            .collect();
        Ok(response(&probabilities, 0.1))
    }

    fn kind(&self) -> String {
        "hashed".into()
    }
}

proptest! {
    #[test]
    fn routing_terminates_within_its_caps(
        paths in proptest::collection::btree_set("[a-d](/[a-d]){0,3}/[e-h]\\.rs", 1..60),
        seed in any::<u64>(),
        max_menu_options in 2usize..8,
        max_calls in 1usize..40,
        max_files in 1usize..20,
        flat in any::<bool>(),
    ) {
        let paths: Vec<String> = paths.into_iter().collect();
        let tree = DirTree::from_paths(&paths);
        let settings = RouteSettings {
            max_menu_options,
            max_calls,
            max_files,
            flat_advance: 1.max(max_menu_options / 2),
            flat_menu_options: max_menu_options,
            flat_max_calls: Some(max_calls),
            ..RouteSettings::default()
        };
        prop_assert!(settings.check().is_ok());
        let strategy = if flat { super::super::Strategy::Flat } else { super::super::Strategy::Tree };
        let mut walk = super::super::walk(strategy, &tree, "id", "issue a b", settings);
        let mut decider = Hashed(seed);
        let mut steps = 0;
        let mut now = 0;
        while let Some(call) = walk.next_call(now) {
            steps += 1;
            prop_assert!(steps <= 10_000, "the walk does not end");
            now += call.wait_ms + 1;
            let outcome = decider.decide(&call.request);
            walk.answer(outcome, now);
        }
        let run = walk.run();
        prop_assert!(walk.is_done());
        prop_assert!(run.calls <= max_calls);
        prop_assert!(run.paths.len() <= max_files);
        let unique: std::collections::BTreeSet<&String> = run.paths.iter().collect();
        prop_assert_eq!(unique.len(), run.paths.len());
        prop_assert!(run.paths.iter().all(|p| paths.contains(p)));
        prop_assert!(run.error.is_none());
        if run.stopped_by.is_some() {
            prop_assert!(run.truncated);
        }
    }
}
