//! Conversation tests (`maestro test`): the YAML test-file format and the
//! matching of assertions against the events of a turn.
//!
//! ```yaml
//! tests:
//!   - name: lock card only after a card is selected
//!     steps:
//!       - user: I lost my card
//!       - llm:                         # the LLM's next reply (scripted provider)
//!           tool_calls:
//!             - activate: {flow_id: card_replace}
//!       - llm: Which card?             # shorthand for {text: ...}
//!       - assert:
//!           tools_offered: {includes: [get_customer_info], excludes: [lock_card]}
//!           events:
//!             - skill_activated: card_replace
//!             - bot_uttered: Which card     # substring
//! ```
//!
//! A file has one key, `tests`, a list of test cases. A test case has a
//! `name` (unique in the file) and `steps`, each a one-key mapping:
//! - `user: <text>` starts a turn with the user's message.
//! - `llm: <text>` or `llm: {text: <text>, tool_calls: [...]}` is the LLM's
//!   next reply in this turn; `tool_calls` items are `<tool>: {<arguments>}`
//!   (or just `<tool>` without arguments). `llm: {}` is an empty reply. The
//!   calls get the ids `call_1`, `call_2`, ... in the order of the test case.
//! - `assert:` with `events:` (a list of event assertions) and/or
//!   `tools_offered: {includes: [...], excludes: [...]}`.
//!
//! How a runner plays a test case: the `llm` steps after a `user` step are
//! the scripted replies of that user's turn, in order; the turn runs when the
//! next `user` or `assert` step, or the end of the test case, is reached. An
//! `assert` step checks the events of the current turn — everything since
//! the latest `user` step (before the first one: the session start) — and
//! `tools_offered` checks the tool list of the turn's latest LLM request.
//! Each assertion is checked on its own, in any order of the events; the
//! first failing one fails the test case. Therefore `llm` steps may not
//! come before the first `user` step (no LLM call happens before it) nor
//! after an `assert` step of the same turn (the turn has already run).
//!
//! Event assertions:
//!
//! | assertion | passes when the turn has |
//! |---|---|
//! | `skill_activated: <skill>` | a `skill_activated` event for the skill |
//! | `skill_completed: <skill>` | a `skill_completed` event |
//! | `skill_cancelled: <skill>` | a `skill_cancelled` event |
//! | `skill_interrupted: <skill>` | a `skill_interrupted` event: the skill was parked because another one was started on top of it |
//! | `skill_resumed: <skill>` | a `skill_resumed` event: a parked skill became active again |
//! | `tool_executed: <tool>` or `{name, arguments?}` | a `tool_executed` event of the tool whose arguments contain `arguments` (subset match) |
//! | `tool_refused: <tool>` | a `tool_refused` event: a call of the tool was answered with an error without running (not offered, gate unmet, invalid arguments, another confirmation pending) |
//! | `memory_was_set: <name>` or `{name, value?}` | a `memory_set` of the fully qualified name (with `value`: one of them with an equal value) |
//! | `memory_was_not_set: <name>` | no `memory_set` of the name |
//! | `bot_uttered: <text>` | a `bot_uttered` event whose text contains `<text>` |
//!
//! ## Events as JSON
//!
//! [`check_assertion`] does not know the engine's event type: the runner
//! maps each engine event to one JSON object of these shapes (other events
//! may be passed with any other `type`; they are ignored):
//!
//! ```json
//! {"type": "skill_activated", "skill": "card_replace"}
//! {"type": "skill_completed", "skill": "card_replace"}
//! {"type": "skill_cancelled", "skill": "card_replace"}
//! {"type": "skill_interrupted", "skill": "card_replace", "to": "check_balance"}
//! {"type": "skill_resumed", "skill": "card_replace"}
//! {"type": "tool_executed", "name": "lock_card", "arguments": {"card_id": "C-1"}, "result": "..."}
//! {"type": "tool_refused", "name": "lock_card", "arguments": {}, "reason": "..."}
//! {"type": "memory_set", "name": "card_replace.reason", "value": "lost"}
//! {"type": "bot_uttered", "text": "Your new card is on its way."}
//! ```
//!
//! Memory names are fully qualified (`<skill>.<field>`, `project.<field>`).
//! Values compare as JSON, with numbers compared by value (`1` equals `1.0`).
//!
//! YAML is read with [`crate::yaml`] (YAML 1.1 like the project files), but
//! texts (`user`, `llm` text, `bot_uttered`, names) are taken as written:
//! `user: yes` sends "yes", not `true`.

use serde_json::{json, Value};

use super::types::{ChatResponse, ToolCall};
use crate::source::Span;
use crate::suggest::did_you_mean;
use crate::yaml::{self, IssueKind, Node, Style};

/// A parsed test file.
#[derive(Debug, Clone, PartialEq)]
pub struct TestFile {
    pub tests: Vec<TestCase>,
}

/// One test case.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    pub name: String,
    pub steps: Vec<Step>,
    /// The span of each step (parallel to `steps`).
    pub step_spans: Vec<Span>,
    /// The span of the whole test case.
    pub span: Span,
}

/// One step of a test case.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The user says this.
    User(String),
    /// The LLM's next reply.
    Llm(ChatResponse),
    /// Assertions on the current turn.
    Assert(Vec<Assertion>),
}

/// One assertion of an `assert` step.
#[derive(Debug, Clone, PartialEq)]
pub enum Assertion {
    SkillActivated(String),
    SkillCompleted(String),
    SkillCancelled(String),
    SkillInterrupted(String),
    SkillResumed(String),
    /// `arguments`: a subset of the call's arguments.
    ToolExecuted {
        name: String,
        arguments: Option<Value>,
    },
    MemoryWasSet {
        name: String,
        value: Option<Value>,
    },
    MemoryWasNotSet(String),
    /// A call of the tool was refused without running.
    ToolRefused(String),
    /// A substring of a bot message.
    BotUttered(String),
    ToolsOffered {
        includes: Vec<String>,
        excludes: Vec<String>,
    },
}

/// The steps of one turn of a test case, as a runner plays them (see the
/// module docs): the user message, the scripted replies of the turn, and
/// the `assert` steps that check it.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn<'a> {
    /// `None` for the steps before the first `user` step (session start).
    pub user: Option<&'a str>,
    /// Index in `steps` of the `user` step.
    pub user_step: Option<usize>,
    /// The LLM's replies during the turn, in order.
    pub replies: Vec<&'a ChatResponse>,
    /// The `assert` steps of the turn: (index in `steps`, assertions).
    pub asserts: Vec<(usize, &'a [Assertion])>,
}

impl TestCase {
    /// The steps grouped by turn. The first turn has no user message when
    /// the test case starts with an `assert`; an empty first turn is left
    /// out.
    pub fn turns(&self) -> Vec<Turn<'_>> {
        let mut turns = vec![Turn {
            user: None,
            user_step: None,
            replies: Vec::new(),
            asserts: Vec::new(),
        }];
        for (i, step) in self.steps.iter().enumerate() {
            match step {
                Step::User(text) => turns.push(Turn {
                    user: Some(text),
                    user_step: Some(i),
                    replies: Vec::new(),
                    asserts: Vec::new(),
                }),
                Step::Llm(r) => turns.last_mut().expect("never empty").replies.push(r),
                Step::Assert(a) => turns.last_mut().expect("never empty").asserts.push((i, a)),
            }
        }
        if turns[0].replies.is_empty() && turns[0].asserts.is_empty() {
            turns.remove(0);
        }
        turns
    }
}

/// A problem in a test file.
#[derive(Debug, Clone, PartialEq)]
pub struct TestFileError {
    pub message: String,
    pub span: Span,
    pub help: Option<String>,
}

const STEP_KEYS: &[&str] = &["user", "llm", "assert"];
const EVENT_KEYS: &[&str] = &[
    "skill_activated",
    "skill_completed",
    "skill_cancelled",
    "skill_interrupted",
    "skill_resumed",
    "tool_executed",
    "tool_refused",
    "memory_was_set",
    "memory_was_not_set",
    "bot_uttered",
];

/// Parse a test file. Never panics; returns every problem found.
pub fn parse(text: &str) -> Result<TestFile, Vec<TestFileError>> {
    let parsed = yaml::parse(text);
    let mut p = P {
        text,
        errors: Vec::new(),
    };
    for issue in &parsed.issues {
        if issue.kind != IssueKind::AmbiguousScalar {
            p.errors.push(TestFileError {
                message: issue.message.clone(),
                span: issue.span,
                help: issue.help.clone(),
            });
        }
    }
    let mut tests = Vec::new();
    match &parsed.root {
        None => p.err(
            Span::at(0),
            "the test file is empty",
            Some("start with `tests:` and a list of test cases"),
        ),
        Some(root) if root.as_map().is_none() => p.err(
            root.span,
            format!(
                "the test file must be a mapping, found {}",
                root.type_name()
            ),
            Some("start with `tests:` and a list of test cases"),
        ),
        Some(root) => {
            let suggested = p.unknown_keys(root, &["tests"], "the test file");
            match root.get("tests") {
                None if suggested.iter().any(|k| k == "tests") => {}
                None => p.err(
                    Span::at(root.span.start),
                    "missing `tests`",
                    Some("add `tests:` with a list of test cases"),
                ),
                Some(list) => match list.as_seq() {
                    Some(items) => {
                        for item in items {
                            if let Some(t) = p.test_case(item, tests.len() + 1) {
                                if tests.iter().any(|x: &TestCase| x.name == t.name) {
                                    p.err(
                                        item.get("name").map_or(item.span, |n| n.span),
                                        format!("two test cases are named `{}`", t.name),
                                        Some("give every test case its own name"),
                                    );
                                }
                                tests.push(t);
                            }
                        }
                        if items.is_empty() && p.errors.is_empty() {
                            p.err(list.span, "`tests` is empty", Some("add a test case"));
                        }
                    }
                    None => p.err(
                        list.span,
                        format!("`tests` must be a list, found {}", list.type_name()),
                        Some("write `tests:` followed by `- name: ...` items"),
                    ),
                },
            }
        }
    }
    if p.errors.is_empty() {
        Ok(TestFile { tests })
    } else {
        p.errors.sort_by_key(|e| (e.span.start, e.span.end));
        Err(p.errors)
    }
}

struct P<'t> {
    text: &'t str,
    errors: Vec<TestFileError>,
}

impl P<'_> {
    fn err(&mut self, span: Span, message: impl Into<String>, help: Option<&str>) {
        self.errors.push(TestFileError {
            message: message.into(),
            span,
            help: help.map(str::to_string),
        });
    }

    /// Report keys of `map` that are not in `allowed`; returns the allowed
    /// keys suggested instead (a missing key that was suggested is not
    /// reported again).
    fn unknown_keys(&mut self, map: &Node, allowed: &[&str], what: &str) -> Vec<String> {
        let mut suggested = Vec::new();
        for (k, _) in map.entries() {
            let name = self.scalar(k).unwrap_or_default();
            if !allowed.contains(&name.as_str()) {
                let help = match did_you_mean(&name, allowed.iter().copied()) {
                    Some(s) => {
                        suggested.push(s.to_string());
                        format!("did you mean `{s}`?")
                    }
                    None => format!("{what} takes {}", list_keys(allowed)),
                };
                self.err(
                    k.span,
                    format!("unknown key `{name}` in {what}"),
                    Some(&help),
                );
            }
        }
        suggested
    }

    /// A scalar as written: strings as read, other plain scalars as their
    /// source text (`yes` stays "yes"); `None` for null and collections.
    fn scalar(&self, n: &Node) -> Option<String> {
        if let Some(s) = n.as_str() {
            return Some(s.to_string());
        }
        if n.is_null() || n.as_seq().is_some() || n.as_map().is_some() {
            return None;
        }
        if n.style == Style::Plain {
            if let Some(s) = self.text.get(n.span.range()) {
                return Some(s.to_string());
            }
        }
        n.key_str()
    }

    /// A non-empty text (`what` names it in the error).
    fn text_of(&mut self, n: &Node, what: &str, help: &str) -> Option<String> {
        match self.scalar(n) {
            Some(s) if !s.trim().is_empty() => Some(s),
            Some(_) => {
                self.err(n.span, format!("{what} is empty"), Some(help));
                None
            }
            None => {
                let found = if n.is_null() {
                    "nothing".to_string()
                } else {
                    crate::suggest::with_article(n.type_name())
                };
                self.err(
                    n.span,
                    format!("{what} must be a text, found {found}"),
                    Some(help),
                );
                None
            }
        }
    }

    /// The single `key: value` entry of a one-key mapping.
    fn single_entry<'n>(
        &mut self,
        n: &'n Node,
        what: &str,
        keys: &[&str],
    ) -> Option<(String, &'n Node, &'n Node)> {
        let entries: Vec<_> = n.entries().collect();
        if n.as_map().is_none() || entries.len() != 1 {
            let found = if n.as_map().is_some() {
                format!("a mapping with {} keys", entries.len())
            } else {
                crate::suggest::with_article(n.type_name())
            };
            self.err(
                n.span,
                format!("{what} must be a mapping with one key, found {found}"),
                Some(&format!("write one of {}", list_keys(keys))),
            );
            return None;
        }
        let (k, v) = entries[0];
        Some((self.scalar(k).unwrap_or_default(), k, v))
    }

    fn test_case(&mut self, item: &Node, index: usize) -> Option<TestCase> {
        if item.as_map().is_none() {
            self.err(
                item.span,
                format!(
                    "test case {index} must be a mapping, found {}",
                    crate::suggest::with_article(item.type_name())
                ),
                Some("write `- name: ...` and `steps:`"),
            );
            return None;
        }
        let before = self.errors.len();
        let suggested = self.unknown_keys(item, &["name", "steps"], "a test case");
        let name = match item.get("name") {
            Some(n) => self.text_of(n, "the test name", "name the test case"),
            None if suggested.iter().any(|k| k == "name") => None,
            None => {
                self.err(
                    Span::at(item.span.start),
                    format!("test case {index} has no `name`"),
                    Some("add `name:` with what the test checks"),
                );
                None
            }
        };
        let mut steps = Vec::new();
        let mut step_spans = Vec::new();
        match item.get("steps") {
            None if suggested.iter().any(|k| k == "steps") => {}
            None => self.err(
                Span::at(item.span.start),
                format!("test case {index} has no `steps`"),
                Some("add `steps:` with `- user: ...` and `- assert: ...` steps"),
            ),
            Some(list) => match list.as_seq() {
                None => self.err(
                    list.span,
                    format!(
                        "`steps` must be a list, found {}",
                        crate::suggest::with_article(list.type_name())
                    ),
                    Some("write `steps:` followed by `- user: ...` items"),
                ),
                Some([]) => self.err(
                    list.span,
                    "`steps` is empty",
                    Some("add `- user: ...` and `- assert: ...` steps"),
                ),
                Some(items) => {
                    let mut calls = 0usize;
                    // Whether a `user` step was seen, and whether an
                    // `assert` followed it.
                    let mut seen_user = false;
                    let mut asserted = false;
                    for s in items {
                        let Some(step) = self.step(s, &mut calls) else {
                            continue;
                        };
                        match &step {
                            Step::User(_) => {
                                seen_user = true;
                                asserted = false;
                            }
                            Step::Llm(_) if !seen_user => self.err(
                                s.span,
                                "an `llm` reply before the first `user` step",
                                Some("the LLM is first called for a user message; put a `user` step before it"),
                            ),
                            Step::Llm(_) if asserted => self.err(
                                s.span,
                                "an `llm` reply after an `assert` step of the same turn",
                                Some("the turn runs at its first `assert`; move the `llm` steps of this turn before it"),
                            ),
                            Step::Llm(_) => {}
                            Step::Assert(_) => asserted = true,
                        }
                        steps.push(step);
                        step_spans.push(s.span);
                    }
                }
            },
        }
        if self.errors.len() > before {
            return None;
        }
        Some(TestCase {
            name: name?,
            steps,
            step_spans,
            span: item.span,
        })
    }

    fn step(&mut self, s: &Node, calls: &mut usize) -> Option<Step> {
        let (key, k, v) = self.single_entry(s, "a step", STEP_KEYS)?;
        match key.as_str() {
            "user" => self
                .text_of(
                    v,
                    "the user message",
                    "write the user's message after `user:`",
                )
                .map(Step::User),
            "llm" => self.llm(v, calls).map(Step::Llm),
            "assert" => self.assert(v).map(Step::Assert),
            other => {
                let help = match did_you_mean(other, STEP_KEYS.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("a step is one of {}", list_keys(STEP_KEYS)),
                };
                self.err(k.span, format!("unknown step `{other}`"), Some(&help));
                None
            }
        }
    }

    fn llm(&mut self, v: &Node, calls: &mut usize) -> Option<ChatResponse> {
        const HELP: &str = "write `llm: <text>` or `llm: {text: ..., tool_calls: [...]}`; `llm: {}` is an empty reply";
        if v.as_map().is_none() {
            return self
                .text_of(v, "the LLM reply", HELP)
                .map(|t| ChatResponse {
                    content: Some(t),
                    tool_calls: Vec::new(),
                });
        }
        let before = self.errors.len();
        self.unknown_keys(v, &["text", "tool_calls"], "an `llm` reply");
        let content = v
            .get("text")
            .and_then(|t| self.text_of(t, "the LLM text", HELP));
        let mut tool_calls = Vec::new();
        if let Some(list) = v.get("tool_calls") {
            match list.as_seq() {
                None => self.err(
                    list.span,
                    format!(
                        "`tool_calls` must be a list, found {}",
                        crate::suggest::with_article(list.type_name())
                    ),
                    Some("write `tool_calls:` followed by `- <tool>: {<arguments>}` items"),
                ),
                Some(items) => {
                    for item in items {
                        if let Some(c) = self.tool_call(item, calls) {
                            tool_calls.push(c);
                        }
                    }
                }
            }
        }
        (self.errors.len() == before).then_some(ChatResponse {
            content,
            tool_calls,
        })
    }

    fn tool_call(&mut self, item: &Node, calls: &mut usize) -> Option<ToolCall> {
        const HELP: &str =
            "write `- <tool>: {<argument>: <value>}`, e.g. `- lock_card: {card_id: C-1}`";
        let (name, args) = if item.as_map().is_some() {
            let entries: Vec<_> = item.entries().collect();
            if entries.len() != 1 {
                self.err(
                    item.span,
                    format!(
                        "a tool call must be a mapping with one key (the tool), found {} keys",
                        entries.len()
                    ),
                    Some(HELP),
                );
                return None;
            }
            let (k, v) = entries[0];
            let name = self.text_of(k, "the tool name", HELP)?;
            let args = if v.is_null() {
                json!({})
            } else if v.as_map().is_some() {
                v.to_json()
            } else {
                self.err(
                    v.span,
                    format!(
                        "the arguments of `{name}` must be a mapping, found {}",
                        crate::suggest::with_article(v.type_name())
                    ),
                    Some(HELP),
                );
                return None;
            };
            (name, args)
        } else {
            (self.text_of(item, "the tool call", HELP)?, json!({}))
        };
        *calls += 1;
        Some(ToolCall {
            id: format!("call_{calls}"),
            name,
            arguments: args,
        })
    }

    fn assert(&mut self, v: &Node) -> Option<Vec<Assertion>> {
        const HELP: &str = "write `assert:` with `events:` and/or `tools_offered:`";
        if v.as_map().is_none() || v.entries().next().is_none() {
            let found = if v.as_map().is_some() {
                "an empty mapping".to_string()
            } else {
                crate::suggest::with_article(v.type_name())
            };
            self.err(
                v.span,
                format!("`assert` must be a mapping, found {found}"),
                Some(HELP),
            );
            return None;
        }
        let before = self.errors.len();
        self.unknown_keys(v, &["events", "tools_offered"], "an `assert` step");
        let mut out = Vec::new();
        for (k, val) in v.entries() {
            match self.scalar(k).as_deref() {
                Some("events") => match val.as_seq() {
                    Some(items) if !items.is_empty() => {
                        for item in items {
                            if let Some(a) = self.event_assertion(item) {
                                out.push(a);
                            }
                        }
                    }
                    _ => self.err(
                        val.span,
                        "`events` must be a non-empty list",
                        Some("write `events:` followed by items like `- skill_activated: <skill>`"),
                    ),
                },
                Some("tools_offered") => {
                    if let Some(a) = self.tools_offered(val) {
                        out.push(a);
                    }
                }
                _ => {}
            }
        }
        (self.errors.len() == before).then_some(out)
    }

    fn tools_offered(&mut self, v: &Node) -> Option<Assertion> {
        const HELP: &str =
            "write `tools_offered: {includes: [<tool>, ...], excludes: [<tool>, ...]}`";
        if v.as_map().is_none() || v.entries().next().is_none() {
            self.err(
                v.span,
                "`tools_offered` must be a mapping with `includes` and/or `excludes`",
                Some(HELP),
            );
            return None;
        }
        let before = self.errors.len();
        self.unknown_keys(v, &["includes", "excludes"], "`tools_offered`");
        let includes = v
            .get("includes")
            .map(|n| self.names(n, "includes", HELP))
            .unwrap_or_default();
        let excludes = v
            .get("excludes")
            .map(|n| self.names(n, "excludes", HELP))
            .unwrap_or_default();
        (self.errors.len() == before).then_some(Assertion::ToolsOffered { includes, excludes })
    }

    /// A list of names (a single name is a list of one).
    fn names(&mut self, n: &Node, what: &str, help: &str) -> Vec<String> {
        match n.as_seq() {
            Some(items) => items
                .iter()
                .filter_map(|i| self.text_of(i, &format!("an item of `{what}`"), help))
                .collect(),
            None => self
                .text_of(n, &format!("`{what}`"), help)
                .into_iter()
                .collect(),
        }
    }

    fn event_assertion(&mut self, item: &Node) -> Option<Assertion> {
        let (key, k, v) = self.single_entry(item, "an event assertion", EVENT_KEYS)?;
        let help_for = |key: &str| {
            match key {
            "skill_activated" | "skill_completed" | "skill_cancelled" | "skill_interrupted"
            | "skill_resumed" => {
                format!("write `{key}: <skill id>`")
            }
            "tool_executed" => {
                "write `tool_executed: <tool>` or `tool_executed: {name: <tool>, arguments: {...}}`"
                    .into()
            }
            "memory_was_set" => {
                "write `memory_was_set: <skill>.<field>` or `memory_was_set: {name: <skill>.<field>, value: ...}`".into()
            }
            "memory_was_not_set" => "write `memory_was_not_set: <skill>.<field>`".into(),
            "tool_refused" => "write `tool_refused: <tool>`".into(),
            _ => "write `bot_uttered: <part of the message>`".into(),
        }
        };
        let help = help_for(&key);
        match key.as_str() {
            "skill_activated" => self
                .text_of(v, "the skill id", &help)
                .map(Assertion::SkillActivated),
            "skill_completed" => self
                .text_of(v, "the skill id", &help)
                .map(Assertion::SkillCompleted),
            "skill_cancelled" => self
                .text_of(v, "the skill id", &help)
                .map(Assertion::SkillCancelled),
            "skill_interrupted" => self
                .text_of(v, "the skill id", &help)
                .map(Assertion::SkillInterrupted),
            "skill_resumed" => self
                .text_of(v, "the skill id", &help)
                .map(Assertion::SkillResumed),
            "memory_was_not_set" => self
                .text_of(v, "the memory name", &help)
                .map(Assertion::MemoryWasNotSet),
            "tool_refused" => self
                .text_of(v, "the tool name", &help)
                .map(Assertion::ToolRefused),
            "bot_uttered" => self
                .text_of(v, "the expected text", &help)
                .map(Assertion::BotUttered),
            "tool_executed" => {
                let (name, extra) = self.named(v, "arguments", "the tool name", &help)?;
                if let Some(a) = extra {
                    if a.as_map().is_none() {
                        self.err(
                            a.span,
                            format!(
                                "`arguments` must be a mapping, found {}",
                                crate::suggest::with_article(a.type_name())
                            ),
                            Some(&help),
                        );
                        return None;
                    }
                }
                Some(Assertion::ToolExecuted {
                    name,
                    arguments: extra.map(Node::to_json),
                })
            }
            "memory_was_set" => {
                let (name, extra) = self.named(v, "value", "the memory name", &help)?;
                if let Some(val) = extra {
                    if val.is_null() {
                        self.err(
                            val.span,
                            "`value: null` cannot be set",
                            Some("leave `value` out to accept any value, or use `memory_was_not_set`"),
                        );
                        return None;
                    }
                }
                Some(Assertion::MemoryWasSet {
                    name,
                    value: extra.map(Node::to_json),
                })
            }
            other => {
                let help = match did_you_mean(other, EVENT_KEYS.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("an event assertion is one of {}", list_keys(EVENT_KEYS)),
                };
                self.err(
                    k.span,
                    format!("unknown event assertion `{other}`"),
                    Some(&help),
                );
                None
            }
        }
    }

    /// `<name>` or `{name: <name>, <extra>: ...}`.
    fn named<'n>(
        &mut self,
        v: &'n Node,
        extra: &str,
        what: &str,
        help: &str,
    ) -> Option<(String, Option<&'n Node>)> {
        if v.as_map().is_none() {
            return self.text_of(v, what, help).map(|n| (n, None));
        }
        let before = self.errors.len();
        let suggested = self.unknown_keys(v, &["name", extra], "this assertion");
        let name = match v.get("name") {
            Some(n) => self.text_of(n, what, help),
            None if suggested.iter().any(|k| k == "name") => None,
            None => {
                self.err(v.span, "missing `name`", Some(help));
                None
            }
        };
        if self.errors.len() > before {
            return None;
        }
        Some((name?, v.get(extra)))
    }
}

fn list_keys(keys: &[&str]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

// ---------------------------------------------------------------------------
// Matching

fn of_type<'e>(events: &'e [Value], ty: &'e str) -> impl Iterator<Item = &'e Value> + 'e {
    events
        .iter()
        .filter(move |e| e.get("type").and_then(Value::as_str) == Some(ty))
}

fn str_field<'e>(e: &'e Value, key: &str) -> &'e str {
    e.get(key).and_then(Value::as_str).unwrap_or("")
}

/// JSON equality with numbers compared by value.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Whether `actual` contains `expected`: objects by their keys (recursively),
/// everything else by [`json_eq`].
pub fn json_subset(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(x), Value::Object(y)) => x
            .iter()
            .all(|(k, v)| y.get(k).is_some_and(|w| json_subset(v, w))),
        _ => json_eq(expected, actual),
    }
}

fn quoted_list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn skill_check(events: &[Value], ty: &str, skill: &str, verb: &str) -> Result<(), String> {
    let seen: Vec<&str> = of_type(events, ty).map(|e| str_field(e, "skill")).collect();
    if seen.contains(&skill) {
        return Ok(());
    }
    Err(if seen.is_empty() {
        format!("expected skill `{skill}` to be {verb}, but no skill was {verb} in this turn")
    } else {
        format!(
            "expected skill `{skill}` to be {verb}, but only {} {} {verb} in this turn",
            quoted_list(seen.iter().copied()),
            if seen.len() == 1 { "was" } else { "were" }
        )
    })
}

/// Check one assertion against the JSON events of the turn (see the module
/// docs for their shape) and the names of the tools offered by the turn's
/// latest LLM request. `Err` says what was expected and what happened.
pub fn check_assertion(a: &Assertion, events: &[Value], offered: &[String]) -> Result<(), String> {
    match a {
        Assertion::SkillActivated(s) => skill_check(events, "skill_activated", s, "activated"),
        Assertion::SkillCompleted(s) => skill_check(events, "skill_completed", s, "completed"),
        Assertion::SkillCancelled(s) => skill_check(events, "skill_cancelled", s, "cancelled"),
        Assertion::SkillInterrupted(s) => {
            skill_check(events, "skill_interrupted", s, "interrupted")
        }
        Assertion::SkillResumed(s) => skill_check(events, "skill_resumed", s, "resumed"),
        Assertion::ToolExecuted { name, arguments } => {
            let runs: Vec<&Value> = of_type(events, "tool_executed").collect();
            let same: Vec<&Value> = runs
                .iter()
                .copied()
                .filter(|e| str_field(e, "name") == name)
                .collect();
            let args_of = |e: &Value| e.get("arguments").cloned().unwrap_or(Value::Null);
            match arguments {
                None if !same.is_empty() => return Ok(()),
                Some(want) if same.iter().any(|e| json_subset(want, &args_of(e))) => return Ok(()),
                _ => {}
            }
            let expected = match arguments {
                Some(want) => {
                    format!("expected tool `{name}` to be executed with arguments {want}")
                }
                None => format!("expected tool `{name}` to be executed"),
            };
            Err(if !same.is_empty() {
                let got: Vec<String> = same.iter().map(|e| args_of(e).to_string()).collect();
                format!("{expected}, but it ran with {}", got.join(" and then "))
            } else if runs.is_empty() {
                format!("{expected}, but no tool was executed in this turn")
            } else {
                format!(
                    "{expected}, but only {} ran in this turn",
                    quoted_list(runs.iter().map(|e| str_field(e, "name")))
                )
            })
        }
        Assertion::MemoryWasSet { name, value } => {
            let sets: Vec<&Value> = of_type(events, "memory_set")
                .filter(|e| str_field(e, "name") == name)
                .collect();
            let value_of = |e: &Value| e.get("value").cloned().unwrap_or(Value::Null);
            match value {
                None if !sets.is_empty() => Ok(()),
                Some(want) if sets.iter().any(|e| json_eq(want, &value_of(e))) => Ok(()),
                _ => {
                    let expected = match value {
                        Some(want) => format!("expected memory `{name}` to be set to {want}"),
                        None => format!("expected memory `{name}` to be set"),
                    };
                    if !sets.is_empty() {
                        let got: Vec<String> =
                            sets.iter().map(|e| value_of(e).to_string()).collect();
                        return Err(format!(
                            "{expected}, but it was set to {}",
                            got.join(" and then ")
                        ));
                    }
                    let others: Vec<&str> = of_type(events, "memory_set")
                        .map(|e| str_field(e, "name"))
                        .collect();
                    Err(if others.is_empty() {
                        format!("{expected}, but no memory was set in this turn")
                    } else {
                        format!(
                            "{expected}, but it was not set in this turn (set: {})",
                            quoted_list(others.into_iter())
                        )
                    })
                }
            }
        }
        Assertion::MemoryWasNotSet(name) => {
            let sets: Vec<String> = of_type(events, "memory_set")
                .filter(|e| str_field(e, "name") == name)
                .map(|e| e.get("value").cloned().unwrap_or(Value::Null).to_string())
                .collect();
            if sets.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "expected memory `{name}` not to be set, but it was set to {}",
                    sets.join(" and then ")
                ))
            }
        }
        Assertion::ToolRefused(name) => {
            let refused: Vec<&str> = of_type(events, "tool_refused")
                .map(|e| str_field(e, "name"))
                .collect();
            if refused.contains(&name.as_str()) {
                return Ok(());
            }
            Err(if refused.is_empty() {
                format!("expected a call of `{name}` to be refused, but no call was refused in this turn")
            } else {
                format!(
                    "expected a call of `{name}` to be refused, but only calls of {} were",
                    quoted_list(refused.iter().copied())
                )
            })
        }
        Assertion::BotUttered(part) => {
            let said: Vec<&str> = of_type(events, "bot_uttered")
                .map(|e| str_field(e, "text"))
                .collect();
            if said.iter().any(|t| t.contains(part.as_str())) {
                return Ok(());
            }
            Err(if said.is_empty() {
                format!("expected the bot to say {part:?}, but it said nothing in this turn")
            } else {
                let quoted: Vec<String> = said.iter().map(|t| format!("{t:?}")).collect();
                format!(
                    "expected the bot to say {part:?}, but it said {}",
                    quoted.join(", ")
                )
            })
        }
        Assertion::ToolsOffered { includes, excludes } => {
            let missing: Vec<&str> = includes
                .iter()
                .filter(|t| !offered.contains(t))
                .map(String::as_str)
                .collect();
            let present: Vec<&str> = excludes
                .iter()
                .filter(|t| offered.contains(t))
                .map(String::as_str)
                .collect();
            if missing.is_empty() && present.is_empty() {
                return Ok(());
            }
            let mut problems = Vec::new();
            if !missing.is_empty() {
                problems.push(format!(
                    "expected {} to be offered",
                    quoted_list(missing.into_iter())
                ));
            }
            if !present.is_empty() {
                problems.push(format!(
                    "expected {} not to be offered",
                    quoted_list(present.into_iter())
                ));
            }
            let got = if offered.is_empty() {
                "no tools were offered".to_string()
            } else {
                format!(
                    "offered: {}",
                    quoted_list(offered.iter().map(String::as_str))
                )
            };
            Err(format!("{}; {got}", problems.join(" and ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULL: &str = r#"tests:
  - name: lock card only after a card is selected
    steps:
      - user: I lost my card
      - llm:
          tool_calls:
            - activate: {flow_id: card_replace}
      - llm: {text: "Which card?"}
      - assert:
          tools_offered: {includes: [get_customer_info], excludes: [lock_card]}
      - user: yes
      - llm: {tool_calls: [{set_fields: {reason: lost}}, complete_skill], text: Done}
      - llm: Okay
      - assert:
          events:
            - skill_activated: card_replace
            - tool_executed: {name: lock_card, arguments: {card_id: C-1}}
            - tool_executed: cannot_help
            - memory_was_set: {name: card_replace.reason, value: lost}
            - memory_was_set: card_replace.count
            - memory_was_not_set: card_replace.order_id
            - bot_uttered: "Your new card"
            - skill_completed: card_replace
            - skill_cancelled: 1234
  - name: second
    steps:
      - assert: {events: [bot_uttered: Welcome]}
"#;

    fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }

    #[test]
    fn parses_every_step_and_assertion() {
        let f = parse(FULL).unwrap();
        assert_eq!(f.tests.len(), 2);
        let t = &f.tests[0];
        assert_eq!(t.name, "lock card only after a card is selected");
        assert_eq!(t.steps.len(), t.step_spans.len());
        assert_eq!(&FULL[t.step_spans[0].range()], "user: I lost my card");
        assert_eq!(
            t.steps,
            vec![
                Step::User("I lost my card".into()),
                Step::Llm(ChatResponse {
                    content: None,
                    tool_calls: vec![call(
                        "call_1",
                        "activate",
                        json!({"flow_id": "card_replace"})
                    )],
                }),
                Step::Llm(ChatResponse {
                    content: Some("Which card?".into()),
                    tool_calls: vec![],
                }),
                Step::Assert(vec![Assertion::ToolsOffered {
                    includes: vec!["get_customer_info".into()],
                    excludes: vec!["lock_card".into()],
                }]),
                Step::User("yes".into()),
                Step::Llm(ChatResponse {
                    content: Some("Done".into()),
                    tool_calls: vec![
                        call("call_2", "set_fields", json!({"reason": "lost"})),
                        call("call_3", "complete_skill", json!({})),
                    ],
                }),
                Step::Llm(ChatResponse {
                    content: Some("Okay".into()),
                    tool_calls: vec![],
                }),
                Step::Assert(vec![
                    Assertion::SkillActivated("card_replace".into()),
                    Assertion::ToolExecuted {
                        name: "lock_card".into(),
                        arguments: Some(json!({"card_id": "C-1"})),
                    },
                    Assertion::ToolExecuted {
                        name: "cannot_help".into(),
                        arguments: None,
                    },
                    Assertion::MemoryWasSet {
                        name: "card_replace.reason".into(),
                        value: Some(json!("lost")),
                    },
                    Assertion::MemoryWasSet {
                        name: "card_replace.count".into(),
                        value: None,
                    },
                    Assertion::MemoryWasNotSet("card_replace.order_id".into()),
                    Assertion::BotUttered("Your new card".into()),
                    Assertion::SkillCompleted("card_replace".into()),
                    Assertion::SkillCancelled("1234".into()),
                ]),
            ]
        );
        assert_eq!(
            f.tests[1].steps,
            vec![Step::Assert(vec![Assertion::BotUttered("Welcome".into())])]
        );

        let turns = t.turns();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].user, Some("I lost my card"));
        assert_eq!(turns[0].user_step, Some(0));
        assert_eq!(turns[0].replies.len(), 2);
        assert_eq!(turns[0].asserts.len(), 1);
        assert_eq!(turns[0].asserts[0].0, 3);
        assert_eq!(turns[1].user, Some("yes"));
        assert_eq!(turns[1].replies.len(), 2);
        assert_eq!(turns[1].asserts[0].0, 7);
        assert_eq!(turns[1].asserts[0].1.len(), 9);
        let start = f.tests[1].turns();
        assert_eq!(start.len(), 1);
        assert_eq!(start[0].user, None);
        assert_eq!(start[0].asserts.len(), 1);
    }

    /// The errors as `(text at the span, message, help)`.
    fn errors(text: &str) -> Vec<(String, String, Option<String>)> {
        parse(text)
            .unwrap_err()
            .into_iter()
            .map(|e| (text[e.span.range()].to_string(), e.message, e.help))
            .collect()
    }

    fn one_error(text: &str) -> (String, String, Option<String>) {
        let mut e = errors(text);
        assert_eq!(e.len(), 1, "{e:#?}");
        e.remove(0)
    }

    #[test]
    fn file_level_errors() {
        assert_eq!(one_error("").1, "the test file is empty");
        assert_eq!(
            one_error("- a").1,
            "the test file must be a mapping, found list"
        );
        assert_eq!(one_error("test: []").0, "test");
        let (at, msg, help) = errors("test: []").remove(0);
        assert_eq!(
            (at.as_str(), msg.as_str()),
            ("test", "unknown key `test` in the test file")
        );
        assert_eq!(help.as_deref(), Some("did you mean `tests`?"));
        assert_eq!(
            one_error("tests: {}").1,
            "`tests` must be a list, found mapping"
        );
        assert_eq!(one_error("tests: []").1, "`tests` is empty");
        assert!(!errors("tests: [\n").is_empty());
        let e = one_error("tests:\n  - nmae: a\n    steps: [{user: hi}]\n");
        assert_eq!(e.2.as_deref(), Some("did you mean `name`?"));
    }

    #[test]
    fn test_case_errors() {
        let e = one_error("tests:\n  - steps: [{user: hi}]\n");
        assert_eq!(e.1, "test case 1 has no `name`");
        let e = one_error("tests:\n  - name: a\n");
        assert_eq!(e.1, "test case 1 has no `steps`");
        let e = one_error("tests:\n  - name: a\n    steps: []\n");
        assert_eq!((e.0.as_str(), e.1.as_str()), ("[]", "`steps` is empty"));
        let e = one_error("tests:\n  - name: a\n    stesp: []\n    steps: [{user: hi}]\n");
        assert_eq!(e.0, "stesp");
        assert_eq!(e.2.as_deref(), Some("did you mean `steps`?"));
        let e = one_error(
            "tests:\n  - name: a\n    steps: [{user: hi}]\n  - name: a\n    steps: [{user: hi}]\n",
        );
        assert_eq!(
            (e.0.as_str(), e.1.as_str()),
            ("a", "two test cases are named `a`")
        );
        let e = one_error("tests:\n  - just text\n");
        assert_eq!(e.1, "test case 1 must be a mapping, found a string");
    }

    fn step_error(steps: &str) -> (String, String, Option<String>) {
        one_error(&format!("tests:\n  - name: t\n    steps:\n{steps}"))
    }

    #[test]
    fn step_errors() {
        let e = step_error("      - usr: hi\n");
        assert_eq!((e.0.as_str(), e.1.as_str()), ("usr", "unknown step `usr`"));
        assert_eq!(e.2.as_deref(), Some("did you mean `user`?"));
        let e = step_error("      - user: hi\n        llm: x\n");
        assert_eq!(
            e.1,
            "a step must be a mapping with one key, found a mapping with 2 keys"
        );
        let e = step_error("      - user:\n");
        assert_eq!(e.1, "the user message must be a text, found nothing");
        let e = step_error("      - user: [a]\n");
        assert_eq!(
            (e.0.as_str(), e.1.as_str()),
            ("[a]", "the user message must be a text, found a list")
        );
        let e = step_error("      - llm: hi\n");
        assert_eq!(e.1, "an `llm` reply before the first `user` step");
        let e = step_error(
            "      - user: hi\n      - assert: {events: [bot_uttered: x]}\n      - llm: late\n",
        );
        assert_eq!(
            (e.0.as_str(), e.1.as_str()),
            (
                "llm: late",
                "an `llm` reply after an `assert` step of the same turn"
            )
        );
        let e = step_error("      - user: hi\n      - llm: {txt: a}\n");
        assert_eq!(
            (e.0.as_str(), e.1.as_str()),
            ("txt", "unknown key `txt` in an `llm` reply")
        );
        let e = step_error("      - user: hi\n      - llm: {tool_calls: {a: 1}}\n");
        assert_eq!(e.1, "`tool_calls` must be a list, found a mapping");
        let e = step_error("      - user: hi\n      - llm: {tool_calls: [{a: 1}]}\n");
        assert_eq!(
            (e.0.as_str(), e.1.as_str()),
            (
                "1",
                "the arguments of `a` must be a mapping, found an integer"
            )
        );
        let e = step_error("      - user: hi\n      - llm: {tool_calls: [{a: {}, b: {}}]}\n");
        assert_eq!(
            e.1,
            "a tool call must be a mapping with one key (the tool), found 2 keys"
        );
        // `llm: {}` is an empty reply.
        let f = parse("tests:\n  - name: t\n    steps: [{user: hi}, {llm: {}}]\n").unwrap();
        assert_eq!(f.tests[0].steps[1], Step::Llm(ChatResponse::default()));
    }

    #[test]
    fn assertion_errors() {
        let e = step_error("      - assert: []\n");
        assert_eq!(e.1, "`assert` must be a mapping, found a list");
        let e = step_error("      - assert: {}\n");
        assert_eq!(e.1, "`assert` must be a mapping, found an empty mapping");
        let e = step_error("      - assert: {event: []}\n");
        assert_eq!(e.2.as_deref(), Some("did you mean `events`?"));
        let e = step_error("      - assert: {events: []}\n");
        assert_eq!(e.1, "`events` must be a non-empty list");
        let e = step_error("      - assert: {events: [skill_activate: a]}\n");
        assert_eq!(
            (e.0.as_str(), e.1.as_str()),
            ("skill_activate", "unknown event assertion `skill_activate`")
        );
        assert_eq!(e.2.as_deref(), Some("did you mean `skill_activated`?"));
        let e = step_error("      - assert: {events: [skill_activated: ]}\n");
        assert_eq!(e.1, "the skill id must be a text, found nothing");
        assert_eq!(e.2.as_deref(), Some("write `skill_activated: <skill id>`"));
        let e = step_error("      - assert: {events: [tool_executed: {arguments: {}}]}\n");
        assert_eq!(e.1, "missing `name`");
        let e = step_error("      - assert: {events: [tool_executed: {name: a, arguments: 3}]}\n");
        assert_eq!(
            (e.0.as_str(), e.1.as_str()),
            ("3", "`arguments` must be a mapping, found an integer")
        );
        let e = step_error("      - assert: {events: [tool_executed: {name: a, args: {}}]}\n");
        assert_eq!(
            e.2.as_deref(),
            Some("this assertion takes `name` or `arguments`")
        );
        let e =
            step_error("      - assert: {events: [memory_was_set: {name: a.b, value: null}]}\n");
        assert_eq!(
            (e.0.as_str(), e.1.as_str()),
            ("null", "`value: null` cannot be set")
        );
        let e = step_error("      - assert: {events: [bot_uttered: \"\"]}\n");
        assert_eq!(e.1, "the expected text is empty");
        let e = step_error("      - assert: {tools_offered: []}\n");
        assert_eq!(
            e.1,
            "`tools_offered` must be a mapping with `includes` and/or `excludes`"
        );
        let e = step_error("      - assert: {tools_offered: {include: [a]}}\n");
        assert_eq!(e.2.as_deref(), Some("did you mean `includes`?"));
        // A single name is a list of one.
        let f =
            parse("tests:\n  - name: t\n    steps: [{assert: {tools_offered: {excludes: a}}}]\n")
                .unwrap();
        assert_eq!(
            f.tests[0].steps[0],
            Step::Assert(vec![Assertion::ToolsOffered {
                includes: vec![],
                excludes: vec!["a".into()]
            }])
        );
    }

    #[test]
    fn reports_every_error_and_yaml_problems() {
        let e = errors(
            "tests:\n  - name: a\n    steps: [{usr: a}, {user: b}, {llm: {tool_calls: 1}}]\n  - name: b\n    name: c\n    steps: [{user: x}]\n",
        );
        let msgs: Vec<&str> = e.iter().map(|e| e.1.as_str()).collect();
        assert_eq!(
            msgs,
            vec![
                "unknown step `usr`",
                "`tool_calls` must be a list, found an integer",
                "the key `name` appears more than once in this mapping; the last one wins",
            ]
        );
        assert_eq!(e[2].0, "name");
    }

    fn events() -> Vec<Value> {
        vec![
            json!({"type": "skill_activated", "skill": "card_replace"}),
            json!({"type": "tool_executed", "name": "lock_card", "arguments": {"card_id": "C-1", "force": true}, "result": "ok"}),
            json!({"type": "memory_set", "name": "card_replace.reason", "value": "lost"}),
            json!({"type": "memory_set", "name": "card_replace.count", "value": 2}),
            json!({"type": "bot_uttered", "text": "Your new card is on its way."}),
            json!({"type": "skill_completed", "skill": "card_replace"}),
            json!({"type": "skill_interrupted", "skill": "card_replace", "to": "check_balance"}),
            json!({"type": "skill_resumed", "skill": "update_address"}),
            json!({"type": "user_uttered", "text": "hi"}),
        ]
    }

    fn check(a: Assertion) -> Result<(), String> {
        check_assertion(
            &a,
            &events(),
            &["activate".to_string(), "lock_card".to_string()],
        )
    }

    #[test]
    fn skill_assertions() {
        assert_eq!(
            check(Assertion::SkillActivated("card_replace".into())),
            Ok(())
        );
        assert_eq!(
            check(Assertion::SkillCompleted("card_replace".into())),
            Ok(())
        );
        assert_eq!(
            check(Assertion::SkillActivated("check_balance".into())),
            Err("expected skill `check_balance` to be activated, but only `card_replace` was activated in this turn".into())
        );
        assert_eq!(
            check(Assertion::SkillCancelled("card_replace".into())),
            Err("expected skill `card_replace` to be cancelled, but no skill was cancelled in this turn".into())
        );
        assert_eq!(
            check(Assertion::SkillInterrupted("card_replace".into())),
            Ok(())
        );
        assert_eq!(
            check(Assertion::SkillResumed("card_replace".into())),
            Err("expected skill `card_replace` to be resumed, but only `update_address` was resumed in this turn".into())
        );
        assert_eq!(
            check(Assertion::SkillInterrupted("update_address".into())),
            Err("expected skill `update_address` to be interrupted, but only `card_replace` was interrupted in this turn".into())
        );
    }

    #[test]
    fn tool_refused_assertion() {
        let events = [
            json!({"type": "tool_refused", "name": "lock_card", "arguments": {}, "reason": "gate"}),
        ];
        let check = |t: &str| check_assertion(&Assertion::ToolRefused(t.into()), &events, &[]);
        assert_eq!(check("lock_card"), Ok(()));
        assert_eq!(
            check("other"),
            Err(
                "expected a call of `other` to be refused, but only calls of `lock_card` were"
                    .into()
            )
        );
        assert_eq!(
            check_assertion(&Assertion::ToolRefused("x".into()), &[], &[]),
            Err(
                "expected a call of `x` to be refused, but no call was refused in this turn".into()
            )
        );
    }

    #[test]
    fn interrupt_and_resume_assertions_parse() {
        let file = parse(
            "tests:\n  - name: t\n    steps:\n      - user: hi\n      - assert:\n          events:\n            - skill_interrupted: card_replace\n            - skill_resumed: card_replace\n",
        )
        .unwrap();
        assert_eq!(
            file.tests[0].steps[1],
            Step::Assert(vec![
                Assertion::SkillInterrupted("card_replace".into()),
                Assertion::SkillResumed("card_replace".into()),
            ])
        );
    }

    #[test]
    fn tool_assertions() {
        let tool = |name: &str, arguments: Option<Value>| Assertion::ToolExecuted {
            name: name.into(),
            arguments,
        };
        assert_eq!(check(tool("lock_card", None)), Ok(()));
        assert_eq!(
            check(tool("lock_card", Some(json!({"card_id": "C-1"})))),
            Ok(())
        );
        assert_eq!(check(tool("lock_card", Some(json!({})))), Ok(()));
        assert_eq!(
            check(tool("lock_card", Some(json!({"card_id": "C-2"})))),
            Err(r#"expected tool `lock_card` to be executed with arguments {"card_id":"C-2"}, but it ran with {"card_id":"C-1","force":true}"#.into())
        );
        assert_eq!(
            check(tool("order_card", None)),
            Err(
                "expected tool `order_card` to be executed, but only `lock_card` ran in this turn"
                    .into()
            )
        );
        assert_eq!(
            check_assertion(&tool("order_card", None), &[], &[]),
            Err(
                "expected tool `order_card` to be executed, but no tool was executed in this turn"
                    .into()
            )
        );
    }

    #[test]
    fn memory_assertions() {
        let set = |name: &str, value: Option<Value>| Assertion::MemoryWasSet {
            name: name.into(),
            value,
        };
        assert_eq!(check(set("card_replace.reason", None)), Ok(()));
        assert_eq!(
            check(set("card_replace.reason", Some(json!("lost")))),
            Ok(())
        );
        assert_eq!(check(set("card_replace.count", Some(json!(2.0)))), Ok(()));
        assert_eq!(
            check(set("card_replace.reason", Some(json!("stolen")))),
            Err(r#"expected memory `card_replace.reason` to be set to "stolen", but it was set to "lost""#.into())
        );
        assert_eq!(
            check(set("card_replace.order_id", None)),
            Err("expected memory `card_replace.order_id` to be set, but it was not set in this turn (set: `card_replace.reason`, `card_replace.count`)".into())
        );
        assert_eq!(
            check_assertion(&set("a.b", None), &[], &[]),
            Err("expected memory `a.b` to be set, but no memory was set in this turn".into())
        );
        assert_eq!(
            check(Assertion::MemoryWasNotSet("card_replace.order_id".into())),
            Ok(())
        );
        assert_eq!(
            check(Assertion::MemoryWasNotSet("card_replace.reason".into())),
            Err(
                r#"expected memory `card_replace.reason` not to be set, but it was set to "lost""#
                    .into()
            )
        );
    }

    #[test]
    fn bot_and_offered_assertions() {
        assert_eq!(check(Assertion::BotUttered("new card".into())), Ok(()));
        assert_eq!(
            check(Assertion::BotUttered("Goodbye".into())),
            Err(
                r#"expected the bot to say "Goodbye", but it said "Your new card is on its way.""#
                    .into()
            )
        );
        assert_eq!(
            check_assertion(&Assertion::BotUttered("Hi".into()), &[], &[]),
            Err(r#"expected the bot to say "Hi", but it said nothing in this turn"#.into())
        );
        let offered = |i: &[&str], e: &[&str]| Assertion::ToolsOffered {
            includes: i.iter().map(|s| s.to_string()).collect(),
            excludes: e.iter().map(|s| s.to_string()).collect(),
        };
        assert_eq!(check(offered(&["activate"], &["set_fields"])), Ok(()));
        assert_eq!(
            check(offered(&["activate", "set_fields"], &["lock_card"])),
            Err("expected `set_fields` to be offered and expected `lock_card` not to be offered; offered: `activate`, `lock_card`".into())
        );
        assert_eq!(
            check_assertion(&offered(&["a"], &[]), &[], &[]),
            Err("expected `a` to be offered; no tools were offered".into())
        );
    }

    #[test]
    fn json_helpers() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(!json_eq(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(json_subset(
            &json!({"a": {"b": 1}}),
            &json!({"a": {"b": 1, "c": 2}, "d": 3})
        ));
        assert!(!json_subset(&json!([1]), &json!([1, 2])));
        assert!(!json_subset(&json!({"a": 1}), &json!("x")));
    }

    proptest::proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,200}") {
            let _ = parse(&s);
        }

        #[test]
        fn parse_never_panics_on_test_shaped_input(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "tests:", "\n", "  - ", "name: ", "steps:", "user: ", "llm: ", "assert: ",
                "events: ", "tools_offered: ", "{", "}", "[", "]", ", ", "tool_calls: ",
                "skill_activated: ", "memory_was_set: ", "value: ", "x", "1", "~", "\"", ":",
            ]), 0..60)
        ) {
            let s: String = parts.concat();
            if let Err(errs) = parse(&s) {
                for e in errs {
                    proptest::prop_assert!(e.span.end <= s.len());
                    proptest::prop_assert!(!e.message.is_empty());
                }
            }
        }
    }
}
