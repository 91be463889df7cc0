//! Helpers shared by the integration tests (`mod common;`). Each test
//! crate uses some of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `python3` runs here (tests that need the worker skip without it).
pub fn python_available() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Copy a project folder, without its `models/` (trained archives).
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        if rel.starts_with("models") {
            continue;
        }
        let target = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The ids of assistant `tool_calls` that no `tool` message answers
/// (OpenAI-compatible servers reject such a history).
pub fn unanswered(history: &[maestro::runtime::types::ChatMessage]) -> Vec<String> {
    let answered: Vec<&str> = history
        .iter()
        .filter_map(|m| m.tool_call_id.as_deref())
        .collect();
    history
        .iter()
        .flat_map(|m| &m.tool_calls)
        .filter(|c| !answered.contains(&c.id.as_str()))
        .map(|c| c.id.clone())
        .collect()
}

/// Train `project` (relative to the repository root) without the import
/// probe and return the archive's bytes; `tag` keeps parallel test crates'
/// output folders apart.
pub fn trained_model(project: &str, tag: &str) -> Vec<u8> {
    use maestro::train::{train, Status, TrainOptions};
    let out = std::env::temp_dir().join(format!("maestro-{tag}-{}", std::process::id()));
    let opts = TrainOptions {
        out_dir: Some(out.clone()),
        fixed_name: Some("m".into()),
        import_check: false,
        force: true,
        ..Default::default()
    };
    let report = train(&root().join(project), &opts, &mut |_| {}).unwrap();
    let Status::Written { path, .. } = report.status else {
        panic!("{project} was not trained")
    };
    let bytes = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    bytes
}
