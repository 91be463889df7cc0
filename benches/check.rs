//! `maestro check` over generated projects of 10, 100 and 1,000 skills, each
//! skill with three tools, a memory.yml and tool_constraints.
//!
//! Run with `cargo bench --bench check`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn main() {
    divan::main();
}

/// Write a project with `n` skills under the system temp folder (once).
fn project(n: usize) -> PathBuf {
    static DIRS: OnceLock<std::sync::Mutex<Vec<(usize, PathBuf)>>> = OnceLock::new();
    let dirs = DIRS.get_or_init(Default::default);
    let mut dirs = dirs.lock().unwrap();
    if let Some((_, p)) = dirs.iter().find(|(k, _)| *k == n) {
        return p.clone();
    }
    let root = std::env::temp_dir().join(format!("maestro-bench-{n}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    generate(&root, n);
    dirs.push((n, root.clone()));
    root
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn generate(root: &Path, n: usize) {
    write(
        &root.join("agent.yml"),
        "agent:\n  name: Bench\n  persona: You help customers.\norchestrator:\n  model_group: default\n",
    );
    write(
        &root.join("integrations.yml"),
        "model_groups:\n  - id: default\n    models:\n      - provider: openai\n        model: gpt-4o-mini\n        api_key: ${OPENAI_API_KEY}\n",
    );
    write(
        &root.join("memory.yml"),
        "customer_id:\n  type: text\n  description: The customer.\n",
    );
    write(
        &root.join("tools/shared.py"),
        "from rasa.calm_v2.tools.decorator import ToolContext, tool\nfrom rasa.calm_v2.tools.result import ToolResult\n\n\n@tool(description=\"Fetch the customer\")\nasync def get_customer_info(context: ToolContext = None) -> ToolResult:\n    return ToolResult()\n",
    );
    for i in 0..n {
        let dir = root.join(format!("skills/skill_{i:04}"));
        write(
            &dir.join("skill.md"),
            &format!(
                "---\nname: Skill {i}\ndescription: Handle request number {i} for the customer\nimport_tools:\n  - get_customer_info\ntool_constraints:\n  - lookup_{i}:\n      requires: \"session.skill_{i:04}.ready\"\n  - commit_{i}:\n      requires: \"session.skill_{i:04}.confirmed == True\"\n      requires_confirmation:\n        enabled: true\n---\n\nHelp the customer with request {i}. Ask for the reference first.\n\nThen look it up and confirm before committing.\n"
            ),
        );
        write(
            &dir.join("memory.yml"),
            "schema:\n  public:\n    ready:\n      type: bool\n      llm_settable: true\n      description: Ready to look up.\n    confirmed:\n      type: bool\n      llm_settable: true\n      description: The customer confirmed.\n  private:\n    reference:\n      type: text\n    result:\n      type: text\n",
        );
        write(
            &dir.join("tools.py"),
            &format!(
                "from rasa.calm_v2.tools.decorator import ToolContext, tool\nfrom rasa.calm_v2.tools.result import ToolResult\n\nRESULT = \"result\"\n\n\n@tool(description=\"Look up request {i}\")\nasync def lookup_{i}(reference: str, limit: int = 10, context: ToolContext = None) -> ToolResult:\n    context.memory.set(\"reference\", reference)\n    return ToolResult(llm_response={{\"ok\": True}})\n\n\n@tool(description=\"Commit request {i}\")\nasync def commit_{i}(note: str | None = None, context: ToolContext = None) -> ToolResult:\n    context.memory.set(RESULT, \"done\")\n    return ToolResult()\n\n\n@tool(description=\"Summarise request {i}\")\nasync def summarise_{i}(tags: list[str], context: ToolContext = None) -> ToolResult:\n    return ToolResult(llm_response=context.memory.get(\"reference\"))\n"
            ),
        );
    }
}

#[divan::bench(args = [10, 100, 1000], sample_count = 10)]
fn check(bencher: divan::Bencher, skills: usize) {
    let root = project(skills);
    bencher.bench(|| {
        let outcome = maestro::check(&root).unwrap();
        assert!(
            outcome.findings.is_empty(),
            "{:?}",
            outcome.findings.first()
        );
        outcome.findings.len()
    });
}

/// `maestro train` (without the Python import probe) over the same
/// projects, forced to rebuild each time.
#[divan::bench(args = [10, 100, 1000], sample_count = 10)]
fn train(bencher: divan::Bencher, skills: usize) {
    let root = project(skills);
    let out =
        std::env::temp_dir().join(format!("maestro-bench-out-{skills}-{}", std::process::id()));
    let opts = maestro::train::TrainOptions {
        out_dir: Some(out.clone()),
        fixed_name: Some("bench".into()),
        force: true,
        import_check: false,
        ..Default::default()
    };
    bencher.bench(|| {
        let report = maestro::train::train(&root, &opts, &mut |_| {}).unwrap();
        assert!(matches!(
            report.status,
            maestro::train::Status::Written { .. }
        ));
    });
    let _ = std::fs::remove_dir_all(&out);
}
