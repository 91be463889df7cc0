//! The import probe of `train` (decision D11): every tool module is
//! imported in a real `python3` subprocess, with the project root on
//! `sys.path` while it executes (as the engine does) and maestro's support
//! package providing the `rasa` import paths. Modules are executed under
//! synthetic names, one by one; the probe reports each failure with the
//! Python error and, when the traceback shows it, the line in the module.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The probe program, run with `python3 -c`.
const PROBE: &str = r#"
import importlib.util, json, os, sys, traceback
root, support = sys.argv[1], sys.argv[2]
sys.path.insert(0, support)
modules = json.loads(sys.stdin.readline())
for i, rel in enumerate(modules):
    path = os.path.join(root, rel)
    added = root not in sys.path
    if added:
        sys.path.insert(0, root)
    error, line = None, None
    try:
        spec = importlib.util.spec_from_file_location("_maestro_probe_%d" % i, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except SystemExit as e:
        error = "the module called sys.exit(%r) on import" % (e.code,)
    except BaseException as e:
        error = "%s: %s" % (type(e).__name__, e)
        for frame in traceback.extract_tb(e.__traceback__):
            if os.path.abspath(frame.filename) == os.path.abspath(path):
                line = frame.lineno
        if isinstance(e, SyntaxError) and e.lineno and os.path.abspath(e.filename or "") == os.path.abspath(path):
            line = e.lineno
    finally:
        if added and root in sys.path:
            sys.path.remove(root)
        for name in [m for m in sys.modules if m == "lib" or m.startswith("lib.")]:
            del sys.modules[name]
    print(json.dumps({"path": rel, "error": error, "line": line}), flush=True)
"#;

/// The result for one module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleResult {
    /// Path relative to the project root.
    pub path: String,
    /// The Python error, `None` when the module imported.
    pub error: Option<String>,
    /// 1-based line in the module where it failed, when known.
    pub line: Option<u32>,
}

/// What the probe could do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeOutcome {
    Ran(Vec<ModuleResult>),
    /// No usable `python3`: the reason, for the warning.
    Skipped(String),
}

/// Import each module (paths relative to `root`), waiting at most
/// `timeout` for all of them; modules not reached in time are reported as
/// timed out.
pub fn probe(python: &str, root: &Path, modules: &[String], timeout: Duration) -> ProbeOutcome {
    if modules.is_empty() {
        return ProbeOutcome::Ran(Vec::new());
    }
    let support = match crate::support::install() {
        Ok(dir) => dir,
        Err(e) => return ProbeOutcome::Skipped(format!("cannot write the support package: {e}")),
    };
    let root_abs = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let child = Command::new(python)
        .arg("-c")
        .arg(PROBE)
        .arg(&root_abs)
        .arg(&support)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return ProbeOutcome::Skipped(format!("`{python}` could not be started: {e}")),
    };
    let list = serde_json::to_string(modules).expect("strings serialize");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = writeln!(stdin, "{list}");
    }
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + timeout;
    let mut results = Vec::new();
    while results.len() < modules.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) {
                    results.push(ModuleResult {
                        path: v["path"].as_str().unwrap_or_default().to_string(),
                        error: v["error"].as_str().map(str::to_string),
                        line: v["line"].as_u64().and_then(|l| u32::try_from(l).ok()),
                    });
                }
            }
            Err(_) => break,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    if results.is_empty() && !modules.is_empty() && Instant::now() < deadline {
        return ProbeOutcome::Skipped(format!("`{python}` exited without importing anything"));
    }
    let timed_out = Instant::now() >= deadline;
    let reached = results.len();
    for (i, path) in modules.iter().enumerate().skip(reached) {
        let why = match (i == reached, timed_out) {
            (true, true) => format!(
                "the import did not finish within {} s",
                timeout.as_secs_f64()
            ),
            (true, false) => "the Python process stopped while importing this module".to_string(),
            (false, _) => format!("not probed: the probe stopped at {}", modules[reached]),
        };
        results.push(ModuleResult {
            path: path.clone(),
            error: Some(why),
            line: None,
        });
    }
    ProbeOutcome::Ran(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn python() -> Option<&'static str> {
        Command::new("python3")
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|_| "python3")
    }

    #[test]
    fn reports_each_module() {
        let Some(py) = python() else { return };
        let dir = std::env::temp_dir().join(format!("maestro-probe-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tools")).unwrap();
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join("lib/data.py"), "X = 1\n").unwrap();
        std::fs::write(
            dir.join("tools/ok.py"),
            "from rasa.calm_v2.tools.decorator import ToolContext, tool\nfrom rasa.mantle.tools.result import ToolResult\nfrom lib.data import X\n\n@tool(description='d')\nasync def t(context: ToolContext = None) -> ToolResult:\n    return ToolResult()\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("tools/bad.py"),
            "import json\nraise ValueError('boom')\n",
        )
        .unwrap();
        std::fs::write(dir.join("tools/bare.py"), "from rasa.calm_v2.tools.decorator import tool\n\n@tool\nasync def t(context=None):\n    pass\n").unwrap();
        let modules = vec![
            "tools/ok.py".to_string(),
            "tools/bad.py".into(),
            "tools/bare.py".into(),
        ];
        let ProbeOutcome::Ran(results) = probe(py, &dir, &modules, Duration::from_secs(30)) else {
            panic!("python3 is present");
        };
        assert_eq!(results.len(), 3);
        assert_eq!(results[0].error, None);
        assert_eq!(results[1].error.as_deref(), Some("ValueError: boom"));
        assert_eq!(results[1].line, Some(2));
        assert!(results[2]
            .error
            .as_deref()
            .unwrap()
            .starts_with("TypeError"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_hanging_module_times_out() {
        let Some(py) = python() else { return };
        let dir = std::env::temp_dir().join(format!("maestro-probe-hang-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.py"), "import time\ntime.sleep(60)\n").unwrap();
        let ProbeOutcome::Ran(results) =
            probe(py, &dir, &["a.py".to_string()], Duration::from_millis(1500))
        else {
            panic!("python3 is present");
        };
        assert!(results[0]
            .error
            .as_deref()
            .unwrap()
            .contains("did not finish"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_interpreter_skips() {
        let out = probe(
            "/nonexistent/python3",
            Path::new("."),
            &["x.py".to_string()],
            Duration::from_secs(1),
        );
        assert!(matches!(out, ProbeOutcome::Skipped(_)));
    }
}
