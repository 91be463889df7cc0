//! The command line: exit codes, formats, colours, `explain`.

use std::process::Command;

fn maestro(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_maestro"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn the_example_project_is_clean() {
    let (code, out, _) = maestro(&["check", "examples/card_bank"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("No problems found"), "{out}");
}

#[test]
fn json_lists_every_problem_in_every_file_at_once() {
    let (code, out, _) = maestro(&["check", "tests/projects/broken", "--format", "json"]);
    assert_eq!(code, 1);
    let findings: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let mut seen: Vec<(String, String)> = findings
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["code"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    seen.sort();
    let expected = [
        ("agent.yml", "config.invalid_agent_section"),
        ("memory.yml", "yaml.syntax"),
        ("skills/lookup/skill.md", "yaml.ambiguous_scalar"),
        ("skills/lookup/tools.py", "tools.import_failed"),
        ("skills/lookup/tools.py", "tools.reserved_name"),
        ("skills/pay/skill.md", "import_tools.unknown_shared_tool"),
        ("skills/pay/skill.md", "skill.missing_description"),
        ("skills/pay/skill.md", "skill.unknown_frontmatter_key"),
        ("skills/pay/tools/pay.py", "tools.context_parameter"),
        ("skills/pay/tools/pay.py", "tools.missing_description"),
        ("skills/pay/tools/pay.py", "tools.not_async"),
        ("skills/pay/tools/pay.py", "tools.return_annotation"),
        ("skills/pay/tools/pay.py", "tools.undeclared_memory_write"),
        ("tools/customer.py", "tools.reserved_memory_write"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(seen, expected);
    for f in &findings {
        for key in ["line", "column", "end_line", "end_column"] {
            assert!(f[key].as_u64().is_some(), "{key} missing in {f}");
        }
    }
}

#[test]
fn output_is_deterministic() {
    let a = maestro(&["check", "tests/projects/broken", "--format", "json"]);
    let b = maestro(&["check", "tests/projects/broken", "--format", "json"]);
    assert_eq!(a, b);
}

#[test]
fn warnings_only_exit_zero_unless_denied() {
    let dir = "fixtures/yaml.ambiguous_scalar/fail";
    assert_eq!(maestro(&["check", dir]).0, 0);
    assert_eq!(maestro(&["check", dir, "--deny-warnings"]).0, 1);
}

#[test]
fn usage_and_io_failures_exit_two() {
    assert_eq!(maestro(&["check", "no/such/project"]).0, 2);
    assert_eq!(maestro(&["check", ".", "--format", "xml"]).0, 2);
    assert_eq!(maestro(&["explain", "tools.nope"]).0, 2);
}

#[test]
fn colours_only_when_asked_or_on_a_terminal() {
    let dir = "tests/projects/broken";
    let (_, plain, _) = maestro(&["check", dir]);
    assert!(!plain.contains('\u{1b}'), "pipes get no colour");
    let (_, coloured, _) = maestro(&["check", dir, "--color", "always"]);
    assert!(coloured.contains('\u{1b}'));
}

#[test]
fn explain_prints_the_rule_documentation() {
    let (code, out, _) = maestro(&["explain", "tools.undeclared_memory_write"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("# tools.undeclared_memory_write (error)"));
    assert!(out.contains("## Why it matters"));
    let (code, out, _) = maestro(&["explain"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), maestro::checks::RULES.len());
    let (_, _, err) = maestro(&["explain", "tools.undeclared_memory_writ"]);
    assert!(err.contains("did you mean `tools.undeclared_memory_write`"));
}

#[test]
fn sarif_is_valid_json_with_rules_and_results() {
    let (_, out, _) = maestro(&["check", "tests/projects/broken", "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(
        run["tool"]["driver"]["rules"].as_array().unwrap().len(),
        maestro::checks::RULES.len()
    );
    assert_eq!(run["results"].as_array().unwrap().len(), 14);
}

#[test]
fn a_literal_secret_is_never_echoed() {
    let dir = "fixtures/config.invalid_model_group_credentials/fail";
    let secret = std::fs::read_to_string(format!(
        "{}/{dir}/integrations.yml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert!(
        secret.contains("Xy7Qw2Lm9"),
        "the fixture holds a literal key"
    );
    for format in ["graphical", "json", "short", "github", "sarif"] {
        let (code, out, err) = maestro(&["check", dir, "--format", format]);
        assert_eq!(code, 1);
        assert!(
            !out.contains("Xy7Qw2") && !err.contains("Xy7Qw2"),
            "{format}: {out}"
        );
    }
}
