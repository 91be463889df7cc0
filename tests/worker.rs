//! The Python tool worker end to end (needs `python3`; skipped with a note
//! when it is absent).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use maestro::runtime::types::{ToolHost, ToolOutcome};
use maestro::runtime::worker::{extract_package_in, Worker};
use serde_json::{json, Value};

fn python() -> Option<&'static str> {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("note: python3 is not available; skipping the worker test");
        return None;
    }
    Some("python3")
}

const HEADER: &str = "import asyncio\n\
from rasa.calm_v2.tools.decorator import ToolContext, MemoryWriteError, tool\n\
from rasa.calm_v2.tools.result import ToolResult\n";

/// A package folder with `skills/s/tools.py` = HEADER + `tools`, plus extra files.
fn package(name: &str, tools: &str, extra: &[(&str, &str)]) -> PathBuf {
    let mut files = BTreeMap::new();
    files.insert(
        "skills/s/tools.py".to_string(),
        format!("{HEADER}{tools}").into_bytes(),
    );
    for (path, text) in extra {
        files.insert(path.to_string(), text.as_bytes().to_vec());
    }
    let base = std::env::temp_dir().join(format!("maestro-worker-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(base.join(name));
    extract_package_in(&base, &files, name).unwrap()
}

#[derive(Default)]
struct Host {
    memory: BTreeMap<String, Value>,
    sets: Vec<(String, Value)>,
    sent: Vec<String>,
    /// Writes of these names fail with this reason.
    deny: Vec<(String, String)>,
    cancelled: bool,
    /// Cancel the turn when the tool sends this text.
    cancel_on_send: Option<String>,
    /// Cancel the turn when the tool writes this memory entry.
    cancel_on_set: Option<String>,
    /// Cancel the turn at this moment.
    cancel_at: Option<Instant>,
}

impl ToolHost for Host {
    fn memory_get(&mut self, name: &str) -> Value {
        self.memory.get(name).cloned().unwrap_or(Value::Null)
    }
    fn memory_set(&mut self, name: &str, value: Value) -> Result<(), String> {
        if let Some((_, reason)) = self.deny.iter().find(|(n, _)| n == name) {
            return Err(reason.clone());
        }
        if self.cancel_on_set.as_deref() == Some(name) {
            self.cancelled = true;
        }
        self.sets.push((name.to_string(), value.clone()));
        self.memory.insert(name.to_string(), value);
        Ok(())
    }
    fn send(&mut self, text: &str) {
        self.sent.push(text.to_string());
        if self.cancel_on_send.as_deref() == Some(text) {
            self.cancelled = true;
        }
    }
    fn is_cancelled(&mut self) -> bool {
        if self.cancel_at.is_some_and(|t| Instant::now() >= t) {
            self.cancelled = true;
        }
        self.cancelled
    }
}

const SECS: Duration = Duration::from_secs(10);

fn ctx() -> Value {
    json!({"skill_id": "s", "events": [{"event": "user", "text": "hi"}], "llm_config": {"model": "m"}, "references_index": null})
}

fn call(worker: &mut Worker, function: &str, args: Value, host: &mut Host) -> ToolOutcome {
    worker.call("skills/s/tools.py", function, &args, &ctx(), SECS, host)
}

#[test]
fn returns_the_llm_response_and_reads_the_context() {
    let Some(py) = python() else { return };
    let dir = package(
        "result",
        r#"
@tool(description="d")
async def look(account_id: str, context: ToolContext = None) -> ToolResult:
    events = context.events
    events.append("mine")
    print("a print does not disturb the protocol")
    return ToolResult(llm_response={
        "account": account_id,
        "events": len(context.events),
        "model": context.model.llm_config["model"],
        "index": context.model.references_index,
        "cancelled": context.is_cancelled,
        "skill": context.skill_id,
        "odd": [1.5, {1: "a"}, None],
    })

@tool(description="d")
async def nothing(context: ToolContext = None) -> ToolResult:
    return ToolResult()
"#,
        &[],
    );
    let mut worker = Worker::new(py, &dir);
    assert_eq!(worker.pid(), None, "nothing runs before the first call");
    let mut host = Host::default();
    let out = call(&mut worker, "look", json!({"account_id": "A1"}), &mut host);
    assert_eq!(
        out,
        ToolOutcome::Ok(json!({
            "account": "A1", "events": 1, "model": "m", "index": null,
            "cancelled": false, "skill": "s", "odd": [1.5, {"1": "a"}, null]
        }))
    );
    assert_eq!(
        call(&mut worker, "nothing", json!({}), &mut host),
        ToolOutcome::Ok(Value::Null)
    );
    assert!(worker.load_errors().is_empty());
    assert_eq!(worker.starts(), 1);
    let out = call(&mut worker, "missing", json!({}), &mut host);
    assert_eq!(
        out,
        ToolOutcome::Error("Unknown tool 'missing' — no handler registered.".into())
    );
}

#[test]
fn memory_and_send_go_through_the_host() {
    let Some(py) = python() else { return };
    let dir = package(
        "memory",
        r#"
@tool(description="d")
async def bump(context: ToolContext = None) -> ToolResult:
    n = context.memory.get("count", 0)
    missing = context.memory.get("nothing", "fallback")
    context.memory.set("count", n + 1)
    await context.send(f"count is {n + 1}")
    return ToolResult(llm_response={"n": n + 1, "missing": missing})

@tool(description="d")
async def forbidden(context: ToolContext = None) -> ToolResult:
    try:
        context.memory.set("locked", 1)
    except MemoryWriteError as e:
        await context.send(f"caught: {e}")
        raise
    return ToolResult()
"#,
        &[],
    );
    let mut worker = Worker::new(py, &dir);
    let mut host = Host::default();
    host.memory.insert("count".into(), json!(41));
    host.deny.push((
        "locked".into(),
        "'locked' is immutable and already set".into(),
    ));
    let out = call(&mut worker, "bump", json!({}), &mut host);
    assert_eq!(
        out,
        ToolOutcome::Ok(json!({"n": 42, "missing": "fallback"}))
    );
    assert_eq!(host.sets, vec![("count".to_string(), json!(42))]);
    assert_eq!(host.sent, vec!["count is 42".to_string()]);
    let out = call(&mut worker, "forbidden", json!({}), &mut host);
    assert_eq!(
        out,
        ToolOutcome::Error("MemoryWriteError: 'locked' is immutable and already set".into())
    );
    assert_eq!(
        host.sent.last().map(String::as_str),
        Some("caught: 'locked' is immutable and already set")
    );
}

#[test]
fn failures_become_error_outcomes() {
    let Some(py) = python() else { return };
    let dir = package(
        "errors",
        r#"
@tool(description="d")
async def boom(context: ToolContext = None) -> ToolResult:
    raise ValueError("no such account")

@tool(description="d")
async def plain(context: ToolContext = None) -> ToolResult:
    return {"balance": 1}

@tool(description="d")
def sync_tool(context: ToolContext = None) -> ToolResult:
    return ToolResult(llm_response=1)

@tool(description="d")
async def exits(context: ToolContext = None) -> ToolResult:
    raise SystemExit(3)

@tool(description="d")
async def cyclic(context: ToolContext = None) -> ToolResult:
    a = []
    a.append(a)
    return ToolResult(llm_response=a)
"#,
        &[],
    );
    let mut worker = Worker::new(py, &dir);
    let mut host = Host::default();
    assert_eq!(
        call(&mut worker, "boom", json!({}), &mut host),
        ToolOutcome::Error("ValueError: no such account".into())
    );
    let waited = Instant::now();
    while !worker.stderr_tail().contains("ValueError: no such account")
        && waited.elapsed() < Duration::from_secs(2)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(worker.stderr_tail().contains("Traceback"));
    assert_eq!(
        call(&mut worker, "plain", json!({}), &mut host),
        ToolOutcome::Error("Tool 'plain' must return a ToolResult, got dict.".into())
    );
    let ToolOutcome::Error(e) = call(&mut worker, "sync_tool", json!({}), &mut host) else {
        panic!("a sync tool is an error");
    };
    assert!(
        e.starts_with("Tool 'sync_tool' must be an async function"),
        "{e}"
    );
    assert_eq!(
        call(&mut worker, "exits", json!({}), &mut host),
        ToolOutcome::Error("SystemExit: 3".into())
    );
    assert_eq!(
        call(&mut worker, "cyclic", json!({}), &mut host),
        ToolOutcome::Error("Tool 'cyclic' returned a non-serializable result.".into())
    );
    let ToolOutcome::Error(e) = call(&mut worker, "boom", json!({"extra": 1}), &mut host) else {
        panic!("unexpected arguments are an error");
    };
    assert!(e.starts_with("TypeError"), "{e}");
    // Still the same process: none of this killed the worker.
    assert_eq!(worker.starts(), 1);
}

#[test]
fn a_timeout_cancels_the_tool_and_the_worker_stays_usable() {
    let Some(py) = python() else { return };
    let dir = package(
        "timeout",
        r#"
@tool(description="d")
async def slow(context: ToolContext = None) -> ToolResult:
    await asyncio.sleep(30)
    return ToolResult(llm_response="late")

@tool(description="d")
async def quick(context: ToolContext = None) -> ToolResult:
    return ToolResult(llm_response="quick")
"#,
        &[],
    );
    let mut worker = Worker::new(py, &dir);
    let mut host = Host::default();
    let started = Instant::now();
    let out = worker.call(
        "skills/s/tools.py",
        "slow",
        &json!({}),
        &ctx(),
        Duration::from_millis(300),
        &mut host,
    );
    assert_eq!(out, ToolOutcome::Timeout(0.3));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        call(&mut worker, "quick", json!({}), &mut host),
        ToolOutcome::Ok(json!("quick"))
    );
    assert_eq!(worker.starts(), 1, "the cancel was honoured, no restart");
}

#[test]
fn a_tool_stuck_in_sync_code_is_killed_and_replaced() {
    let Some(py) = python() else { return };
    let dir = package(
        "stuck",
        r#"
import time

@tool(description="d")
async def stuck(context: ToolContext = None) -> ToolResult:
    time.sleep(30)
    return ToolResult()

@tool(description="d")
async def quick(context: ToolContext = None) -> ToolResult:
    return ToolResult(llm_response="quick")
"#,
        &[],
    );
    let mut worker = Worker::new(py, &dir);
    let mut host = Host::default();
    let out = worker.call(
        "skills/s/tools.py",
        "stuck",
        &json!({}),
        &ctx(),
        Duration::from_millis(200),
        &mut host,
    );
    assert_eq!(out, ToolOutcome::Timeout(0.2));
    assert_eq!(
        call(&mut worker, "quick", json!({}), &mut host),
        ToolOutcome::Ok(json!("quick"))
    );
    assert_eq!(worker.starts(), 2);
}

#[test]
fn cancellation_mid_await_keeps_memory_written_before() {
    let Some(py) = python() else { return };
    let dir = package(
        "cancel",
        r#"
@tool(description="d")
async def transfer(context: ToolContext = None) -> ToolResult:
    context.memory.set("idempotency_key", "k1")
    await context.send("working")
    await asyncio.sleep(30)
    return ToolResult(llm_response="done")

@tool(description="d")
async def careful(context: ToolContext = None) -> ToolResult:
    context.memory.set("started", True)
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        context.memory.set("cleaned", context.is_cancelled)
        await context.send("dropped after cancel")
        raise
    return ToolResult(llm_response="done")

@tool(description="d")
async def swallow(context: ToolContext = None) -> ToolResult:
    context.memory.set("started", True)
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        return ToolResult(llm_response="discarded")
    return ToolResult(llm_response="done")
"#,
        &[],
    );
    let mut worker = Worker::new(py, &dir);

    let mut host = Host {
        cancel_on_send: Some("working".into()),
        ..Host::default()
    };
    let started = Instant::now();
    assert_eq!(
        call(&mut worker, "transfer", json!({}), &mut host),
        ToolOutcome::Cancelled
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        host.sets,
        vec![("idempotency_key".to_string(), json!("k1"))]
    );

    // The cancel reaches the tool at its next `await` (a synchronous
    // `memory.set` is not one), here the sleep inside the `try`.
    let mut host = Host {
        cancel_on_set: Some("started".into()),
        ..Host::default()
    };
    assert_eq!(
        call(&mut worker, "careful", json!({}), &mut host),
        ToolOutcome::Cancelled
    );
    assert_eq!(
        host.sets,
        vec![
            ("started".to_string(), json!(true)),
            ("cleaned".to_string(), json!(true))
        ]
    );
    assert!(host.sent.is_empty(), "send is dropped once cancelled");

    let mut host = Host {
        cancel_on_set: Some("started".into()),
        ..Host::default()
    };
    assert_eq!(
        call(&mut worker, "swallow", json!({}), &mut host),
        ToolOutcome::Cancelled
    );

    // A turn cancelled by time (no send) works the same, and the worker
    // keeps serving.
    let mut host = Host {
        cancel_at: Some(Instant::now() + Duration::from_millis(200)),
        ..Host::default()
    };
    assert_eq!(
        call(&mut worker, "transfer", json!({}), &mut host),
        ToolOutcome::Cancelled
    );
    assert_eq!(worker.starts(), 1);

    // An already cancelled turn does not start the tool.
    let mut host = Host {
        cancelled: true,
        ..Host::default()
    };
    assert_eq!(
        call(&mut worker, "transfer", json!({}), &mut host),
        ToolOutcome::Cancelled
    );
    assert!(host.sets.is_empty());
}

#[test]
fn a_killed_worker_is_restarted_by_the_next_call() {
    let Some(py) = python() else { return };
    let dir = package(
        "restart",
        r#"
import os

@tool(description="d")
async def pid(context: ToolContext = None) -> ToolResult:
    return ToolResult(llm_response=os.getpid())

@tool(description="d")
async def die(context: ToolContext = None) -> ToolResult:
    os._exit(1)
"#,
        &[],
    );
    let mut worker = Worker::new(py, &dir);
    let mut host = Host::default();
    let ToolOutcome::Ok(first) = call(&mut worker, "pid", json!({}), &mut host) else {
        panic!("pid works");
    };
    assert_eq!(first.as_u64(), worker.pid().map(u64::from));
    let status = Command::new("kill")
        .arg("-9")
        .arg(worker.pid().unwrap().to_string())
        .status()
        .unwrap();
    assert!(status.success());
    std::thread::sleep(Duration::from_millis(200));
    let ToolOutcome::Ok(second) = call(&mut worker, "pid", json!({}), &mut host) else {
        panic!("the worker restarts");
    };
    assert_ne!(first, second);
    assert_eq!(worker.starts(), 2);

    // A worker that dies during a call reports it, and the next call
    // starts a new one.
    let ToolOutcome::Error(e) = call(&mut worker, "die", json!({}), &mut host) else {
        panic!("dying is an error");
    };
    assert!(e.contains("stopped while running tool 'die'"), "{e}");
    assert!(matches!(
        call(&mut worker, "pid", json!({}), &mut host),
        ToolOutcome::Ok(_)
    ));
    assert_eq!(worker.starts(), 3);
}

#[test]
fn lib_imports_and_both_import_paths_work() {
    let Some(py) = python() else { return };
    let dir = package(
        "imports",
        r#"
from lib.wallet_data import WALLETS

@tool(description="d")
async def wallets(context: ToolContext = None) -> ToolResult:
    return ToolResult(llm_response=WALLETS)
"#,
        &[
            ("lib/__init__.py", ""),
            ("lib/wallet_data.py", "WALLETS = ['w1', 'w2']\n"),
            (
                "tools/shared.py",
                "from rasa.mantle.tools.decorator import ToolContext, tool\n\
                 from rasa.mantle.tools.result import ToolResult\n\
                 from lib.wallet_data import WALLETS\n\n\
                 @tool(description='d')\n\
                 async def count(context: ToolContext = None) -> ToolResult:\n    \
                     return ToolResult(llm_response=len(WALLETS))\n",
            ),
            ("tools/broken.py", "raise ImportError('missing backend')\n"),
        ],
    );
    let mut worker = Worker::new(py, &dir);
    let mut host = Host::default();
    assert_eq!(
        call(&mut worker, "wallets", json!({}), &mut host),
        ToolOutcome::Ok(json!(["w1", "w2"]))
    );
    assert_eq!(
        worker.call(
            "tools/shared.py",
            "count",
            &json!({}),
            &ctx(),
            SECS,
            &mut host
        ),
        ToolOutcome::Ok(json!(2))
    );
    assert_eq!(worker.load_errors().len(), 1);
    assert_eq!(worker.load_errors()[0].path, "tools/broken.py");
    assert_eq!(
        worker.load_errors()[0].error,
        "ImportError: missing backend"
    );
    assert_eq!(
        worker.call("../outside.py", "x", &json!({}), &ctx(), SECS, &mut host),
        ToolOutcome::Error("Tool module '../outside.py' is outside the package.".into())
    );
    assert_eq!(
        worker.call("tools/broken.py", "x", &json!({}), &ctx(), SECS, &mut host),
        ToolOutcome::Error(
            "Tool module 'tools/broken.py' could not be imported: ImportError: missing backend"
                .into()
        )
    );
}

#[test]
fn modules_not_loaded_up_front_are_imported_on_first_use() {
    let Some(py) = python() else { return };
    let dir = package(
        "lazy",
        r#"
@tool(description="d")
async def hello(name: str, context: ToolContext = None) -> ToolResult:
    return ToolResult(llm_response=f"hello {name}")
"#,
        &[("tools/broken.py", "raise ImportError('never loaded')\n")],
    );
    let mut worker = Worker::new(py, &dir).with_modules(Vec::new());
    worker.start().unwrap();
    assert!(worker.load_errors().is_empty());
    let mut host = Host::default();
    assert_eq!(
        call(
            &mut worker,
            "hello",
            json!({"name": "Ada", "context": "ignored"}),
            &mut host
        ),
        ToolOutcome::Ok(json!("hello Ada"))
    );
}

#[test]
fn a_missing_interpreter_is_an_error_outcome() {
    let dir = package("nopython", "", &[]);
    let mut worker = Worker::new("/nonexistent/python3", &dir);
    let mut host = Host::default();
    let ToolOutcome::Error(e) = call(&mut worker, "x", json!({}), &mut host) else {
        panic!("no interpreter, no call");
    };
    assert!(e.contains("cannot start the Python tool worker"), "{e}");
}
