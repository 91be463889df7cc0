//! Runtime overhead: one engine turn without LLM or Python (the scripted
//! replies and tool outcomes are fed directly), and a warm round trip of a
//! Python tool call through the worker.
//!
//! Run with `cargo bench --bench runtime`.

use maestro::runtime::engine::{Conversation, Engine, Input, Next};
use maestro::runtime::types::{ChatResponse, ToolCall, ToolHost, ToolOutcome};
use serde_json::{json, Value};
use std::sync::OnceLock;

fn main() {
    divan::main();
}

fn model() -> &'static maestro::runtime::LoadedModel {
    static MODEL: OnceLock<maestro::runtime::LoadedModel> = OnceLock::new();
    MODEL.get_or_init(|| {
        let out = std::env::temp_dir().join(format!("maestro-bench-rt-{}", std::process::id()));
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/card_bank");
        let opts = maestro::train::TrainOptions {
            out_dir: Some(out.clone()),
            fixed_name: Some("m".into()),
            force: true,
            import_check: false,
            ..Default::default()
        };
        maestro::train::train(&root, &opts, &mut |_| {}).unwrap();
        let bytes = std::fs::read(out.join("m.tar.gz")).unwrap();
        maestro::runtime::load_model(&bytes).unwrap()
    })
}

fn call(name: &str, args: Value) -> ChatResponse {
    ChatResponse {
        content: None,
        tool_calls: vec![ToolCall {
            id: format!("c_{name}"),
            name: name.into(),
            arguments: args,
        }],
    }
}

/// A turn: user message, activate, set_fields, a text answer.
#[divan::bench]
fn engine_turn(bencher: divan::Bencher) {
    let m = model();
    let engine = Engine::new(m.manifest.clone(), m.knowledge.clone());
    bencher.bench(|| {
        let mut conv = Conversation::default();
        engine.step(&mut conv, Input::User("I lost my card".into()));
        engine.step(
            &mut conv,
            Input::Llm(call("activate", json!({"flow_id": "card_replace"}))),
        );
        engine.step(
            &mut conv,
            Input::Llm(call("set_fields", json!({"order_confirmed": true}))),
        );
        let out = engine.step(
            &mut conv,
            Input::Llm(ChatResponse {
                content: Some("Which card?".into()),
                tool_calls: vec![],
            }),
        );
        assert_eq!(out.next, Next::WaitForUser);
    });
}

struct NullHost;

impl ToolHost for NullHost {
    fn memory_get(&mut self, _: &str) -> Value {
        Value::Null
    }
    fn memory_set(&mut self, _: &str, _: Value) -> Result<(), String> {
        Ok(())
    }
    fn send(&mut self, _: &str) {}
    fn is_cancelled(&mut self) -> bool {
        false
    }
}

/// A warm call of `check_balance` (which reads and writes memory) in the
/// Python worker.
#[divan::bench(sample_count = 50)]
fn warm_python_tool_call(bencher: divan::Bencher) {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("python3 not found: skipped");
        return;
    }
    let m = model();
    let dir = maestro::runtime::worker::extract_package(&m.files, &m.manifest.fingerprint).unwrap();
    let mut worker = maestro::runtime::worker::Worker::new("python3", dir);
    let args = json!({"account_id": "A-1"});
    let ctx = json!({"skill_id": "check_balance", "events": [], "llm_config": {}, "references_index": null});
    let timeout = std::time::Duration::from_secs(10);
    // Warm up: start the process and import the modules.
    let first = worker.call(
        "skills/check_balance/tools.py",
        "check_balance",
        &args,
        &ctx,
        timeout,
        &mut NullHost,
    );
    assert!(matches!(first, ToolOutcome::Ok(_)), "{first:?}");
    bencher.bench_local(|| {
        worker.call(
            "skills/check_balance/tools.py",
            "check_balance",
            &args,
            &ctx,
            timeout,
            &mut NullHost,
        )
    });
}
