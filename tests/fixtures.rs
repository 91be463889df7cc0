//! Runs `check` on every project under `fixtures/` and `examples/` and
//! snapshots the rendered report and the JSON.
//!
//! Layout and what each kind of fixture must show:
//! - `examples/<name>/` and `fixtures/valid/<name>/`: no finding at all;
//! - `fixtures/<code>/fail*/`: at least one finding with that code;
//! - `fixtures/<code>/pass*/`: no finding with that code, and no error.

use maestro::render::{render, Format, RenderOptions, Summary};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn projects() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for base in ["examples", "fixtures/valid"] {
        for e in sorted_dirs(&root.join(base)) {
            out.push((format!("{base}/{}", name(&e)), e));
        }
    }
    for code_dir in sorted_dirs(&root.join("fixtures")) {
        if name(&code_dir) == "valid" {
            continue;
        }
        for e in sorted_dirs(&code_dir) {
            out.push((format!("fixtures/{}/{}", name(&code_dir), name(&e)), e));
        }
    }
    out
}

fn sorted_dirs(p: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(p)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

fn run(format: Format, outcome: &maestro::CheckOutcome) -> String {
    render(
        format,
        &outcome.findings,
        &outcome.model.db,
        maestro::checks::RULES,
        &Summary {
            files_checked: outcome.model.files_checked,
            elapsed: Duration::ZERO,
        },
        &RenderOptions {
            color: false,
            width: 100,
            tool_version: "test",
        },
    )
}

#[test]
fn fixtures() {
    let mut failures = Vec::new();
    let projects = projects();
    assert!(projects.len() > 10, "fixtures not found");
    for (label, dir) in projects {
        let outcome = maestro::check(&dir).expect("fixture loads");
        let codes: Vec<&str> = outcome.findings.iter().map(|f| f.code).collect();
        let errors = outcome
            .findings
            .iter()
            .filter(|f| f.severity == maestro::diagnostic::Severity::Error)
            .count();
        let parts: Vec<&str> = label.split('/').collect();
        if parts[0] == "examples" || parts[1] == "valid" {
            if !codes.is_empty() {
                failures.push(format!("{label}: expected no findings, got {codes:?}"));
            }
        } else {
            let code = parts[1];
            assert!(
                maestro::checks::rule(code).is_some(),
                "{label}: folder does not name a finding code"
            );
            if parts[2].starts_with("fail") && !codes.contains(&code) {
                failures.push(format!("{label}: expected `{code}`, got {codes:?}"));
            }
            if parts[2].starts_with("pass") && (codes.contains(&code) || errors > 0) {
                failures.push(format!(
                    "{label}: expected no `{code}` and no error, got {codes:?}"
                ));
            }
        }
        let snap = label.replace('/', "__");
        insta::assert_snapshot!(format!("{snap}__report"), run(Format::Graphical, &outcome));
        insta::assert_snapshot!(format!("{snap}__json"), run(Format::Json, &outcome));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_has_a_failing_and_a_passing_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    // Situations that cannot be a committed `check` fixture are built by
    // `tests/loader.rs` (a file over 8 MiB) and `tests/train.rs` (no Python).
    const BUILT_BY_TESTS: &[&str] = &["files.too_large", "train.import_probe_skipped"];
    let mut missing = Vec::new();
    for rule in maestro::checks::RULES {
        if BUILT_BY_TESTS.contains(&rule.code) {
            continue;
        }
        let dirs = sorted_dirs(&root.join(rule.code));
        for kind in ["fail", "pass"] {
            if !dirs.iter().any(|d| name(d).starts_with(kind)) {
                missing.push(format!("{} has no `{kind}` fixture", rule.code));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn every_rule_is_documented() {
    for rule in maestro::checks::RULES {
        let doc = rule.explain();
        for heading in [
            "## What it does",
            "## Why it matters",
            "## Example",
            "## Fix",
        ] {
            assert!(doc.contains(heading), "{} lacks `{heading}`", rule.code);
        }
    }
    let mut codes: Vec<&str> = maestro::checks::RULES.iter().map(|r| r.code).collect();
    codes.sort();
    let n = codes.len();
    codes.dedup();
    assert_eq!(n, codes.len(), "duplicate rule codes");
}
