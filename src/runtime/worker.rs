//! The long-lived Python tool worker (spec section 5).
//!
//! One `python3` process per [`Worker`] runs `maestro_worker.py` (installed
//! with the support package by [`crate::support::install`]). It imports the
//! packaged tool modules once, then runs one call at a time. The two sides
//! speak JSON lines over stdin/stdout; the worker's stderr (tracebacks, the
//! tools' own `print`s) is drained by a thread so it never blocks, and its
//! last lines are kept for error messages ([`Worker::stderr_tail`]).
//!
//! While a call runs, the worker asks for `context.memory.get/set` and
//! `context.send` with requests that [`Worker::call`] answers through the
//! [`ToolHost`]. The host's cancellation flag is polled every 20 ms; a
//! cancelled turn or a timeout sends `cancel`, the tool's task gets
//! `asyncio.CancelledError` at its current `await` (decision D13), and the
//! worker stays usable. A worker that does not acknowledge the cancel within
//! a second (a tool stuck in synchronous code, or one that swallows the
//! cancellation) is killed; the next call starts a fresh one.
//!
//! Protocol (one JSON object per line):
//!
//! | direction | message |
//! |---|---|
//! | maestro → worker | `{"op":"load","root":DIR,"modules":[...]\|null}` (once per process) |
//! | | `{"op":"call","id":N,"module":REL,"function":NAME,"arguments":{..},"context":{"skill_id","events","llm_config","references_index"}}` |
//! | | `{"op":"reply","id":M,"value":V}` / `{"op":"reply","id":M,"error":E}` |
//! | | `{"op":"cancel","id":N}` |
//! | worker → maestro | `{"op":"loaded","errors":[{"path","error"}]}` |
//! | | `{"op":"request","id":M,"call":N,"kind":"memory_get"\|"memory_set"\|"send",...}` |
//! | | `{"op":"result","id":N,"ok":V}` / `..."error":E}` / `..."cancelled":true}` |

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Component, Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::types::{ToolHost, ToolOutcome};

/// How often the host's cancellation flag is polled while a tool runs.
const POLL: Duration = Duration::from_millis(20);
/// How long a cancelled tool may take to unwind before the worker is killed.
const CANCEL_GRACE: Duration = Duration::from_secs(1);
/// Default limit for importing the tool modules when a worker starts.
const DEFAULT_LOAD_TIMEOUT: Duration = Duration::from_secs(60);
/// Lines of the worker's stderr kept for error messages.
const STDERR_LINES: usize = 200;

/// A tool module that failed to import when the worker loaded the package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// Path relative to the package root.
    pub path: String,
    /// `<ExceptionType>: <message>`.
    pub error: String,
}

/// A lazily started, self-restarting Python tool worker for one package.
pub struct Worker {
    python: String,
    package_dir: PathBuf,
    modules: Option<Vec<String>>,
    load_timeout: Duration,
    echo_stderr: bool,
    process: Option<Process>,
    next_id: u64,
    starts: u32,
    load_errors: Vec<LoadError>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

/// A running worker process.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
}

impl Worker {
    /// A worker that will run `python` on the package extracted at
    /// `package_dir`. Nothing is spawned until the first [`Worker::call`].
    pub fn new(python: impl Into<String>, package_dir: impl Into<PathBuf>) -> Self {
        Worker {
            python: python.into(),
            package_dir: package_dir.into(),
            modules: None,
            load_timeout: DEFAULT_LOAD_TIMEOUT,
            echo_stderr: false,
            process: None,
            next_id: 0,
            starts: 0,
            load_errors: Vec::new(),
            stderr: Arc::new(Mutex::new(VecDeque::new())),
        }
    }

    /// Import exactly these modules (paths relative to the package root) at
    /// load, instead of discovering `skills/<id>/tools.py`,
    /// `skills/<id>/tools/*.py` and `tools/*.py`. A module that is called
    /// but was not loaded is imported on first use.
    pub fn with_modules(mut self, modules: Vec<String>) -> Self {
        self.modules = Some(modules);
        self
    }

    /// Limit for importing the tool modules when a worker (re)starts.
    pub fn set_load_timeout(&mut self, timeout: Duration) {
        self.load_timeout = timeout;
    }

    /// Also copy the worker's stderr (tracebacks, tools' prints) to ours.
    pub fn set_echo_stderr(&mut self, echo: bool) {
        self.echo_stderr = echo;
    }

    /// The modules that failed to import at the last (re)start.
    pub fn load_errors(&self) -> &[LoadError] {
        &self.load_errors
    }

    /// The process id of the running worker, if one runs.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|p| p.child.id())
    }

    /// How many worker processes have been started so far.
    pub fn starts(&self) -> u32 {
        self.starts
    }

    /// The last lines the worker wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        let lines = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// Start the worker now (normally the first call does) and import the
    /// package; `Err` when Python cannot be started or the import hangs.
    pub fn start(&mut self) -> Result<(), String> {
        self.ensure_started()
    }

    /// Stop the worker process, if one runs.
    pub fn shutdown(&mut self) {
        if let Some(mut p) = self.process.take() {
            let _ = p.child.kill();
            let _ = p.child.wait();
        }
    }

    /// Run `function` of `module` (path relative to the package root) with
    /// the LLM's `arguments` and the per-call `context`
    /// (`skill_id`, `events`, `llm_config`, `references_index`), answering
    /// the tool's requests through `host` until it finishes, times out or the
    /// host cancels the turn.
    pub fn call(
        &mut self,
        module: &str,
        function: &str,
        arguments: &Value,
        context: &Value,
        timeout: Duration,
        host: &mut dyn ToolHost,
    ) -> ToolOutcome {
        if host.is_cancelled() {
            return ToolOutcome::Cancelled;
        }
        if let Err(e) = self.ensure_started() {
            return ToolOutcome::Error(e);
        }
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({
            "op": "call",
            "id": id,
            "module": module,
            "function": function,
            "arguments": arguments,
            "context": context,
        });
        if self.send(&msg).is_err() {
            // The process died since the last call; the tool has not
            // started, so starting a fresh worker is safe.
            self.shutdown();
            if let Err(e) = self.ensure_started() {
                return ToolOutcome::Error(e);
            }
            if self.send(&msg).is_err() {
                self.shutdown();
                return ToolOutcome::Error(self.died_message(function));
            }
        }
        let deadline = Instant::now() + timeout;
        // Why the call is being cancelled, and until when it may unwind.
        let mut cancelling: Option<(ToolOutcome, Instant)> = None;
        loop {
            let received = match &self.process {
                Some(p) => p.lines.recv_timeout(POLL),
                None => Err(RecvTimeoutError::Disconnected),
            };
            match received {
                Ok(msg) => match msg["op"].as_str() {
                    Some("request") => {
                        let reply = answer(&msg, id, cancelling.is_some(), host);
                        let _ = self.send(&reply);
                    }
                    Some("result") if msg["id"].as_u64() == Some(id) => {
                        return match cancelling {
                            Some((outcome, _)) => outcome,
                            None => result_outcome(&msg),
                        };
                    }
                    _ => {}
                },
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    let message = self.died_message(function);
                    self.shutdown();
                    return match cancelling {
                        Some((outcome, _)) => outcome,
                        None => ToolOutcome::Error(message),
                    };
                }
            }
            let now = Instant::now();
            match &cancelling {
                None => {
                    let reason = if host.is_cancelled() {
                        Some(ToolOutcome::Cancelled)
                    } else if now >= deadline {
                        Some(ToolOutcome::Timeout(timeout.as_secs_f64()))
                    } else {
                        None
                    };
                    if let Some(reason) = reason {
                        let _ = self.send(&json!({"op": "cancel", "id": id}));
                        cancelling = Some((reason, now + CANCEL_GRACE));
                    }
                }
                Some((outcome, until)) if now >= *until => {
                    let outcome = outcome.clone();
                    self.shutdown();
                    return outcome;
                }
                Some(_) => {}
            }
        }
    }

    /// Start a worker unless a live one exists.
    fn ensure_started(&mut self) -> Result<(), String> {
        if let Some(p) = &mut self.process {
            match p.child.try_wait() {
                Ok(None) => return Ok(()),
                _ => self.shutdown(),
            }
        }
        self.spawn()
    }

    fn spawn(&mut self) -> Result<(), String> {
        let support = crate::support::install()
            .map_err(|e| format!("cannot write maestro's Python support package: {e}"))?;
        let root = std::fs::canonicalize(&self.package_dir).map_err(|e| {
            format!(
                "cannot open the package folder {}: {e}",
                self.package_dir.display()
            )
        })?;
        let mut child = Command::new(&self.python)
            .arg(support.join("maestro_worker.py"))
            .current_dir(&root)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PYTHONUNBUFFERED", "1")
            .env("PYTHONIOENCODING", "utf-8")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the Python tool worker `{}`: {e}", self.python))?;
        self.starts += 1;
        self.stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(value) = serde_json::from_str::<Value>(&line) {
                    if tx.send(value).is_err() {
                        break;
                    }
                }
            }
        });
        let tail = Arc::clone(&self.stderr);
        let echo = self.echo_stderr;
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if echo {
                    eprintln!("{line}");
                }
                let mut lines = tail.lock().unwrap_or_else(|e| e.into_inner());
                if lines.len() == STDERR_LINES {
                    lines.pop_front();
                }
                lines.push_back(line);
            }
        });
        self.process = Some(Process {
            child,
            stdin,
            lines,
        });
        self.load(&root)
    }

    /// Send `load` and wait for `loaded`.
    fn load(&mut self, root: &Path) -> Result<(), String> {
        let msg = json!({"op": "load", "root": root, "modules": self.modules});
        if self.send(&msg).is_err() {
            let message = self.stopped_message("while starting");
            self.shutdown();
            return Err(message);
        }
        let deadline = Instant::now() + self.load_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let received = match &self.process {
                Some(p) => p.lines.recv_timeout(left),
                None => Err(RecvTimeoutError::Disconnected),
            };
            match received {
                Ok(msg) if msg["op"] == "loaded" => {
                    self.load_errors = msg["errors"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|e| LoadError {
                            path: e["path"].as_str().unwrap_or_default().to_string(),
                            error: e["error"].as_str().unwrap_or_default().to_string(),
                        })
                        .collect();
                    return Ok(());
                }
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    self.shutdown();
                    return Err(format!(
                        "the Python tool worker did not finish importing the tool modules within {} s",
                        self.load_timeout.as_secs_f64()
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let message = self.stopped_message("while importing the tool modules");
                    self.shutdown();
                    return Err(message);
                }
            }
        }
    }

    fn send(&mut self, msg: &Value) -> io::Result<()> {
        let Some(p) = &mut self.process else {
            return Err(io::Error::from(io::ErrorKind::BrokenPipe));
        };
        let mut line = serde_json::to_string(msg).expect("JSON values serialize");
        line.push('\n');
        p.stdin.write_all(line.as_bytes())?;
        p.stdin.flush()
    }

    fn died_message(&self, function: &str) -> String {
        self.stopped_message(&format!("while running tool '{function}'"))
    }

    fn stopped_message(&self, when: &str) -> String {
        // Give the stderr thread a moment to collect the last words.
        std::thread::sleep(Duration::from_millis(50));
        let last = {
            let lines = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
            lines.iter().rev().find(|l| !l.trim().is_empty()).cloned()
        };
        match last {
            Some(line) => format!("the Python tool worker stopped {when}: {}", line.trim()),
            None => format!("the Python tool worker stopped {when}"),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The reply to one request of the worker.
fn answer(msg: &Value, call: u64, cancelling: bool, host: &mut dyn ToolHost) -> Value {
    let id = msg["id"].clone();
    if msg["call"].as_u64() != Some(call) {
        return json!({"op": "reply", "id": id, "error": "the call has ended"});
    }
    let name = msg["name"].as_str().unwrap_or_default();
    match msg["kind"].as_str() {
        Some("memory_get") => json!({"op": "reply", "id": id, "value": host.memory_get(name)}),
        Some("memory_set") => match host.memory_set(name, msg["value"].clone()) {
            Ok(()) => json!({"op": "reply", "id": id, "value": null}),
            Err(reason) => json!({"op": "reply", "id": id, "error": reason}),
        },
        Some("search") => {
            let limit = msg["limit"].as_u64().unwrap_or(5).min(50) as usize;
            let query = msg["query"].as_str().unwrap_or_default();
            json!({"op": "reply", "id": id, "value": host.search(query, limit)})
        }
        Some("send") => {
            // Once the call is being cancelled, messages are dropped.
            if !cancelling {
                host.send(msg["text"].as_str().unwrap_or_default());
            }
            json!({"op": "reply", "id": id, "value": null})
        }
        other => json!({"op": "reply", "id": id, "error": format!("unknown request {other:?}")}),
    }
}

/// The outcome a `result` message reports.
fn result_outcome(msg: &Value) -> ToolOutcome {
    if msg["cancelled"] == Value::Bool(true) {
        return ToolOutcome::Cancelled;
    }
    if let Some(value) = msg.get("ok") {
        return ToolOutcome::Ok(value.clone());
    }
    match msg.get("error") {
        Some(Value::String(e)) => ToolOutcome::Error(e.clone()),
        Some(other) => ToolOutcome::Error(other.to_string()),
        None => ToolOutcome::Error("the Python tool worker sent a malformed result".to_string()),
    }
}

/// Write a packaged model's files to `<cache>/maestro/packages/<fingerprint>/`
/// (once: a complete folder is reused) and return that folder, the root the
/// worker imports from.
pub fn extract_package(
    files: &BTreeMap<String, Vec<u8>>,
    fingerprint: &str,
) -> io::Result<PathBuf> {
    let base = crate::support::cache_base()
        .join("maestro")
        .join("packages");
    extract_package_in(&base, files, fingerprint)
}

/// [`extract_package`] into `<base>/<fingerprint>/`. The files are written
/// into a private folder first and moved into place, so two processes never
/// see a half-written package. Paths must be relative, `/`-separated and
/// stay inside the folder.
pub fn extract_package_in(
    base: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    fingerprint: &str,
) -> io::Result<PathBuf> {
    let key = folder_key(fingerprint);
    let dir = base.join(&key);
    let marker = dir.join(".complete");
    if marker.is_file() {
        return Ok(dir);
    }
    for rel in files.keys() {
        if !safe_relative(rel) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("unsafe path in the package: {rel:?}"),
            ));
        }
    }
    std::fs::create_dir_all(base)?;
    let tmp = base.join(format!("{key}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    for (rel, bytes) in files {
        let path = tmp.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, bytes)?;
    }
    std::fs::write(tmp.join(".complete"), "")?;
    if dir.exists() && !marker.is_file() {
        // Left over from an interrupted extraction of an older maestro.
        let _ = std::fs::remove_dir_all(&dir);
    }
    match std::fs::rename(&tmp, &dir) {
        Ok(()) => Ok(dir),
        Err(_) if marker.is_file() => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(dir)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}

/// The fingerprint itself when it is a plain name, else a hash of it.
fn folder_key(fingerprint: &str) -> String {
    let plain = !fingerprint.is_empty()
        && fingerprint.len() <= 128
        && fingerprint
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !fingerprint.contains(".tmp-");
    if plain {
        return fingerprint.to_string();
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in fingerprint.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("fp-{h:016x}")
}

fn safe_relative(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.contains('\\')
        && !rel.starts_with('/')
        && rel.split('/').all(|part| !part.is_empty())
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> BTreeMap<String, Vec<u8>> {
        let mut f = BTreeMap::new();
        f.insert("manifest.json".to_string(), b"{}".to_vec());
        f.insert("skills/a/tools.py".to_string(), b"X = 1\n".to_vec());
        f
    }

    #[test]
    fn extracts_once_and_reuses() {
        let base = std::env::temp_dir().join(format!("maestro-extract-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let dir = extract_package_in(&base, &files(), "abc123").unwrap();
        assert_eq!(dir, base.join("abc123"));
        assert_eq!(
            std::fs::read(dir.join("skills/a/tools.py")).unwrap(),
            b"X = 1\n"
        );
        // A complete folder is reused as it is.
        std::fs::write(dir.join("skills/a/tools.py"), "changed").unwrap();
        let again = extract_package_in(&base, &files(), "abc123").unwrap();
        assert_eq!(
            std::fs::read(again.join("skills/a/tools.py")).unwrap(),
            b"changed"
        );
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn rejects_unsafe_paths_and_hashes_odd_fingerprints() {
        let base = std::env::temp_dir().join(format!("maestro-extract-bad-{}", std::process::id()));
        let mut bad = files();
        bad.insert("../evil.py".to_string(), Vec::new());
        assert!(extract_package_in(&base, &bad, "x").is_err());
        let mut abs = files();
        abs.insert("/etc/x".to_string(), Vec::new());
        assert!(extract_package_in(&base, &abs, "x").is_err());
        assert!(folder_key("../../x").starts_with("fp-"));
        assert_eq!(folder_key("sha256-00ff"), "sha256-00ff");
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn maps_result_messages() {
        assert_eq!(
            result_outcome(&json!({"op": "result", "id": 1, "ok": null})),
            ToolOutcome::Ok(Value::Null)
        );
        assert_eq!(
            result_outcome(&json!({"op": "result", "id": 1, "error": "E: x"})),
            ToolOutcome::Error("E: x".into())
        );
        assert_eq!(
            result_outcome(&json!({"op": "result", "id": 1, "cancelled": true})),
            ToolOutcome::Cancelled
        );
    }
}
