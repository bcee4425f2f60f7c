//! The app's one store: the study's lifecycle (loading, progress, closing, setting one aside and
//! opening it again) beside the settings that shape every view (`crate::params`).
//!
//! The study the views see is a memo: the study as loaded plus the user's fusions, recomputed by
//! the engine whenever the fusion list or its settings change, so a fusion appears as an arm in
//! every view and a permalink can rebuild it. Readers of the metric settings are beside their
//! controls (`components/metric_controls.rs`).

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use reactive_stores::Store;
use routelens_engine::check::printed::PrintedFile;
use routelens_engine::scoring::score_table::ScoreTable;
use routelens_engine::{add_fusion, RrfConfig, Study};

use crate::api::StudiesList;
use crate::bundles::BundleStore;
use crate::error::Error;
use crate::packing::LoadedBundle;
use crate::params::fusion::FusionParamsStoreFields;
use crate::params::page::{PageParamsStoreFields, StudyRef, View};
use crate::params::{Settings, SettingsStoreFields};
use crate::views::scores::params::ScoresParamsStoreFields;
use crate::views::study::params::{StudyViewParams, StudyViewParamsStoreFields};

/// The study the views see: as loaded, plus the user's fusions.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The study with the fusions added.
    pub study: Arc<Study>,
    /// Fusions the engine refused (e.g. a permalink naming an arm this study lacks), as messages.
    pub fusion_errors: Vec<String>,
}

impl PartialEq for Loaded {
    /// Two results are the same when they are the same computation: comparing whole studies
    /// would cost more than the memo saves.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.study, &other.study) && self.fusion_errors == other.fusion_errors
    }
}

/// An open study set aside (see [`AppState::previous`]): what it was, as loaded, with the
/// settings it was viewed with.
#[derive(Clone)]
pub struct Previous {
    /// The study as loaded, or the score table.
    pub base: Option<Arc<Study>>,
    /// The score table, when that was what was open.
    pub scores: Option<Arc<ScoreTable>>,
    /// Where it came from.
    pub source: String,
    /// Its title.
    pub title: String,
    /// Its paper's printed numbers.
    pub printed: Option<Result<Arc<PrintedFile>, String>>,
    /// The settings of the moment it was set aside (its reference, view and arms among them).
    pub settings: Settings,
}

/// What the loader is doing.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Nothing in progress.
    Idle,
    /// Loading: what, and how many files of how many are in.
    Loading {
        /// What is being loaded, e.g. "fastindex".
        what: String,
        /// Files done.
        done: usize,
        /// Files in all.
        total: usize,
    },
    /// The last load failed; the message names the file and field.
    Failed(String),
}

/// The one store, provided as context. Every field is a cheap `Copy` handle.
#[derive(Clone, Copy)]
pub struct AppState {
    /// Every setting, field by field reactive; mirrored into the URL.
    pub settings: Store<Settings>,
    /// The study as loaded, before user fusions.
    pub base: RwSignal<Option<Arc<Study>>>,
    /// A score table as loaded (a study of values, not rankings), when that is what is open.
    pub scores: RwSignal<Option<Arc<ScoreTable>>>,
    /// A human description of where the loaded study came from.
    pub source_label: RwSignal<String>,
    /// What is being or was last loaded, as the site titles it (a score table's heading).
    pub title: RwSignal<String>,
    /// The open study's paper's printed numbers, when its site carries them (or why they could
    /// not be read): the paper page checks them against the study.
    pub printed: RwSignal<Option<Result<Arc<PrintedFile>, String>>>,
    /// The study the views see (`base` plus fusions).
    pub study: Memo<Option<Loaded>>,
    /// The server's study list.
    pub studies: RwSignal<StudiesList>,
    /// Loading progress or the last error.
    pub status: RwSignal<Status>,
    /// Bumped by every load, so a slow earlier load never overwrites a later one.
    pub generation: RwSignal<u64>,
    /// Notes for the reader (permalink values that were ignored, picked files not restorable).
    pub notices: RwSignal<Vec<String>>,
    /// Issue texts the user loaded that matched their archived SHA-256, by case id.
    pub issue_texts: RwSignal<BTreeMap<String, String>>,
    /// The bundle list and the bundles' manifests and question sets, fetched once per page.
    pub bundles: BundleStore,
    /// The bundle loaded for packing (the Context and Lines views), kept across tab switches.
    pub packing: StoredValue<Option<Rc<LoadedBundle>>, LocalStorage>,
    /// The study that was open before the reader closed it or began another load, kept whole
    /// until another study has loaded, so that a load that fails loses nothing (the home page
    /// offers it back).
    pub previous: StoredValue<Option<Previous>>,
}

impl AppState {
    /// A store starting from these settings (usually read from the permalink).
    pub fn new(settings: Settings, notices: Vec<String>) -> Self {
        let settings = Store::new(settings);
        let base: RwSignal<Option<Arc<Study>>> = RwSignal::new(None);
        let study = Memo::new(move |_| {
            let base = base.get()?;
            let fusion = settings.fusion();
            let fusions = fusion.fusions().get();
            if fusions.is_empty() {
                return Some(Loaded {
                    study: base,
                    fusion_errors: Vec::new(),
                });
            }
            let config = RrfConfig {
                rank_constant: fusion.rank_constant().get(),
                depth: fusion.depth().get(),
            };
            let mut study = (*base).clone();
            let mut fusion_errors = Vec::new();
            for parts in &fusions {
                if let Err(err) = add_fusion(&mut study, parts, config) {
                    fusion_errors.push(format!("fusion {}: {err}", parts.join("+")));
                }
            }
            Some(Loaded {
                study: Arc::new(study),
                fusion_errors,
            })
        });
        AppState {
            settings,
            base,
            scores: RwSignal::new(None),
            source_label: RwSignal::new(String::new()),
            title: RwSignal::new(String::new()),
            printed: RwSignal::new(None),
            study,
            studies: RwSignal::new(StudiesList::Asking),
            status: RwSignal::new(Status::Idle),
            generation: RwSignal::new(0),
            notices: RwSignal::new(notices),
            issue_texts: RwSignal::new(BTreeMap::new()),
            bundles: BundleStore::new(),
            packing: StoredValue::new_local(None),
            previous: StoredValue::new(None),
        }
    }

    /// The bundle loaded for packing, if it is `name`.
    pub fn packed_bundle(&self, name: &str) -> Option<Rc<LoadedBundle>> {
        self.packing
            .get_value()
            .filter(|bundle| bundle.entry.name == name)
    }

    /// The store from context; every view is under `App`, which provides it.
    pub fn get() -> Self {
        expect_context::<AppState>()
    }

    /// Runs `f` on the current study (tracked), or returns `None` when none is loaded.
    pub fn with_study<R>(&self, f: impl FnOnce(&Study) -> R) -> Option<R> {
        self.study
            .with(|loaded| loaded.as_ref().map(|loaded| f(&loaded.study)))
    }

    /// The current study's arm names (tracked); empty when none is loaded.
    pub fn arm_names(&self) -> Vec<String> {
        self.with_study(Study::arm_names).unwrap_or_default()
    }

    /// Starts a load: a new generation, progress at zero, the previous study cleared.
    pub fn begin_load(&self, study: StudyRef, what: &str, total: usize) -> u64 {
        self.set_aside();
        let generation = self.generation.get_untracked() + 1;
        self.generation.set(generation);
        self.base.set(None);
        self.scores.set(None);
        self.printed.set(None);
        self.title.set(what.to_string());
        self.settings.page().study().set(study);
        self.status.set(Status::Loading {
            what: what.to_string(),
            done: 0,
            total,
        });
        generation
    }

    /// Makes a live study (a bundle's question set with arms run live in the Search or Route
    /// view) the open study, so every study view shows it; the permalink names it
    /// `live:<bundle>`, which cannot carry the runs.
    pub fn open_live_study(&self, study: Study, bundle: String) {
        let label = format!(
            "live runs over bundle {bundle:?}: {} questions, {} arms",
            study.cases.len(),
            study.arms.len()
        );
        self.settings.fusion().fusions().set(Vec::new());
        let generation = self.begin_load(StudyRef::Live(bundle), &label, 1);
        self.finish_load(generation, label, Ok(study));
        self.settings.page().view().set(View::Table2);
    }

    /// Reports progress of the load `generation`, unless a later load replaced it.
    pub fn progress(&self, generation: u64, done: usize) {
        if self.generation.get_untracked() == generation {
            self.status.update(|status| {
                if let Status::Loading { done: d, .. } = status {
                    *d = done;
                }
            });
        }
    }

    /// Ends the load `generation` with a score table or the message of what went wrong.
    pub fn finish_scores(
        &self,
        generation: u64,
        source: String,
        result: Result<ScoreTable, Error>,
    ) {
        if self.generation.get_untracked() != generation {
            return;
        }
        match result {
            Ok(table) => {
                self.source_label.set(source);
                self.scores.set(Some(Arc::new(table)));
                self.status.set(Status::Idle);
                self.previous.set_value(None);
            }
            Err(err) => self.status.set(Status::Failed(err.to_string())),
        }
    }

    /// Ends the load `generation` with a study or the message of what went wrong.
    pub fn finish_load(&self, generation: u64, source: String, result: Result<Study, Error>) {
        if self.generation.get_untracked() != generation {
            return;
        }
        match result {
            Ok(study) => {
                // A study without the default arms (TREC, JSON Lines) starts on its own first two.
                let names: Vec<String> = study
                    .arm_names()
                    .into_iter()
                    .chain(
                        self.settings
                            .fusion()
                            .fusions()
                            .get_untracked()
                            .iter()
                            .map(|p| p.join("+")),
                    )
                    .collect();
                let defaults = StudyViewParams::default();
                let views = self.settings.study_views();
                for (side, field, fallback) in
                    [("left", views.left(), 0), ("right", views.right(), 1)]
                {
                    let current = field.get_untracked();
                    if names.contains(&current) {
                        continue;
                    }
                    if let Some(name) = names.get(fallback).or(names.first()) {
                        // Say so unless it was just the paper's default meeting another study.
                        if current != defaults.left && current != defaults.right {
                            self.notices.update(|n| {
                                n.push(format!(
                                    "{side} arm {current:?} is not in this study; showing {name}"
                                ))
                            });
                        }
                        field.set(name.clone());
                    }
                }
                self.issue_texts.set(BTreeMap::new());
                self.source_label.set(source);
                self.base.set(Some(Arc::new(study)));
                self.status.set(Status::Idle);
                self.previous.set_value(None);
            }
            Err(error) => self.status.set(Status::Failed(error.to_string())),
        }
    }

    /// Closes the study and returns to the home page; fusions go too, since they name its arms.
    pub fn close(&self) {
        self.set_aside();
        self.generation.update(|g| *g += 1);
        self.base.set(None);
        self.scores.set(None);
        self.printed.set(None);
        self.status.set(Status::Idle);
        self.settings.page().study().set(StudyRef::None);
        self.settings.fusion().fusions().set(Vec::new());
        self.settings.study_views().issue().set(None);
        self.settings.study_views().arms().set(Vec::new());
        self.settings.study_views().repo().set(None);
        self.settings.study_views().side().set(None);
        self.settings.study_views().sort().set(None);
        self.settings.scores().pairs().set(Vec::new());
        self.settings.scores().resamples().set(None);
        self.settings.scores().seed().set(None);
    }

    /// Keeps the open study (if one is open) as [`AppState::previous`].
    fn set_aside(&self) {
        let (base, scores) = (self.base.get_untracked(), self.scores.get_untracked());
        if base.is_some() || scores.is_some() {
            self.previous.set_value(Some(Previous {
                base,
                scores,
                source: self.source_label.get_untracked(),
                title: self.title.get_untracked(),
                printed: self.printed.get_untracked(),
                settings: self.settings.get_untracked(),
            }));
        }
    }

    /// Opens the study set aside again, as it was, with the settings it was viewed with.
    pub fn reopen_previous(&self) {
        let Some(previous) = self.previous.get_value() else {
            return;
        };
        self.generation.update(|g| *g += 1);
        self.settings.set(previous.settings);
        self.source_label.set(previous.source);
        self.title.set(previous.title);
        self.printed.set(previous.printed);
        self.base.set(previous.base);
        self.scores.set(previous.scores);
        self.status.set(Status::Idle);
        self.previous.set_value(None);
    }
}
