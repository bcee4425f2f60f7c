//! `rerank --coverage`: the pools' coverage audit over a question set (engine
//! `rerank::coverage`), each route's pool built once at the deepest depth asked for and cut at
//! every depth, with the plan each question's run used.

use routelens_engine::corpus::file_texts::FileTexts;
use routelens_engine::load::question_set::Question;
use routelens_engine::remote::rerank::coverage::{coverage, target_blocks, Audited, CoverageRow};
use routelens_engine::remote::rerank::plan::Plan;
use routelens_engine::remote::rerank::pools::{Candidate, PoolSettings};
use routelens_engine::remote::rerank::run::{
    rerank_question, PreparedTexts, RerankSettings, RerankerChoice,
};
use routelens_engine::retrieval::lexical::chunkings::OpenChunkings;
use routelens_engine::{Cell, GoldSpan, Table};

use crate::failure::Failure;

/// One route's audit.
#[derive(Debug, serde::Serialize)]
pub struct RouteCoverage {
    route: &'static str,
    rows: Vec<CoverageRow>,
}

/// The audit of every route of `settings` at `depths`; `plans[i]` is the plan question `i` ran.
pub fn audit(
    questions: &[Question],
    plans: &[Option<Plan>],
    settings: &RerankSettings,
    (open, texts, terms): (&OpenChunkings, &FileTexts, &PreparedTexts),
    depths: &[usize],
) -> Result<Vec<RouteCoverage>, Failure> {
    if depths.is_empty() || depths.contains(&0) {
        return Err(Failure::Usage(
            "--coverage: depths of at least 1, e.g. 50,100,200,500,1000".into(),
        ));
    }
    let deepest = depths.iter().copied().max().unwrap_or(1);
    let blocks: Vec<Vec<GoldSpan>> = questions
        .iter()
        .map(|q| target_blocks(&q.gold_lines, &q.gold))
        .collect();
    let mut out = Vec::new();
    for &route in &settings.routes {
        let mut pools: Vec<Vec<Candidate>> = Vec::new();
        for (question, plan) in questions.iter().zip(plans) {
            let deep = RerankSettings {
                routes: vec![route],
                rerankers: vec![RerankerChoice::None],
                plan: plan.clone(),
                pool: PoolSettings {
                    depth: deepest,
                    ..settings.pool
                },
                ..settings.clone()
            };
            let run = rerank_question(&question.question, open, texts, terms, (&deep, None))?;
            pools.push(
                run.arms
                    .into_iter()
                    .next()
                    .map(|a| a.candidates)
                    .unwrap_or_default(),
            );
        }
        let audited: Vec<Audited> = pools
            .iter()
            .zip(&blocks)
            .map(|(pool, blocks)| Audited { pool, blocks })
            .collect();
        out.push(RouteCoverage {
            route: route.name(),
            rows: coverage(&audited, depths),
        });
    }
    Ok(out)
}

/// The audit as text tables, one per route.
pub fn coverage_tables(audits: &[RouteCoverage]) -> Vec<Table> {
    audits
        .iter()
        .map(|a| {
            let mut table = Table::new(
                &format!(
                    "Coverage of the {} pool: target blocks any candidate's visible lines overlap",
                    a.route
                ),
                &[
                    "depth",
                    "issues",
                    "blocks",
                    "covered",
                    "share",
                    "mean share",
                    "with none",
                    "with all",
                ],
            );
            for r in &a.rows {
                table.rows.push(vec![
                    Cell::count(r.depth),
                    Cell::count(r.issues),
                    Cell::count(r.blocks),
                    Cell::count(r.covered),
                    Cell::number(r.share, 3),
                    Cell::number(r.mean_share, 3),
                    Cell::count(r.with_none),
                    Cell::count(r.with_all),
                ]);
            }
            table
        })
        .collect()
}
