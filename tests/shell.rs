//! The shell loop (`maestro shell`) over line sources, without a terminal:
//! barge-in (D13) with typed-ahead lines, and piped input that never
//! interrupts a turn. The tools run in the real Python worker (these tests
//! are skipped with a note when `python3` is absent); the LLM is scripted.

mod common;

use common::{python_available, unanswered};
use maestro::runtime::driver::{Session, TurnEnd};
use maestro::runtime::engine::{Engine, Event};
use maestro::runtime::llm::{LlmError, LlmProvider, Scripted};
use maestro::runtime::shell::{self, ReadLines, Terminal, TypeAhead};
use maestro::runtime::types::{ChatMessage, ChatRequest, ChatResponse, Role, ToolCall};
use maestro::runtime::worker::{extract_package_in, Worker};
use serde_json::{json, Value};
use std::sync::mpsc::{channel, Sender};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The runtime lab project, trained once; its engine (with a tool timeout
/// long enough that only a cancellation can end `patient_tool` early) and
/// a worker over its Python sources.
fn lab(name: &str) -> (Engine, Worker) {
    static MODEL: OnceLock<Vec<u8>> = OnceLock::new();
    let base = std::env::temp_dir().join(format!("maestro-shell-lib-{}", std::process::id()));
    let bytes = MODEL.get_or_init(|| common::trained_model("tests/projects/runtime", "shell-lib"));
    let model = maestro::runtime::load_model(bytes).unwrap();
    let dir = extract_package_in(&base.join("packages"), &model.files, name).unwrap();
    let mut engine = Engine::new(model.manifest, model.knowledge);
    engine.manifest.agent.tool_timeout_secs = 60.0;
    (engine, Worker::new("python3", dir))
}

fn call(name: &str, args: Value) -> ChatResponse {
    ChatResponse {
        content: None,
        tool_calls: vec![ToolCall {
            id: String::new(),
            name: name.into(),
            arguments: args,
        }],
    }
}

fn text(t: &str) -> ChatResponse {
    ChatResponse {
        content: Some(t.into()),
        tool_calls: Vec::new(),
    }
}

fn activate_lab() -> ChatResponse {
    call("activate", json!({"flow_id": "lab"}))
}

/// What the user does when the bot says a given text.
type Trigger = (&'static str, Box<dyn FnOnce()>);

/// Records what the user would see; when the bot says `trigger`, runs
/// `action` once (the user typing, or pressing Ctrl-D, mid-turn).
#[derive(Default)]
struct Screen {
    said: Vec<String>,
    ends: Vec<(TurnEnd, Instant)>,
    prompts: usize,
    trigger: Option<Trigger>,
    triggered_at: Option<Instant>,
    /// The user's keyboard: the input stays open until this many turns
    /// have ended (then Ctrl-D).
    keyboard: Option<(usize, Sender<String>)>,
}

impl Terminal for Screen {
    fn say(&mut self, text: &str) {
        self.said.push(text.to_string());
        if self.trigger.as_ref().is_some_and(|(t, _)| *t == text) {
            let (_, action) = self.trigger.take().unwrap();
            self.triggered_at = Some(Instant::now());
            action();
        }
    }
    fn prompt(&mut self) {
        self.prompts += 1;
    }
    fn turn_ended(&mut self, end: TurnEnd, _events: &[Event]) {
        self.ends.push((end, Instant::now()));
        if self
            .keyboard
            .as_ref()
            .is_some_and(|(turns, _)| *turns == self.ends.len())
        {
            self.keyboard = None;
        }
    }
}

impl Screen {
    fn ends(&self) -> Vec<TurnEnd> {
        self.ends.iter().map(|(e, _)| *e).collect()
    }
}

fn cancelled(events: &[Event], tool: &str) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::ToolCancelled { name, .. } if name == tool))
}

fn executed(events: &[Event], tool: &str) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::ToolExecuted { name, .. } if name == tool))
}

fn user_texts(messages: &[ChatMessage]) -> Vec<&str> {
    messages
        .iter()
        .filter(|m| m.role == Role::User)
        .filter_map(|m| m.content.as_deref())
        .collect()
}

#[test]
fn a_line_typed_while_a_tool_runs_cancels_the_turn_and_is_the_next_turn() {
    if !python_available() {
        return;
    }
    let (engine, mut worker) = lab("barge");
    let llm = Scripted::new([
        activate_lab(),
        call("patient_tool", json!({"seconds": 10})),
        text("Stopped. What else?"),
    ]);
    let mut session = Session::new(&engine, &mut worker, llm);
    let (tx, rx) = channel();
    tx.send("run the patient tool".to_string()).unwrap();
    let typist = tx.clone();
    let mut screen = Screen {
        trigger: Some((
            "Working on it.",
            Box::new(move || typist.send("no, stop that".to_string()).unwrap()),
        )),
        keyboard: Some((2, tx)),
        ..Screen::default()
    };
    let mut lines = TypeAhead::new(rx);
    shell::run(&mut session, &mut lines, &mut screen);

    assert_eq!(screen.ends(), [TurnEnd::Interrupted, TurnEnd::Finished]);
    let took = screen.ends[0].1 - screen.triggered_at.unwrap();
    assert!(
        took < Duration::from_secs(5),
        "the turn ended {took:?} after the line arrived; the tool sleeps 10 s"
    );
    assert_eq!(screen.said, ["Working on it.", "Stopped. What else?"]);
    let events = &session.conv.events;
    assert!(cancelled(events, "patient_tool"), "{events:?}");
    assert!(!executed(events, "patient_tool"), "{events:?}");
    assert_eq!(
        session.conv.memory.get("lab.before_sleep"),
        Some(&json!("patient")),
        "memory written before the await is kept"
    );
    assert_eq!(session.conv.memory.get("lab.woke"), None);
    // The typed line was its own turn, answered from a history a server
    // accepts.
    let requests = &session.llm.requests;
    assert_eq!(requests.len(), 3);
    let last = &requests[2].messages;
    assert_eq!(user_texts(last), ["run the patient tool", "no, stop that"]);
    assert_eq!(unanswered(last), Vec::<String>::new());
    assert_eq!(
        last.last().unwrap().content.as_deref(),
        Some("no, stop that")
    );
    // The worker is still usable after the cancellation: it was told to
    // cancel, not killed.
    assert!(session.worker.pid().is_some());
}

#[test]
fn piped_lines_never_interrupt_a_turn() {
    if !python_available() {
        return;
    }
    let (engine, mut worker) = lab("piped");
    let llm = Scripted::new([
        activate_lab(),
        call("patient_tool", json!({"seconds": 0.5})),
        text("Done."),
        text("And the second."),
    ]);
    let mut session = Session::new(&engine, &mut worker, llm);
    // Both lines are there from the start: read only when a turn has ended.
    let mut lines = ReadLines(std::io::Cursor::new(
        "run the patient tool\n\nsecond line\n",
    ));
    let mut screen = Screen::default();
    shell::run(&mut session, &mut lines, &mut screen);

    assert_eq!(screen.ends(), [TurnEnd::Finished, TurnEnd::Finished]);
    assert_eq!(screen.said, ["Working on it.", "Done.", "And the second."]);
    let events = &session.conv.events;
    assert!(executed(events, "patient_tool"), "{events:?}");
    assert!(!cancelled(events, "patient_tool"), "{events:?}");
    assert_eq!(session.conv.memory.get("lab.woke"), Some(&json!(true)));
    assert_eq!(
        screen.prompts, 4,
        "one per line read (the blank one too), one at the end"
    );
}

#[test]
fn the_end_of_input_during_a_turn_cancels_it_and_ends_the_shell() {
    if !python_available() {
        return;
    }
    let (engine, mut worker) = lab("eof");
    let llm = Scripted::new([activate_lab(), call("patient_tool", json!({"seconds": 10}))]);
    let mut session = Session::new(&engine, &mut worker, llm);
    let (tx, rx) = channel();
    tx.send("run the patient tool".to_string()).unwrap();
    let mut sender: Option<Sender<String>> = Some(tx);
    let ctrl_d = move || drop(sender.take());
    let mut screen = Screen {
        trigger: Some(("Working on it.", Box::new(ctrl_d))),
        ..Screen::default()
    };
    let mut lines = TypeAhead::new(rx);
    let started = Instant::now();
    shell::run(&mut session, &mut lines, &mut screen);

    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(screen.ends(), [TurnEnd::Interrupted]);
    assert!(cancelled(&session.conv.events, "patient_tool"));
    assert_eq!(
        session.conv.memory.get("lab.before_sleep"),
        Some(&json!("patient"))
    );
    assert_eq!(
        session.llm.requests.len(),
        2,
        "no LLM call after the cancel"
    );
}

/// A scripted LLM during whose `nth` request (1-based) the user types
/// `line`.
struct TypedDuringCall {
    script: Scripted,
    nth: usize,
    line: &'static str,
    typist: Sender<String>,
}

impl LlmProvider for TypedDuringCall {
    fn complete(&mut self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        if self.script.requests.len() + 1 == self.nth {
            self.typist.send(self.line.to_string()).unwrap();
        }
        self.script.complete(req)
    }
}

#[test]
fn an_answer_that_arrives_after_a_typed_line_is_dropped_unrun() {
    // No tool runs here, so no Python is needed.
    let (engine, mut worker) = lab("stale");
    let (tx, rx) = channel();
    tx.send("run the patient tool".to_string()).unwrap();
    let llm = TypedDuringCall {
        script: Scripted::new([
            activate_lab(),
            // The stale answer: it must not run.
            call("patient_tool", json!({"seconds": 10})),
            text("Sure, what instead?"),
        ]),
        nth: 2,
        line: "actually, something else",
        typist: tx,
    };
    let mut session = Session::new(&engine, &mut worker, llm);
    let mut lines = TypeAhead::new(rx);
    // The typist keeps the channel open; end the input after two turns.
    let mut screen = Screen::default();
    let mut turns = 0;
    while turns < 2 {
        let Some(line) = shell::LineSource::next_line(&mut lines) else {
            break;
        };
        let next: &TypeAhead = &lines;
        let end = session.turn(&line, &mut |t| screen.say(t), &|| {
            shell::LineSource::waiting(next)
        });
        screen.ends.push((end, Instant::now()));
        turns += 1;
    }

    assert_eq!(screen.ends(), [TurnEnd::Interrupted, TurnEnd::Finished]);
    assert_eq!(screen.said, ["Sure, what instead?"]);
    let events = &session.conv.events;
    assert!(!cancelled(events, "patient_tool") && !executed(events, "patient_tool"));
    assert_eq!(session.conv.memory.get("lab.before_sleep"), None);
    assert_eq!(session.worker.pid(), None, "no Python tool was started");
    let requests = &session.llm.script.requests;
    assert_eq!(requests.len(), 3);
    let last = &requests[2].messages;
    assert!(
        !last
            .iter()
            .flat_map(|m| &m.tool_calls)
            .any(|c| c.name == "patient_tool"),
        "the dropped answer is not in the history"
    );
    assert_eq!(
        user_texts(last),
        ["run the patient tool", "actually, something else"]
    );
    assert_eq!(unanswered(last), Vec::<String>::new());
}
