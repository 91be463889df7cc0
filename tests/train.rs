//! `maestro train` and `maestro inspect`: archive contents, reproducible
//! rebuilds, skipping unchanged projects, and clear errors on bad archives.

mod common;

use common::copy_dir;
use maestro::train::{train, Status, TrainOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("maestro-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn opts(out: &Path, name: &str) -> TrainOptions {
    TrainOptions {
        out_dir: Some(out.to_path_buf()),
        fixed_name: Some(name.into()),
        ..Default::default()
    }
}

fn written(status: &Status) -> &Path {
    match status {
        Status::Written { path, .. } => path,
        other => panic!("expected a written model, got {other:?}"),
    }
}

#[test]
fn archive_contents_of_the_example_projects() {
    for project in [
        "examples/card_bank",
        "fixtures/valid/outage",
        "fixtures/valid/travel",
    ] {
        let out = temp_dir(&project.replace('/', "-"));
        let report = train(&example(project), &opts(&out, "model"), &mut |_| {}).unwrap();
        assert!(
            report.check.findings.is_empty(),
            "{:?}",
            report.check.findings
        );
        let bytes = std::fs::read(written(&report.status)).unwrap();
        let model = maestro::inspect::read(&bytes).unwrap();
        let files: Vec<String> = model
            .files
            .iter()
            .map(|(p, n)| format!("{p} ({n} bytes)"))
            .collect();
        let name = project.replace('/', "__");
        insta::assert_snapshot!(format!("{name}__files"), files.join("\n"));
        insta::assert_json_snapshot!(format!("{name}__manifest"), model.manifest);
        std::fs::remove_dir_all(&out).unwrap();
    }
}

#[test]
fn a_rebuild_is_byte_identical() {
    let out = temp_dir("rebuild");
    let project = example("examples/card_bank");
    let first = train(&project, &opts(&out, "a"), &mut |_| {}).unwrap();
    let mut again = opts(&out, "b");
    again.force = true;
    let second = train(&project, &again, &mut |_| {}).unwrap();
    let a = std::fs::read(written(&first.status)).unwrap();
    let b = std::fs::read(written(&second.status)).unwrap();
    assert_eq!(a, b);
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn an_unchanged_project_is_not_written_again() {
    let out = temp_dir("unchanged");
    let project = temp_dir("unchanged-project");
    copy_dir(&example("examples/card_bank"), &project);
    let first = train(&project, &opts(&out, "one"), &mut |_| {}).unwrap();
    let path = written(&first.status).to_path_buf();
    let second = train(&project, &opts(&out, "two"), &mut |_| {}).unwrap();
    assert_eq!(second.status, Status::Unchanged { path });
    assert!(!out.join("two.tar.gz").exists());
    // A change in any input makes a new model.
    std::fs::write(project.join("references/new.md"), "# New\n\nFresh facts.\n").unwrap();
    let third = train(&project, &opts(&out, "three"), &mut |_| {}).unwrap();
    assert_ne!(third.fingerprint, first.fingerprint);
    written(&third.status);
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::remove_dir_all(&project).unwrap();
}

#[test]
fn errors_block_training() {
    let out = temp_dir("blocked");
    let report = train(
        &example("tests/projects/broken"),
        &opts(&out, "x"),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(report.status, Status::Blocked);
    assert!(!out.join("x.tar.gz").exists());
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_missing_python_skips_the_probe_with_a_warning() {
    let out = temp_dir("no-python");
    let mut o = opts(&out, "m");
    o.python = "/nonexistent/python3".into();
    let report = train(&example("examples/card_bank"), &o, &mut |_| {}).unwrap();
    let codes: Vec<&str> = report.check.findings.iter().map(|f| f.code).collect();
    assert_eq!(codes, ["train.import_probe_skipped"]);
    written(&report.status);
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn the_import_probe_reports_modules_that_fail_in_python() {
    let project = temp_dir("probe-project");
    copy_dir(&example("examples/card_bank"), &project);
    // Statically fine, but raises when imported.
    std::fs::write(
        project.join("tools/customer.py"),
        "from rasa.calm_v2.tools.decorator import ToolContext, tool\nfrom rasa.calm_v2.tools.result import ToolResult\nimport no_such_package_anywhere\n\n\n@tool(description=\"Fetch the customer\")\nasync def get_customer_info(context: ToolContext = None) -> ToolResult:\n    return ToolResult()\n",
    )
    .unwrap();
    let out = temp_dir("probe-out");
    let report = train(&project, &opts(&out, "m"), &mut |_| {}).unwrap();
    if Command::new("python3").arg("--version").output().is_err() {
        return;
    }
    assert_eq!(report.status, Status::Blocked);
    let f = &report.check.findings[0];
    assert_eq!(f.code, "tools.import_failed");
    assert!(
        f.message
            .contains("No module named 'no_such_package_anywhere'"),
        "{}",
        f.message
    );
    let line = report
        .check
        .model
        .db
        .get(f.primary.as_ref().unwrap().file)
        .line_col(f.primary.as_ref().unwrap().span.start)
        .0;
    assert_eq!(line, 3);
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::remove_dir_all(&project).unwrap();
}

#[test]
fn inspect_rejects_corrupted_and_foreign_archives() {
    let dir = temp_dir("inspect");
    let bin = env!("CARGO_BIN_EXE_maestro");
    let cases: [(&str, &[u8], &str); 3] = [
        (
            "foreign.tar.gz",
            b"PK\x03\x04 this is a zip",
            "not a gzip-compressed archive",
        ),
        ("empty.tar.gz", &[], "not a gzip-compressed archive"),
        (
            "truncated.tar.gz",
            &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255, 1, 2],
            "corrupted",
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = Command::new(bin)
            .arg("inspect")
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{name}: {err}");
    }
    // A valid archive without a manifest.
    let path = dir.join("nomanifest.tar.gz");
    std::fs::write(
        &path,
        maestro::archive::write([("a.txt".to_string(), b"x".to_vec())]),
    )
    .unwrap();
    let out = Command::new(bin)
        .arg("inspect")
        .arg(&path)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no manifest.json"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_cli_trains_inspects_and_skips() {
    let out = temp_dir("cli");
    let bin = env!("CARGO_BIN_EXE_maestro");
    let project = example("examples/card_bank");
    let run = |extra: &[&str]| {
        Command::new(bin)
            .arg("train")
            .arg(&project)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let first = run(&["--fixed-model-name", "m"]);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(String::from_utf8_lossy(&first.stderr).contains("Trained model written to"));
    let second = run(&[]);
    assert_eq!(second.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&second.stderr).contains("Nothing changed"));
    let inspect = Command::new(bin)
        .arg("inspect")
        .arg(out.join("m.tar.gz"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(
        text.contains("tool lock_card (requires session.project.selected_card_id)"),
        "{text}"
    );
    let json = Command::new(bin)
        .args(["inspect", "--json"])
        .arg(out.join("m.tar.gz"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["format_version"], 1);
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn the_checked_in_manifest_schema_is_current() {
    let path = example("schema/manifest.schema.json");
    let current = maestro::manifest::json_schema();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &current).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == current,
        "schema/manifest.schema.json is out of date: run `UPDATE_SCHEMA=1 cargo test --test train`"
    );
}
