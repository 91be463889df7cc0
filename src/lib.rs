//! maestro: validator, trainer and runtime for skill-based LLM agent
//! projects. See `ARCHITECTURE.md` for the bird's-eye view.
//!
//! The check pipeline is: [`loader::load`] (the only file I/O) →
//! [`parse::parse_all`] (each file on its own, in parallel) →
//! [`model::Model::build`] (one semantic model) → [`checks::run`].

pub mod archive;
pub mod checks;
pub mod condition;
pub mod config;
pub mod diagnostic;
pub mod inspect;
pub mod knowledge;
pub mod loader;
pub mod manifest;
pub mod memory;
pub mod model;
pub mod parse;
pub mod probe;
pub mod python;
pub mod render;
pub mod responses;
pub mod runtime;
pub mod skill_md;
pub mod source;
pub mod suggest;
pub mod support;
pub mod train;
pub mod yaml;

use diagnostic::Finding;
use std::path::Path;
use std::time::{Duration, Instant};

/// The result of checking one project.
#[derive(Debug)]
pub struct CheckOutcome {
    pub model: model::Model,
    /// Every finding, sorted by file, position and code.
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
}

/// Load, parse, resolve and check the project at `root`.
pub fn check(root: &Path) -> Result<CheckOutcome, loader::LoadError> {
    let start = Instant::now();
    Ok(check_loaded(loader::load(root)?, start))
}

/// Parse, resolve and check an already loaded project.
pub fn check_loaded(mut loaded: loader::LoadedProject, start: Instant) -> CheckOutcome {
    let mut findings = std::mem::take(&mut loaded.findings);
    let (parsed, mut parse_findings) = parse::parse_all(&loaded);
    findings.append(&mut parse_findings);
    let model = model::Model::build(loaded, parsed);
    findings.extend(checks::run(&model));
    diagnostic::sort_findings(&mut findings, &model.db);
    CheckOutcome {
        model,
        findings,
        elapsed: start.elapsed(),
    }
}
