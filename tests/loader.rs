//! Loader situations that cannot be committed as fixtures.

use std::path::PathBuf;

fn temp_project(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("maestro-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("skills/weather")).unwrap();
    std::fs::write(
        dir.join("skills/weather/skill.md"),
        "---\ndescription: Answer questions about the weather\n---\n\nHelp.\n",
    )
    .unwrap();
    dir
}

#[test]
fn files_over_the_size_limit_are_reported_and_not_read() {
    let dir = temp_project("too-large");
    let big = vec![b'#'; (maestro::loader::MAX_FILE_SIZE + 1) as usize];
    std::fs::write(dir.join("skills/weather/tools.py"), big).unwrap();
    let outcome = maestro::check(&dir).unwrap();
    let f = outcome
        .findings
        .iter()
        .find(|f| f.code == "files.too_large")
        .expect("files.too_large reported");
    assert_eq!(f.path.as_deref(), Some("skills/weather/tools.py"));
    assert!(outcome.model.db.find("skills/weather/tools.py").is_none());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_at_the_size_limit_is_read() {
    let dir = temp_project("at-limit");
    let mut text = vec![b'#'; maestro::loader::MAX_FILE_SIZE as usize];
    text[maestro::loader::MAX_FILE_SIZE as usize - 1] = b'\n';
    std::fs::write(dir.join("skills/weather/tools.py"), text).unwrap();
    let outcome = maestro::check(&dir).unwrap();
    assert!(outcome.findings.iter().all(|f| f.code != "files.too_large"));
    assert!(outcome.model.db.find("skills/weather/tools.py").is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_root_is_a_load_error() {
    let err = maestro::check(std::path::Path::new("/nonexistent/maestro/project")).unwrap_err();
    assert!(err.to_string().contains("cannot read project folder"));
}
