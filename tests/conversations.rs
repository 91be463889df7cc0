//! `maestro test` end to end: train a project, then run its conversation
//! tests through the binary with the real Python worker. These are the
//! guarantees of the seeds' pages, shown on running models.

mod common;

use common::{copy_dir, python_available};
use std::path::Path;
use std::process::Command;

fn train_and_test(project: &str, tests: &str, expect_passed: usize) {
    if !python_available() {
        eprintln!("python3 not found: conversation tests skipped");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!(
        "maestro-conv-{}-{}",
        project.replace('/', "-"),
        std::process::id()
    ));
    let bin = env!("CARGO_BIN_EXE_maestro");
    let train = Command::new(bin)
        .args(["train", "--quiet", "--fixed-model-name", "m", "--out"])
        .arg(&out)
        .arg(root.join(project))
        .output()
        .unwrap();
    assert!(
        train.status.success(),
        "{}",
        String::from_utf8_lossy(&train.stdout)
    );
    let run = Command::new(bin)
        .arg("test")
        .arg(root.join(project).join(tests))
        .arg("--model")
        .arg(out.join("m.tar.gz"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        report
            .lines()
            .any(|l| l == format!("{expect_passed} passed, 0 failed")),
        "{report}"
    );
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn the_example_projects_conversation_tests_pass() {
    train_and_test("examples/card_bank", "tests", 6);
}

#[test]
fn the_runtime_guarantees_hold_on_a_running_model() {
    train_and_test("tests/projects/runtime", "tests/guarantees.yml", 3);
}

#[test]
fn a_failing_conversation_test_fails_the_run() {
    if !python_available() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("maestro-conv-fail-{}", std::process::id()));
    let bin = env!("CARGO_BIN_EXE_maestro");
    let trained = Command::new(bin)
        .args([
            "train",
            "--quiet",
            "--no-import-check",
            "--fixed-model-name",
            "m",
            "--out",
        ])
        .arg(&out)
        .arg(root.join("examples/card_bank"))
        .status()
        .unwrap();
    assert!(trained.success());
    let file = out.join("wrong.yml");
    std::fs::write(
        &file,
        "tests:\n  - name: expects a tool that is hidden\n    steps:\n      - user: hi\n      - llm: {tool_calls: [{activate: {flow_id: card_replace}}]}\n      - llm: Hello\n      - assert:\n          tools_offered: {includes: [lock_card]}\n",
    )
    .unwrap();
    let run = Command::new(bin)
        .arg("test")
        .arg(&file)
        .arg("--model")
        .arg(out.join("m.tar.gz"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{report}");
    assert!(report.contains("0 passed, 1 failed"), "{report}");
    assert!(report.contains("lock_card"), "{report}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_tool_module_that_cannot_be_imported_stops_the_model_load() {
    if !python_available() {
        return;
    }
    let tools = "skills/check_balance/tools.py";
    let mut code =
        std::fs::read_to_string(common::root().join("examples/card_bank").join(tools)).unwrap();
    code.push_str("\nraise ImportError(\"missing backend\")\n");
    // Trained without the import probe, as from another machine.
    let project = train_copy(
        "examples/card_bank",
        "conv-import",
        &[(tools, code.as_str())],
    );
    let bin = env!("CARGO_BIN_EXE_maestro");
    let out = project.join("models");
    let model = out.join("m.tar.gz");
    let tests = project.join("tests");
    let test_args = [tests.as_os_str(), "--model".as_ref(), model.as_os_str()];
    for (command, args) in [
        ("test", &test_args[..]),
        ("shell", &[model.as_os_str()][..]),
    ] {
        let run = Command::new(bin)
            .arg(command)
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{command:?}: {stderr}");
        assert!(
            stderr.contains("skills/check_balance/tools.py: ImportError: missing backend"),
            "{command:?}: {stderr}"
        );
        assert!(run.stdout.is_empty(), "nothing runs before the load");
    }
    std::fs::remove_dir_all(&project).unwrap();
}

/// A one-connection-at-a-time OpenAI-compatible server on loopback that
/// answers every chat completion with `reply`.
fn fake_llm(
    reply: &'static str,
    requests: usize,
) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let message = serde_json::json!({"role": "assistant", "content": reply});
    fake_llm_script(vec![message; requests])
}

/// A one-connection-at-a-time OpenAI-compatible server on loopback that
/// answers the chat completions in order with these assistant messages,
/// then stops; it hands back the request bodies.
fn fake_llm_script(
    messages: Vec<serde_json::Value>,
) -> (String, std::thread::JoinHandle<Vec<String>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut bodies = Vec::new();
        for message in messages {
            let Ok((stream, _)) = listener.accept() else {
                break;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line == "\r\n" || line.is_empty() {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            reader.read_exact(&mut body).unwrap();
            bodies.push(String::from_utf8_lossy(&body).into_owned());
            let finish = if message.get("tool_calls").is_some() {
                "tool_calls"
            } else {
                "stop"
            };
            let answer = serde_json::json!({
                "id": "x", "object": "chat.completion",
                "choices": [{"index": 0, "finish_reason": finish, "message": message}]
            })
            .to_string();
            let mut stream = stream;
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            )
            .unwrap();
        }
        bodies
    });
    (base, handle)
}

/// An assistant message calling one tool, as an OpenAI server sends it.
fn tool_call_message(id: &str, name: &str, arguments: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "role": "assistant", "content": null,
        "tool_calls": [{"id": id, "type": "function",
                        "function": {"name": name, "arguments": arguments.to_string()}}]
    })
}

fn text_message(text: &str) -> serde_json::Value {
    serde_json::json!({"role": "assistant", "content": text})
}

/// A copy of `project` under a temp folder, with `edits` (path, content)
/// written over it, trained to `<copy>/models/m.tar.gz`.
fn train_copy(project: &str, tag: &str, edits: &[(&str, &str)]) -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let copy = std::env::temp_dir().join(format!("maestro-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&copy);
    copy_dir(&root.join(project), &copy);
    for (path, content) in edits {
        std::fs::write(copy.join(path), content).unwrap();
    }
    let trained = Command::new(env!("CARGO_BIN_EXE_maestro"))
        .args([
            "train",
            "--quiet",
            "--no-import-check",
            "--fixed-model-name",
            "m",
        ])
        .arg(&copy)
        .output()
        .unwrap();
    assert!(
        trained.status.success(),
        "{}",
        String::from_utf8_lossy(&trained.stdout)
    );
    copy
}

/// Model groups that talk to the fake server (`MAESTRO_TEST_LLM_BASE`).
const FAKE_INTEGRATIONS: &str = "model_groups:\n  - id: default\n    models:\n      - provider: openai\n        model: test-model\n        api_key: ${MAESTRO_TEST_LLM_KEY}\n        api_base: ${MAESTRO_TEST_LLM_BASE}\n";

#[test]
fn the_shell_holds_a_conversation_with_an_openai_compatible_server() {
    let project = train_copy(
        "examples/card_bank",
        "shell",
        &[("integrations.yml", FAKE_INTEGRATIONS)],
    );
    let bin = env!("CARGO_BIN_EXE_maestro");
    let out = project.join("models");
    let (base, server) = fake_llm("Hello! How can I help with your card?", 2);
    let mut child = Command::new(bin)
        .arg("shell")
        .arg(out.join("m.tar.gz"))
        .env("MAESTRO_TEST_LLM_BASE", &base)
        .env("MAESTRO_TEST_LLM_KEY", "sk-test-not-a-secret")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "hi there").unwrap();
        writeln!(stdin, "what can you do?").unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [
            "Hello! How can I help with your card?",
            "Hello! How can I help with your card?"
        ]
    );
    let bodies = server.join().unwrap();
    let first: serde_json::Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(first["model"], "test-model");
    assert_eq!(first["messages"][1]["content"], "hi there");
    let second: serde_json::Value = serde_json::from_str(&bodies[1]).unwrap();
    assert_eq!(
        second["messages"].as_array().unwrap().len(),
        4,
        "history is kept"
    );
    std::fs::remove_dir_all(&project).unwrap();
}

/// The runtime lab's agent.yml with a tool timeout that only a
/// cancellation can beat.
const LAB_AGENT: &str =
    "agent:\n  name: Runtime lab\n  persona: You are a test assistant.\ntool_timeout: 60\norchestrator:\n  model_group: default\n";

fn event_lines<'a>(stderr: &'a str, kind: &str) -> Vec<&'a str> {
    let tag = format!("\"type\":\"{kind}\"");
    stderr
        .lines()
        .filter(|l| l.starts_with("event: ") && l.contains(&tag))
        .collect()
}

#[test]
fn piped_input_never_interrupts_a_running_tool() {
    if !python_available() {
        return;
    }
    let project = train_copy(
        "tests/projects/runtime",
        "shell-piped",
        &[
            ("integrations.yml", FAKE_INTEGRATIONS),
            ("agent.yml", LAB_AGENT),
        ],
    );
    let (base, server) = fake_llm_script(vec![
        tool_call_message("c1", "activate", serde_json::json!({"flow_id": "lab"})),
        tool_call_message("c2", "patient_tool", serde_json::json!({"seconds": 1})),
        text_message("Done."),
        text_message("And the second."),
    ]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_maestro"))
        .args(["shell", "--debug"])
        .arg(project.join("models/m.tar.gz"))
        .env("MAESTRO_TEST_LLM_BASE", &base)
        .env("MAESTRO_TEST_LLM_KEY", "sk-test-not-a-secret")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        // Both lines, and the end of input, are there while the first
        // turn's tool runs.
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "run the patient tool").unwrap();
        writeln!(stdin, "second line").unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["Working on it.", "Done.", "And the second."],
        "{stderr}"
    );
    let executed = event_lines(&stderr, "tool_executed");
    assert!(
        executed
            .iter()
            .any(|l| l.contains("\"name\":\"patient_tool\"")),
        "{stderr}"
    );
    assert_eq!(event_lines(&stderr, "tool_cancelled"), Vec::<&str>::new());
    assert!(!stderr.contains("(interrupted)"), "{stderr}");
    // --debug shows every tool after each turn, with its gate result.
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("tools: ") && l.contains("patient_tool")),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l == "hidden: secret_tool [requires session.lab.unlocked == True: not met]"),
        "{stderr}"
    );
    assert_eq!(server.join().unwrap().len(), 4);
    std::fs::remove_dir_all(&project).unwrap();
}

/// Runs `maestro shell --debug MODEL` with stdin on a pseudo-terminal:
/// types a line, waits for the tool's first message, types another line
/// while the tool sleeps, waits for the answer, then presses Ctrl-D.
const PTY_SESSION: &str = r#"
import json, os, pty, signal, subprocess, sys, tempfile, time
signal.alarm(60)
binary, model = sys.argv[1], sys.argv[2]
master, slave = pty.openpty()
err = tempfile.TemporaryFile()
child = subprocess.Popen([binary, "shell", "--debug", model],
                         stdin=slave, stdout=subprocess.PIPE, stderr=err)
os.close(slave)
said = []
os.write(master, b"run the patient tool\n")
said.append(child.stdout.readline().decode().rstrip("\n"))
typed = time.monotonic()
os.write(master, b"no, stop that\n")
said.append(child.stdout.readline().decode().rstrip("\n"))
took = time.monotonic() - typed
os.write(master, b"\x04")
out, _ = child.communicate(timeout=30)
said.extend(out.decode().splitlines())
err.seek(0)
print(json.dumps({"said": said, "took": took, "code": child.returncode,
                  "stderr": err.read().decode()}))
"#;

#[test]
fn in_a_terminal_a_line_typed_while_a_tool_runs_interrupts_the_turn() {
    if !python_available() {
        return;
    }
    let project = train_copy(
        "tests/projects/runtime",
        "shell-pty",
        &[
            ("integrations.yml", FAKE_INTEGRATIONS),
            ("agent.yml", LAB_AGENT),
        ],
    );
    let (base, server) = fake_llm_script(vec![
        tool_call_message("c1", "activate", serde_json::json!({"flow_id": "lab"})),
        tool_call_message("c2", "patient_tool", serde_json::json!({"seconds": 30})),
        text_message("Stopped. What else?"),
    ]);
    let run = Command::new("python3")
        .args(["-c", PTY_SESSION, env!("CARGO_BIN_EXE_maestro")])
        .arg(project.join("models/m.tar.gz"))
        .env("MAESTRO_TEST_LLM_BASE", &base)
        .env("MAESTRO_TEST_LLM_KEY", "sk-test-not-a-secret")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    let stderr = report["stderr"].as_str().unwrap();
    assert_eq!(report["code"], 0, "{stderr}");
    assert_eq!(
        report["said"],
        serde_json::json!(["Working on it.", "Stopped. What else?"]),
        "{stderr}"
    );
    let took = report["took"].as_f64().unwrap();
    assert!(
        took < 10.0,
        "the answer came {took} s after the line; the tool sleeps 30 s"
    );
    assert!(stderr.contains("(interrupted)"), "{stderr}");
    assert_eq!(event_lines(stderr, "tool_cancelled").len(), 1, "{stderr}");
    assert!(
        event_lines(stderr, "tool_executed")
            .iter()
            .all(|l| !l.contains("patient_tool")),
        "{stderr}"
    );
    // The typed line reached the LLM as the next user message, after an
    // answer for every tool call.
    let bodies = server.join().unwrap();
    assert_eq!(bodies.len(), 3);
    let last: serde_json::Value = serde_json::from_str(&bodies[2]).unwrap();
    let messages = last["messages"].as_array().unwrap();
    assert_eq!(messages.last().unwrap()["content"], "no, stop that");
    assert_eq!(messages.last().unwrap()["role"], "user");
    std::fs::remove_dir_all(&project).unwrap();
}
