//! The conversation engine: a state machine over the manifest with no I/O.
//!
//! A driver feeds it [`Input`]s (a user message, the LLM's response, the
//! outcome of a tool it ran) and gets back an [`Output`]: messages to send
//! now and the [`Next`] thing to do (call the LLM with this request, run
//! this Python tool, or wait for the user). While a tool runs, the driver
//! answers its `context.memory` and `context.send` requests through
//! [`Engine::host`].
//!
//! The guarantees of the seeds live here: the tool list per state (the
//! framework tools' "when offered" rules, gates, the post-search collapse),
//! gates checked again when a call arrives (a call to a tool that would not
//! be offered is refused and never runs, D12), confirmations (with
//! `requires` re-checked on approval), memory rules (D7), post-write hooks
//! with rollback, and the append-only event log.
//!
//! The skill stack: `activate` while a skill is active is a digression; the
//! active skill is parked (`skill_interrupted`), not lost. When the skill on
//! top of a parked one completes or is cancelled, nothing is active and
//! resuming is on offer: the tool result and the prompt tell the LLM to ask
//! the user, `activate` with the parked id resumes it (`skill_resumed`,
//! memory and pending confirmation kept) and `cancel_skill` drops it. The
//! reference engine runs a bundled `default_continue_interrupted` skill for
//! that question; maestro lets the LLM phrase it and drops only the skill on
//! offer when the user declines (the reference drops every parked skill),
//! so that nothing the user started is dropped without being asked.

use crate::condition::{self, Value as CondValue};
use crate::knowledge::KnowledgeIndex;
use crate::manifest::{self, Manifest};
use crate::memory::MemoryModel;
use crate::runtime::memory::{Scope, Values};
use crate::runtime::types::{
    ChatMessage, ChatRequest, ChatResponse, ToolCall, ToolHost, ToolOutcome, ToolSpec,
};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::VecDeque;

/// A tool as the shell's `--debug` panel shows it after each turn (the
/// seeds' Inspector: every tool with its current gate result).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolState {
    pub name: String,
    /// Offered in the current state.
    pub offered: bool,
    /// The `requires:` condition of a gated builder tool, as written.
    pub requires: Option<String>,
    /// Whether that condition holds now.
    pub gate_holds: Option<bool>,
}

pub use crate::manifest::FRAMEWORK_TOOLS;

/// Maximum LLM calls in one turn.
pub const MAX_ITERATIONS: u32 = 20;
/// Text sent when a turn cannot go on (LLM failure, iteration cap).
pub const FALLBACK_ERROR: &str = "I'm sorry, but something went wrong. Please try again.";
/// The error result of a tool call that an interrupted turn never ran (D13).
pub const NOT_RUN: &str = "Not run: the turn was interrupted.";

/// One entry of the append-only event log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    UserUttered {
        text: String,
    },
    BotUttered {
        text: String,
    },
    SkillActivated {
        skill: String,
    },
    SkillCompleted {
        skill: String,
    },
    SkillCancelled {
        skill: String,
    },
    /// A skill was parked because the LLM started (or resumed) `to` on top
    /// of it (a digression). Its memory is kept.
    SkillInterrupted {
        skill: String,
        to: String,
    },
    /// A parked skill became the active skill again (with its memory).
    SkillResumed {
        skill: String,
    },
    ToolExecuted {
        name: String,
        arguments: Value,
        result: Value,
        is_error: bool,
    },
    ToolCancelled {
        name: String,
        arguments: Value,
    },
    /// A call that was answered with an error without running: the tool
    /// is not offered now (D12), its gate is unmet, its arguments are
    /// invalid, or another confirmation is pending.
    ToolRefused {
        name: String,
        arguments: Value,
        reason: String,
    },
    MemorySet {
        name: String,
        value: Value,
    },
    MemoryCleared {
        name: String,
    },
    ConfirmationRequested {
        tool: String,
        arguments: Value,
    },
    ConfirmationResolved {
        tool: String,
        confirmed: bool,
    },
}

/// A tool call held until the user confirms it.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingConfirmation {
    pub skill: String,
    pub tool: String,
    pub arguments: Value,
    /// The turn in which it was requested (it cannot be resolved then).
    pub turn: u32,
}

/// What the driver must run in Python.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRun {
    pub name: String,
    pub module: String,
    pub function: String,
    pub arguments: Value,
    /// The skill whose memory view the tool's `context.memory` uses.
    pub skill: String,
    /// The `context` payload for the worker (skill id, events, model).
    pub context: Value,
}

/// What to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    CallLlm(ChatRequest),
    RunTool(ToolRun),
    WaitForUser,
}

/// The result of one step: messages to send now, then what to do.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub say: Vec<String>,
    pub next: Next,
}

/// An input to the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    User(String),
    Llm(ChatResponse),
    /// The LLM provider failed (after its retries).
    LlmFailed(String),
    Tool(ToolOutcome),
}

/// What the driver is running for the engine.
#[derive(Debug, Clone, PartialEq)]
enum Running {
    /// An LLM-invoked (or confirmed) builder tool.
    Tool { call: ToolCall, skill: String },
    /// A post-write hook after a `set_fields` / `correct` write.
    Hook {
        call: ToolCall,
        field: String,
        /// The qualified key and value of the triggering write.
        key: String,
        value: Value,
        snapshot: Values,
        rest: Vec<(String, Value)>,
        lines: Vec<String>,
        wrote: bool,
    },
}

/// One skill on the stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub skill: String,
    /// Parked by a digression: another skill was started on top of it. A
    /// parked skill is not active; `activate` with its id resumes it.
    pub interrupted: bool,
}

/// The state of one conversation.
#[derive(Debug, Clone, Default)]
pub struct Conversation {
    /// The skill stack, top last. The top frame is the active skill unless
    /// it is parked (`interrupted`): then a skill that interrupted it has
    /// just ended, and resuming it is on offer (see [`Engine::step`]).
    pub stack: Vec<Frame>,
    pub memory: Values,
    pub events: Vec<Event>,
    pub history: Vec<ChatMessage>,
    pub pending: Option<PendingConfirmation>,
    turn: u32,
    iterations: u32,
    searched: bool,
    /// A message that ends the turn was sent (a confirmation question, a
    /// denial response): once the batch of calls is done, the turn waits
    /// for the user instead of calling the LLM again.
    wait: bool,
    queue: VecDeque<ToolCall>,
    running: Option<Running>,
    say: Vec<String>,
}

impl Conversation {
    /// The active skill: the top of the stack unless it is parked.
    pub fn active(&self) -> Option<&str> {
        self.stack
            .last()
            .filter(|f| !f.interrupted)
            .map(|f| f.skill.as_str())
    }

    /// The parked skill offered for resumption: the top of the stack when a
    /// skill that interrupted it has completed or been cancelled.
    pub fn resume_offer(&self) -> Option<&str> {
        self.stack
            .last()
            .filter(|f| f.interrupted)
            .map(|f| f.skill.as_str())
    }

    /// The parked skills, most recently parked first.
    pub fn interrupted(&self) -> impl Iterator<Item = &str> {
        self.stack
            .iter()
            .rev()
            .filter(|f| f.interrupted)
            .map(|f| f.skill.as_str())
    }

    fn on_stack(&self, skill: &str) -> bool {
        self.stack.iter().any(|f| f.skill == skill)
    }

    /// The number of user turns so far.
    pub fn turn(&self) -> u32 {
        self.turn
    }
}

/// The engine over one packaged model.
#[derive(Debug, Clone)]
pub struct Engine {
    pub manifest: Manifest,
    pub knowledge: Option<KnowledgeIndex>,
    /// `manifest.memory` as the check pipeline's model: every memory rule
    /// (D7) is asked of it. Built once in [`Engine::new`] (a later change
    /// to `manifest.memory` does not reach it).
    memory: MemoryModel,
}

fn error_json(message: impl Into<String>) -> Value {
    json!({ "error": message.into() })
}

impl Engine {
    pub fn new(manifest: Manifest, knowledge: Option<KnowledgeIndex>) -> Self {
        Engine {
            memory: MemoryModel::from_manifest(&manifest.memory),
            manifest,
            knowledge,
        }
    }

    fn skill(&self, id: &str) -> Option<&manifest::Skill> {
        self.manifest.skills.iter().find(|s| s.id == id)
    }

    fn scope<'a>(&'a self, skill: Option<&'a str>) -> Scope<'a> {
        Scope {
            model: &self.memory,
            skill,
        }
    }

    /// Skills the LLM may start with `activate` (not hidden, not disabled,
    /// not already on the stack).
    pub fn startable(&self, conv: &Conversation) -> Vec<&manifest::Skill> {
        self.manifest
            .skills
            .iter()
            .filter(|s| !s.hidden && !s.disabled && !conv.on_stack(&s.id))
            .collect()
    }

    /// The `flow_id` values `activate` accepts now: the startable skills,
    /// then the parked ones (activating a parked skill resumes it).
    pub fn activatable<'a>(&'a self, conv: &'a Conversation) -> Vec<&'a str> {
        let mut ids: Vec<&str> = self
            .startable(conv)
            .into_iter()
            .map(|s| s.id.as_str())
            .collect();
        ids.extend(conv.interrupted());
        ids
    }

    /// Whether a gate holds for the active skill (fail closed).
    pub fn gate_holds(&self, conv: &Conversation, gate: &manifest::Gate) -> bool {
        let scope = self.scope(conv.active());
        let lookup = |ns: &str, entry: &str| -> Option<CondValue> {
            let v = scope.get_qualified(&conv.memory, ns, entry);
            (!v.is_null()).then(|| CondValue::from(v))
        };
        condition::evaluate(&gate.condition, &lookup).is_ok_and(|v| condition::truthy(&v))
    }

    /// The builder tools of the active skill that are offered now.
    fn builder_tools<'a>(&'a self, conv: &Conversation) -> Vec<&'a manifest::Tool> {
        let Some(skill) = conv.active().and_then(|id| self.skill(id)) else {
            return Vec::new();
        };
        skill
            .tools
            .iter()
            .filter(|t| t.gate.as_ref().is_none_or(|g| self.gate_holds(conv, g)))
            .collect()
    }

    fn builtin_enabled(&self, name: &str) -> bool {
        let alias = match name {
            "cancel_skill" => "cancel",
            "complete_skill" => "complete",
            other => other,
        };
        !self
            .manifest
            .agent
            .builtin_tools
            .iter()
            .any(|b| (b.tool == name || b.tool == alias) && !b.enabled)
    }

    fn has_knowledge(&self) -> bool {
        self.knowledge.as_ref().is_some_and(|k| !k.is_empty())
            && self.builtin_enabled("search_knowledge")
    }

    /// The correctable values: settable fields of the active skill (and the
    /// project) that hold a value.
    fn correctable(&self, conv: &Conversation) -> Vec<String> {
        let scope = self.scope(conv.active());
        scope
            .settable()
            .into_iter()
            .filter(|f| !scope.get(&conv.memory, &f.name).is_null())
            .map(|f| f.name.clone())
            .collect()
    }

    /// The tool list for the current state, exactly as the seeds' table.
    pub fn offered_tools(&self, conv: &Conversation) -> Vec<ToolSpec> {
        let mut out = Vec::new();
        let ids = self.activatable(conv);
        if !ids.is_empty() && self.builtin_enabled("activate") {
            out.push(spec(
                "activate",
                "Start or switch to the skill that serves the user's request, or resume an interrupted one.",
                json!({"type":"object","properties":{"flow_id":{"type":"string","enum":ids}},"required":["flow_id"],"additionalProperties":false}),
            ));
        }
        let knowledge = self.has_knowledge();
        if knowledge {
            out.push(spec(
                "search_knowledge",
                "Search the knowledge base before answering an informational question.",
                json!({"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}),
            ));
        }
        if (conv.searched || !knowledge) && self.builtin_enabled("cannot_help") {
            out.push(spec(
                "cannot_help",
                "Decline a request that no skill, tool or knowledge can serve.",
                json!({"type":"object","properties":{"in_domain":{"type":"boolean"}},"required":["in_domain"],"additionalProperties":false}),
            ));
        }
        let pending = conv
            .pending
            .as_ref()
            .filter(|p| Some(p.skill.as_str()) == conv.active());
        if let Some(p) = pending {
            out.push(spec(
                "resolve_tool_confirmation",
                &format!("Record whether the user approved running `{}` (true) or declined (false).", p.tool),
                json!({"type":"object","properties":{"confirmed":{"type":"boolean"}},"required":["confirmed"],"additionalProperties":false}),
            ));
        }
        if conv.searched {
            return out; // the post-search collapse
        }
        if let (Some(parked), true) = (conv.resume_offer(), self.builtin_enabled("cancel_skill")) {
            out.push(spec(
                "cancel_skill",
                &format!("Drop the interrupted skill `{parked}`: only when the user does not want to continue it."),
                empty_object(),
            ));
        }
        if conv.active().is_some() {
            if self.builtin_enabled("complete_skill") {
                out.push(spec(
                    "complete_skill",
                    "Mark the active skill as finished.",
                    empty_object(),
                ));
            }
            if self.builtin_enabled("cancel_skill") {
                out.push(spec(
                    "cancel_skill",
                    "Abandon the active skill, only on a clear request.",
                    empty_object(),
                ));
            }
            let scope = self.scope(conv.active());
            let settable = scope.settable();
            if !settable.is_empty() {
                let props: serde_json::Map<String, Value> = settable
                    .iter()
                    .map(|f| (f.name.clone(), json!({"type": json_type(f.type_name.as_deref()), "description": f.description.clone().unwrap_or_else(|| format!("The value for '{}'.", f.name))})))
                    .collect();
                out.push(spec(
                    "set_fields",
                    "Record one or more values the user stated.",
                    json!({"type":"object","properties":props,"required":[],"additionalProperties":false}),
                ));
            }
            let correctable = self.correctable(conv);
            if !correctable.is_empty() {
                out.push(spec(
                    "correct",
                    "Revise a value the user already provided.",
                    json!({"type":"object","properties":{"memory_key":{"type":"string","enum":correctable},"value":{}},"required":["memory_key","value"],"additionalProperties":false}),
                ));
            }
            for t in self.builder_tools(conv) {
                out.push(spec(&t.name, &t.description, t.parameters.clone()));
            }
        }
        out
    }

    /// `id (name): description` of a skill, for the prompt.
    fn label(&self, id: &str) -> String {
        match self.skill(id) {
            Some(s) => format!(
                "{} ({}): {}",
                s.id,
                s.name.as_deref().unwrap_or(&s.id),
                s.description
            ),
            None => id.to_string(),
        }
    }

    /// Every tool of the current state: the offered ones in the order the
    /// LLM sees them, then the active skill's builder tools that are not
    /// offered (a gate unmet, or the post-search collapse), each with its
    /// gate and whether the gate holds now.
    pub fn tool_states(&self, conv: &Conversation) -> Vec<ToolState> {
        let offered = self.offered_tools(conv);
        let builder = conv
            .active()
            .and_then(|id| self.skill(id))
            .map(|s| s.tools.as_slice())
            .unwrap_or_default();
        let state = |name: &str, offered: bool| {
            let gate = builder
                .iter()
                .find(|t| t.name == name)
                .and_then(|t| t.gate.as_ref());
            ToolState {
                name: name.to_string(),
                offered,
                requires: gate.map(|g| g.source.clone()),
                gate_holds: gate.map(|g| self.gate_holds(conv, g)),
            }
        };
        let mut out: Vec<ToolState> = offered.iter().map(|t| state(&t.name, true)).collect();
        for t in builder {
            if !offered.iter().any(|o| o.name == t.name) {
                out.push(state(&t.name, false));
            }
        }
        out
    }

    /// The request for the next LLM call.
    fn request(&self, conv: &Conversation) -> ChatRequest {
        let mut system = String::new();
        if let Some(p) = &self.manifest.agent.persona {
            system.push_str(p.trim());
            system.push_str("\n\n");
        }
        for r in &self.manifest.agent.rules {
            system.push_str(&format!("- {r}\n"));
        }
        match conv.active().and_then(|id| self.skill(id)) {
            Some(s) => {
                system.push_str(&format!(
                    "\n## Active skill: {}\n{}\n",
                    s.name.as_deref().unwrap_or(&s.id),
                    s.instructions
                ));
                let parked: Vec<&str> = conv.interrupted().collect();
                if !parked.is_empty() {
                    system.push_str("\n## Interrupted skills\nThe user started these earlier and can return to them; `activate` with the id resumes one.\n");
                    for id in parked {
                        system.push_str(&format!("- {}\n", self.label(id)));
                    }
                }
            }
            None => {
                if let Some(parked) = conv.resume_offer() {
                    system.push_str(&format!(
                        "\n## Interrupted skill\nThe user's earlier request was interrupted: {}. Ask whether they want to continue it. If yes, call `activate` with flow_id `{parked}`; if not, call `cancel_skill` to drop it.\n",
                        self.label(parked)
                    ));
                }
                system.push_str("\n## Skills you can start with `activate`\n");
                for s in self.startable(conv) {
                    system.push_str(&format!("- {}\n", self.label(&s.id)));
                }
            }
        }
        let memory = self.scope(conv.active()).readable_values(&conv.memory);
        if !memory.is_empty() {
            system.push_str("\n## Memory\n");
            for (k, v) in memory {
                system.push_str(&format!("- {k} = {v}\n"));
            }
        }
        // A confirmation belongs to its skill: while that skill is parked,
        // it waits (and is asked again on resume).
        if let Some(p) = conv
            .pending
            .as_ref()
            .filter(|p| Some(p.skill.as_str()) == conv.active())
        {
            let state = if p.turn == conv.turn {
                "needs the user's approval. Ask them to confirm it now; their original request is not an approval. Wait for their answer"
            } else {
                "is waiting for the user's approval. When the user answers, call `resolve_tool_confirmation` with `confirmed` true (approved) or false (declined)"
            };
            system.push_str(&format!(
                "\n## Pending confirmation\nThe call of `{}` with {} {state}.\n",
                p.tool, p.arguments
            ));
        }
        let mut messages = vec![ChatMessage::system(system.trim_end())];
        messages.extend(conv.history.iter().cloned());
        ChatRequest {
            messages,
            tools: self.offered_tools(conv),
        }
    }

    /// Feed one input and get what to do next.
    pub fn step(&self, conv: &mut Conversation, input: Input) -> Output {
        match input {
            Input::User(text) => {
                conv.turn += 1;
                conv.iterations = 0;
                conv.searched = false;
                conv.wait = false;
                self.interrupt(conv);
                conv.events.push(Event::UserUttered { text: text.clone() });
                conv.history.push(ChatMessage::user(text));
                self.call_llm(conv)
            }
            Input::LlmFailed(_) => {
                self.say(conv, FALLBACK_ERROR.to_string());
                self.finish(conv, Next::WaitForUser)
            }
            Input::Llm(resp) => {
                if resp.tool_calls.is_empty() {
                    conv.searched = false;
                    let text = resp.content.unwrap_or_default();
                    conv.history.push(ChatMessage::assistant(text.clone()));
                    if !text.trim().is_empty() {
                        self.say(conv, text);
                    }
                    return self.finish(conv, Next::WaitForUser);
                }
                conv.history.push(ChatMessage {
                    role: crate::runtime::types::Role::Assistant,
                    content: resp.content.clone(),
                    tool_calls: resp.tool_calls.clone(),
                    tool_call_id: None,
                });
                conv.queue = resp.tool_calls.into_iter().collect();
                self.drain(conv)
            }
            Input::Tool(outcome) => self.tool_done(conv, outcome),
        }
    }

    fn say(&self, conv: &mut Conversation, text: String) {
        conv.events.push(Event::BotUttered { text: text.clone() });
        conv.say.push(text);
    }

    fn finish(&self, conv: &mut Conversation, next: Next) -> Output {
        Output {
            say: std::mem::take(&mut conv.say),
            next,
        }
    }

    fn call_llm(&self, conv: &mut Conversation) -> Output {
        if conv.iterations >= MAX_ITERATIONS {
            self.say(conv, FALLBACK_ERROR.to_string());
            return self.finish(conv, Next::WaitForUser);
        }
        conv.iterations += 1;
        let req = self.request(conv);
        self.finish(conv, Next::CallLlm(req))
    }

    /// Process queued tool calls until one needs the driver (a Python tool)
    /// or the queue is empty (then the LLM is called again).
    fn drain(&self, conv: &mut Conversation) -> Output {
        while let Some(call) = conv.queue.pop_front() {
            if let Some(run) = self.dispatch(conv, call) {
                return self.finish(conv, Next::RunTool(run));
            }
        }
        if std::mem::take(&mut conv.wait) {
            return self.finish(conv, Next::WaitForUser);
        }
        self.call_llm(conv)
    }

    /// Drop what is left of a turn: the call still running (a driver gave
    /// up on it) and every queued call get a [`NOT_RUN`] error result.
    /// Every `tool_calls` entry of an assistant message must be answered by
    /// a `tool` message, or OpenAI-compatible servers reject the history.
    fn interrupt(&self, conv: &mut Conversation) {
        if let Some(Running::Tool { call, .. } | Running::Hook { call, .. }) = conv.running.take() {
            self.respond(conv, &call, error_json(NOT_RUN));
        }
        for call in std::mem::take(&mut conv.queue) {
            self.respond(conv, &call, error_json(NOT_RUN));
        }
    }

    fn respond(&self, conv: &mut Conversation, call: &ToolCall, result: Value) {
        let text = match &result {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        conv.history
            .push(ChatMessage::tool_result(call.id.clone(), text));
    }

    /// Answer a call that ran in the engine and record it as executed
    /// (every call that runs is recorded, framework tools included; a
    /// refused one gets `tool_refused` instead). A result with a non-null
    /// `error` counts as an error.
    fn record(&self, conv: &mut Conversation, call: &ToolCall, result: Value) {
        let is_error = result.get("error").is_some_and(|e| !e.is_null());
        conv.events.push(Event::ToolExecuted {
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            result: result.clone(),
            is_error,
        });
        self.respond(conv, call, result);
    }

    /// Answer a call with an error without running it.
    fn refuse(&self, conv: &mut Conversation, call: &ToolCall, reason: String) {
        let result = error_json(reason.clone());
        self.refuse_with(conv, call, reason, result);
    }

    /// Refuse a call whose arguments do not match the offered schema (the
    /// LLM may retry with valid ones).
    fn refuse_arguments(&self, conv: &mut Conversation, call: &ToolCall, why: &str) {
        let reason = format!("Invalid tool arguments: {why}");
        let result = json!({"error": reason, "retryable": true, "code": "invalid_arguments"});
        self.refuse_with(conv, call, reason, result);
    }

    fn refuse_with(&self, conv: &mut Conversation, call: &ToolCall, reason: String, result: Value) {
        conv.events.push(Event::ToolRefused {
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            reason,
        });
        self.respond(conv, call, result);
    }

    /// Handle one tool call; `Some(run)` when Python must run it.
    fn dispatch(&self, conv: &mut Conversation, call: ToolCall) -> Option<ToolRun> {
        let offered = self.offered_tools(conv);
        if !offered.iter().any(|t| t.name == call.name) {
            // D12: a call to a tool that would not be offered never runs.
            let why = if self.builder_any(conv, &call.name) {
                format!(
                    "Tool '{}' is not available now: its gating condition is not met.",
                    call.name
                )
            } else {
                format!("Tool '{}' is not available now.", call.name)
            };
            self.refuse(conv, &call, why);
            return None;
        }
        // Framework tools' arguments are checked against the schema offered
        // this turn (builder tools: in `builder`). `set_fields` and
        // `correct` check each field themselves, so that one bad field
        // gets its own message and does not block the others.
        if call.name == "activate" && call.arguments["flow_id"].as_str() == conv.active() {
            // Not in the enum, but not a mistake worth an error either.
            let note = format!(
                "`{}` is already the active skill; continue it.",
                conv.active().unwrap_or_default()
            );
            self.record(
                conv,
                &call,
                json!({"status": "already_active", "note": note}),
            );
            return None;
        }
        let checked = FRAMEWORK_TOOLS.contains(&call.name.as_str())
            && !matches!(call.name.as_str(), "set_fields" | "correct");
        if checked {
            let schema = offered
                .iter()
                .find(|t| t.name == call.name)
                .map(|t| t.parameters.clone())
                .unwrap_or_else(empty_object);
            if let Err(why) = validate_arguments(&schema, &call.arguments) {
                self.refuse_arguments(conv, &call, &why);
                return None;
            }
        }
        let args = &call.arguments;
        match call.name.as_str() {
            "activate" => {
                let id = args["flow_id"].as_str().unwrap_or_default().to_string();
                let result = self.activate(conv, &id);
                self.record(conv, &call, result);
                None
            }
            "complete_skill" | "cancel_skill" => {
                let result = self.end_skill(conv, call.name == "complete_skill");
                self.record(conv, &call, result);
                None
            }
            "search_knowledge" => {
                let query = args["query"].as_str().unwrap_or_default();
                let hits: Vec<Value> = self
                    .knowledge
                    .as_ref()
                    .map(|k| {
                        k.search(query, conv.active(), 5)
                            .into_iter()
                            .map(|h| json!({"text": h.chunk.text, "source": h.chunk.path, "scope": h.chunk.scope}))
                            .collect()
                    })
                    .unwrap_or_default();
                conv.searched = true;
                let result = if hits.is_empty() {
                    json!({"results": [], "note": "No relevant knowledge found for the query."})
                } else {
                    json!({ "results": hits })
                };
                self.record(conv, &call, result);
                None
            }
            "cannot_help" => {
                self.record(conv, &call, json!({"status": "declined"}));
                None
            }
            "resolve_tool_confirmation" => self.resolve(conv, call),
            "set_fields" => {
                let pairs: Vec<(String, Value)> = args
                    .as_object()
                    .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                    .unwrap_or_default();
                self.write_fields(conv, call, pairs, Vec::new(), false)
            }
            "correct" => {
                let key = args["memory_key"].as_str().unwrap_or_default().to_string();
                let value = args.get("value").cloned().unwrap_or(Value::Null);
                self.write_fields(conv, call, vec![(key, value)], Vec::new(), false)
            }
            _ => self.builder(conv, call, false),
        }
    }

    /// `activate(flow_id)`: resume a parked skill, or start a new run of a
    /// startable one. A live skill on top is parked first (a digression:
    /// `skill_interrupted`), so that nothing the user started is lost.
    fn activate(&self, conv: &mut Conversation, id: &str) -> Value {
        let parked = conv
            .stack
            .iter()
            .position(|f| f.skill == id && f.interrupted);
        if parked.is_none() && !self.startable(conv).iter().any(|s| s.id == id) {
            return error_json(format!("`{id}` is not a skill that can be started now."));
        }
        if parked.is_none() {
            // A new run starts from the skill's initial values (memory.md
            // 3.3); these writes come before the stack events.
            self.reset_memory(conv, id);
        }
        if let Some(top) = conv.stack.last_mut().filter(|f| !f.interrupted) {
            top.interrupted = true;
            let skill = top.skill.clone();
            conv.events.push(Event::SkillInterrupted {
                skill,
                to: id.to_string(),
            });
        }
        match parked {
            Some(at) => {
                let mut frame = conv.stack.remove(at);
                frame.interrupted = false;
                conv.stack.push(frame);
                conv.events.push(Event::SkillResumed {
                    skill: id.to_string(),
                });
                let mut result = json!({"status": "resumed", "skill": id});
                if conv.pending.as_ref().is_some_and(|p| p.skill == id) {
                    result["note"] =
                        json!("A confirmation of this skill is still pending: ask the user again.");
                }
                result
            }
            None => {
                conv.stack.push(Frame {
                    skill: id.to_string(),
                    interrupted: false,
                });
                conv.events.push(Event::SkillActivated {
                    skill: id.to_string(),
                });
                json!({"status": "activated", "skill": id})
            }
        }
    }

    /// Write each field of `skill` back to its `initial_value` (unset when
    /// it has none), recording only the values that change. These writes
    /// are the engine's: they bypass the write rules and run no hooks.
    fn reset_memory(&self, conv: &mut Conversation, skill: &str) {
        let Some(mem) = self.memory.skill(skill) else {
            return;
        };
        for name in mem.names() {
            // The field as its own skill sees it (private wins).
            let Some(field) = mem.field(name) else {
                continue;
            };
            let key = field.qualified_name();
            let initial = field
                .initial_value
                .as_ref()
                .map(crate::yaml::Node::to_json)
                .filter(|v| !v.is_null());
            if conv.memory.get(&key) == initial.as_ref() {
                continue;
            }
            match initial {
                Some(value) => {
                    conv.memory.insert(key.clone(), value.clone());
                    conv.events.push(Event::MemorySet { name: key, value });
                }
                None => {
                    conv.memory.remove(&key);
                    conv.events.push(Event::MemoryCleared { name: key });
                }
            }
        }
    }

    /// `complete_skill` / `cancel_skill`. Ends the active skill; when a
    /// parked skill is revealed, the result asks the LLM to offer resuming
    /// it. `cancel_skill` while a resume is on offer drops the parked
    /// skill (the user does not want to continue it).
    fn end_skill(&self, conv: &mut Conversation, complete: bool) -> Value {
        let Some(frame) = conv.stack.pop() else {
            return error_json("No skill is active.");
        };
        let skill = frame.skill;
        if conv.pending.as_ref().is_some_and(|p| p.skill == skill) {
            conv.pending = None;
        }
        conv.events.push(if complete {
            Event::SkillCompleted {
                skill: skill.clone(),
            }
        } else {
            Event::SkillCancelled {
                skill: skill.clone(),
            }
        });
        let status = match (complete, frame.interrupted) {
            (true, _) => "completed",
            (false, false) => "cancelled",
            (false, true) => "dropped",
        };
        let mut result = json!({"status": status, "skill": skill});
        if let Some(parked) = conv.resume_offer() {
            result["interrupted_skill"] = json!(parked);
            result["next"] = json!(format!(
                "The user's earlier skill `{parked}` was interrupted. Ask whether they want to continue it: if yes, call `activate` with flow_id `{parked}`; if not, call `cancel_skill`."
            ));
        }
        result
    }

    fn builder_any(&self, conv: &Conversation, name: &str) -> bool {
        conv.active()
            .and_then(|id| self.skill(id))
            .is_some_and(|s| s.tools.iter().any(|t| t.name == name))
    }

    fn tool<'a>(&'a self, skill: &str, name: &str) -> Option<&'a manifest::Tool> {
        self.skill(skill)?.tools.iter().find(|t| t.name == name)
    }

    /// Run (or hold for confirmation) a builder tool of the active skill.
    /// `confirmed`: the user approved this call (no new confirmation).
    fn builder(&self, conv: &mut Conversation, call: ToolCall, confirmed: bool) -> Option<ToolRun> {
        let skill = conv.active().unwrap_or_default().to_string();
        let tool = self.tool(&skill, &call.name)?.clone();
        if let Some(gate) = &tool.gate {
            if !self.gate_holds(conv, gate) {
                let why = format!(
                    "Tool '{}' is not available now: its gating condition is not met.",
                    call.name
                );
                self.refuse(conv, &call, why);
                return None;
            }
        }
        if let Err(why) = validate_arguments(&tool.parameters, &call.arguments) {
            self.refuse_arguments(conv, &call, &why);
            return None;
        }
        if let (Some(conf), false) = (&tool.confirmation, confirmed) {
            // One question at a time: a second confirmation would make the
            // user's yes or no ambiguous.
            if let Some(p) = &conv.pending {
                let why = if p.tool == call.name && p.skill == skill {
                    format!("Tool '{}' is awaiting confirmation; call resolve_tool_confirmation with confirmed=true or confirmed=false.", call.name)
                } else {
                    format!(
                        "Tool '{}' cannot run: another tool confirmation (`{}`) is already pending.",
                        call.name, p.tool
                    )
                };
                self.refuse(conv, &call, why);
                return None;
            }
            conv.pending = Some(PendingConfirmation {
                skill: skill.clone(),
                tool: call.name.clone(),
                arguments: call.arguments.clone(),
                turn: conv.turn,
            });
            conv.events.push(Event::ConfirmationRequested {
                tool: call.name.clone(),
                arguments: call.arguments.clone(),
            });
            let ask = conf
                .utter_for_confirmation
                .as_deref()
                .and_then(|r| self.response_text(conv, r));
            let message = ask
                .clone()
                .unwrap_or_else(|| format!("Ask the user to confirm running {}.", call.name));
            if let Some(ask) = ask {
                // The question is the reply of this turn.
                self.say(conv, ask);
                conv.wait = true;
            }
            self.respond(
                conv,
                &call,
                json!({"status": "awaiting_confirmation", "message": message}),
            );
            return None;
        }
        conv.running = Some(Running::Tool {
            call: call.clone(),
            skill: skill.clone(),
        });
        Some(ToolRun {
            name: call.name.clone(),
            module: tool.module.clone(),
            function: tool.function.clone(),
            arguments: call.arguments.clone(),
            context: self.context_payload(conv, &skill),
            skill,
        })
    }

    fn context_payload(&self, conv: &Conversation, skill: &str) -> Value {
        json!({
            "skill_id": skill,
            "events": serde_json::to_value(&conv.events).unwrap_or(Value::Null),
            "llm_config": self.manifest.model_groups.first().map(|g| serde_json::to_value(g).unwrap_or(Value::Null)).unwrap_or(json!({})),
            "references_index": self
                .knowledge
                .as_ref()
                .filter(|k| !k.is_empty())
                .map_or(Value::Null, |k| serde_json::to_value(k.stats()).unwrap_or(Value::Null)),
        })
    }

    fn resolve(&self, conv: &mut Conversation, call: ToolCall) -> Option<ToolRun> {
        let Some(p) = conv.pending.clone() else {
            self.record(conv, &call, error_json("No confirmation is pending."));
            return None;
        };
        if p.turn == conv.turn {
            self.record(
                conv,
                &call,
                error_json("Wait for the user's answer before resolving the confirmation."),
            );
            return None;
        }
        let Some(confirmed) = call.arguments["confirmed"].as_bool() else {
            self.record(
                conv,
                &call,
                error_json("`confirmed` must be true or false."),
            );
            return None;
        };
        conv.pending = None;
        conv.events.push(Event::ConfirmationResolved {
            tool: p.tool.clone(),
            confirmed,
        });
        if !confirmed {
            let denial = self
                .tool(&p.skill, &p.tool)
                .and_then(|t| t.confirmation.as_ref())
                .and_then(|c| c.utter_on_user_denial.clone());
            if let Some(text) = denial.and_then(|r| self.response_text(conv, &r)) {
                // The denial response is the reply of this turn.
                self.say(conv, text);
                conv.wait = true;
            }
            // The held tool never ran, so it is not recorded as executed
            // (the reference records it with a "declined" result, which
            // would satisfy a `tool_executed` test assertion); the decline
            // is the `confirmation_resolved` event and this call's result.
            self.record(
                conv,
                &call,
                json!({"status": "declined", "message": format!("The user declined `{}`; it was not run.", p.tool)}),
            );
            return None;
        }
        // Approved: run the held call (its gate is checked again).
        self.record(conv, &call, json!({"status": "confirmed"}));
        let held = ToolCall {
            id: call.id.clone(),
            name: p.tool,
            arguments: p.arguments,
        };
        self.builder(conv, held, true)
    }

    /// Write `pairs` in order through the settable path; each written entry
    /// with a post-write hook runs the hook (rolling the write back when it
    /// returns a non-null `error`).
    fn write_fields(
        &self,
        conv: &mut Conversation,
        call: ToolCall,
        pairs: Vec<(String, Value)>,
        mut lines: Vec<String>,
        mut wrote: bool,
    ) -> Option<ToolRun> {
        let skill = conv.active().map(str::to_string);
        let mut rest = pairs.into_iter();
        while let Some((name, value)) = rest.next() {
            let scope = self.scope(skill.as_deref());
            if !scope.settable().iter().any(|f| f.name == name) {
                lines.push(format!("{name}: not set: not a settable field"));
                continue;
            }
            if value.is_null() {
                lines.push(format!("{name}: not set: null is not a value"));
                continue;
            }
            if call.name == "set_fields" && !scope.get(&conv.memory, &name).is_null() {
                lines.push(format!(
                    "{name}: not set: it already has a value; call `correct` to change it"
                ));
                continue;
            }
            let snapshot = conv.memory.clone();
            match scope.set(&mut conv.memory, &name, value.clone()) {
                Err(e) => lines.push(format!("{name}: not set: {e}")),
                Ok(key) => {
                    if let Some(hook) = self.hook_for(skill.as_deref(), &name) {
                        // The write is recorded once the hook accepts it.
                        conv.running = Some(Running::Hook {
                            call: call.clone(),
                            field: name.clone(),
                            key,
                            value,
                            snapshot,
                            rest: rest.collect(),
                            lines,
                            wrote,
                        });
                        return Some(ToolRun {
                            name: hook.function.clone(),
                            module: hook.module.clone(),
                            function: hook.function.clone(),
                            arguments: json!({}),
                            context: self
                                .context_payload(conv, skill.as_deref().unwrap_or_default()),
                            skill: skill.clone().unwrap_or_default(),
                        });
                    }
                    conv.events.push(Event::MemorySet { name: key, value });
                    wrote = true;
                    lines.push(format!("{name}: set"));
                }
            }
        }
        let summary = lines.join("; ");
        let result = if wrote {
            Value::String(summary)
        } else {
            error_json(summary)
        };
        conv.events.push(Event::ToolExecuted {
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            result: result.clone(),
            is_error: !wrote,
        });
        self.respond(conv, &call, result);
        None
    }

    fn hook_for(&self, skill: Option<&str>, entry: &str) -> Option<&manifest::Hook> {
        skill
            .and_then(|s| self.skill(s))
            .and_then(|s| s.hooks.iter().find(|h| h.entry == entry))
            .or_else(|| self.manifest.shared_hooks.iter().find(|h| h.entry == entry))
    }

    fn tool_done(&self, conv: &mut Conversation, outcome: ToolOutcome) -> Output {
        match conv.running.take() {
            None => self.finish(conv, Next::WaitForUser),
            Some(Running::Tool { call, skill }) => {
                if outcome == ToolOutcome::Cancelled {
                    // D13: not recorded as executed; memory already written is kept.
                    conv.events.push(Event::ToolCancelled {
                        name: call.name.clone(),
                        arguments: call.arguments.clone(),
                    });
                    self.respond(
                        conv,
                        &call,
                        error_json("The turn was interrupted before the tool finished."),
                    );
                    self.interrupt(conv);
                    return self.finish(conv, Next::WaitForUser);
                }
                let (result, is_error) = outcome_value(&call.name, outcome);
                conv.events.push(Event::ToolExecuted {
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                    result: result.clone(),
                    is_error,
                });
                self.respond(conv, &call, result.clone());
                let failed = is_error
                    || result
                        .get("error")
                        .is_some_and(|e| !e.is_null() && e != &json!(false) && e != &json!(""));
                let utter = self.tool(&skill, &call.name).and_then(|t| {
                    if failed {
                        t.on_failure.clone()
                    } else {
                        t.on_success.clone()
                    }
                });
                if let Some(text) = utter.and_then(|r| self.response_text(conv, &r)) {
                    self.say(conv, text);
                }
                self.drain(conv)
            }
            Some(Running::Hook {
                call,
                field,
                key: written,
                value,
                snapshot,
                rest,
                mut lines,
                wrote,
            }) => {
                let cancelled = outcome == ToolOutcome::Cancelled;
                let (result, is_error) = outcome_value(&field, outcome);
                let rejected = is_error || result.get("error").is_some_and(|e| !e.is_null());
                if rejected {
                    // Roll back the write and everything the hook wrote,
                    // recording each reversal (the log stays append-only).
                    let keys: std::collections::BTreeSet<String> =
                        conv.memory.keys().chain(snapshot.keys()).cloned().collect();
                    for key in keys {
                        if key != written && conv.memory.get(&key) != snapshot.get(&key) {
                            conv.events.push(match snapshot.get(&key) {
                                Some(v) => Event::MemorySet {
                                    name: key,
                                    value: v.clone(),
                                },
                                None => Event::MemoryCleared { name: key },
                            });
                        }
                    }
                    conv.memory = snapshot;
                    if cancelled {
                        // D13: a hook cut off mid-validation accepted
                        // nothing, so its write is rolled back like a
                        // rejection; the rest of the batch and the queued
                        // calls are not run, and the turn ends.
                        let not_run =
                            |name: &str| format!("{name}: not set: the turn was interrupted");
                        lines.push(not_run(&field));
                        lines.extend(rest.iter().map(|(name, _)| not_run(name)));
                        self.write_fields(conv, call, Vec::new(), lines, wrote);
                        self.interrupt(conv);
                        return self.finish(conv, Next::WaitForUser);
                    }
                    let why = result.get("error").map_or_else(
                        || result.to_string(),
                        |e| e.as_str().map_or_else(|| e.to_string(), str::to_string),
                    );
                    lines.push(format!(
                        "{field}: not set: memory validation tool failed: {why}"
                    ));
                    if let Some(run) = self.write_fields(conv, call, rest, lines, wrote) {
                        return self.finish(conv, Next::RunTool(run));
                    }
                } else {
                    conv.events.push(Event::MemorySet {
                        name: written,
                        value,
                    });
                    lines.push(format!("{field}: set"));
                    if let Some(run) = self.write_fields(conv, call, rest, lines, true) {
                        return self.finish(conv, Next::RunTool(run));
                    }
                }
                self.drain(conv)
            }
        }
    }

    /// The text of a response (first variant whose condition holds).
    pub fn response_text(&self, conv: &Conversation, name: &str) -> Option<String> {
        let r = self.manifest.responses.get(name)?;
        r.variants
            .iter()
            .find(|v| {
                v.condition
                    .as_ref()
                    .is_none_or(|c| self.gate_holds(conv, c))
            })
            .map(|v| v.text.clone())
            .filter(|t| !t.trim().is_empty())
    }

    /// The `ToolHost` a running tool talks to: its memory view is the
    /// running tool's skill; `deliver` gets every `context.send` text.
    pub fn host<'a>(
        &'a self,
        conv: &'a mut Conversation,
        deliver: &'a mut dyn FnMut(&str),
        cancelled: &'a dyn Fn() -> bool,
    ) -> EngineHost<'a> {
        EngineHost {
            engine: self,
            conv,
            deliver,
            cancelled,
        }
    }
}

/// The engine's side of a running tool's `ToolContext`.
pub struct EngineHost<'a> {
    engine: &'a Engine,
    conv: &'a mut Conversation,
    deliver: &'a mut dyn FnMut(&str),
    cancelled: &'a dyn Fn() -> bool,
}

impl EngineHost<'_> {
    fn skill(&self) -> Option<String> {
        match &self.conv.running {
            Some(Running::Tool { skill, .. }) => Some(skill.clone()),
            _ => self.conv.active().map(str::to_string),
        }
    }
}

impl ToolHost for EngineHost<'_> {
    fn memory_get(&mut self, name: &str) -> Value {
        let skill = self.skill();
        self.engine
            .scope(skill.as_deref())
            .get(&self.conv.memory, name)
    }

    fn memory_set(&mut self, name: &str, value: Value) -> Result<(), String> {
        let skill = self.skill();
        let key =
            self.engine
                .scope(skill.as_deref())
                .set(&mut self.conv.memory, name, value.clone())?;
        self.conv.events.push(if value.is_null() {
            Event::MemoryCleared { name: key }
        } else {
            Event::MemorySet { name: key, value }
        });
        Ok(())
    }

    fn send(&mut self, text: &str) {
        if (self.cancelled)() {
            return;
        }
        self.conv.events.push(Event::BotUttered {
            text: text.to_string(),
        });
        (self.deliver)(text);
    }

    fn is_cancelled(&mut self) -> bool {
        (self.cancelled)()
    }

    fn search(&mut self, query: &str, limit: usize) -> Value {
        let skill = self.skill();
        let Some(index) = &self.engine.knowledge else {
            return json!([]);
        };
        Value::Array(
            index
                .search(query, skill.as_deref(), limit)
                .into_iter()
                .map(|h| json!({"text": h.chunk.text, "source": h.chunk.path, "scope": h.chunk.scope, "score": h.score}))
                .collect(),
        )
    }
}

fn outcome_value(name: &str, outcome: ToolOutcome) -> (Value, bool) {
    match outcome {
        ToolOutcome::Ok(v) => (v, false),
        ToolOutcome::Error(e) => (error_json(e), true),
        ToolOutcome::Timeout(secs) => (
            error_json(format!("Tool '{name}' timed out after {secs:.1} seconds.")),
            true,
        ),
        ToolOutcome::Cancelled => (error_json("cancelled"), true),
    }
}

/// Check arguments against a tool's parameter schema (the subset maestro
/// derives: object, required, additionalProperties, property types, typed
/// array items). Messages follow the engine's wording.
pub fn validate_arguments(schema: &Value, args: &Value) -> Result<(), String> {
    let Some(obj) = args.as_object() else {
        return Err("Arguments must be a JSON object.".into());
    };
    let props = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut parts = Vec::new();
    let mut missing: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|r| !obj.contains_key(*r))
        .collect();
    missing.sort();
    if !missing.is_empty() {
        let list: Vec<String> = missing.iter().map(|m| format!("'{m}'")).collect();
        parts.push(format!(
            "Missing required argument(s): {}.",
            list.join(", ")
        ));
    }
    let mut unexpected: Vec<&String> = obj.keys().filter(|k| !props.contains_key(*k)).collect();
    unexpected.sort();
    if !unexpected.is_empty() && schema["additionalProperties"] == json!(false) {
        let list: Vec<String> = unexpected.iter().map(|m| format!("'{m}'")).collect();
        parts.push(format!("Unexpected argument(s): {}.", list.join(", ")));
    }
    for (name, value) in obj {
        let Some(prop) = props.get(name) else {
            continue;
        };
        if !type_matches(&prop["type"], value) {
            parts.push(format!(
                "Argument '{name}' must match type '{}'.",
                prop["type"].as_str().unwrap_or("?")
            ));
        } else if let (Some(items), Some(list)) = (prop.get("items"), value.as_array()) {
            for (i, item) in list.iter().enumerate() {
                if !type_matches(&items["type"], item) {
                    parts.push(format!(
                        "Argument '{name}.{i}' must match type '{}'.",
                        items["type"].as_str().unwrap_or("?")
                    ));
                }
            }
        }
    }
    if parts.is_empty() {
        Ok(())
    } else {
        Err(parts.join(" "))
    }
}

fn type_matches(ty: &Value, v: &Value) -> bool {
    match ty.as_str() {
        Some("string") => v.is_string(),
        Some("integer") => v.as_f64().is_some_and(|f| f.fract() == 0.0) && !v.is_boolean(),
        Some("number") => v.is_number(),
        Some("boolean") => v.is_boolean(),
        Some("array") => v.is_array(),
        Some("object") => v.is_object(),
        _ => true,
    }
}

fn spec(name: &str, description: &str, parameters: Value) -> ToolSpec {
    ToolSpec {
        name: name.to_string(),
        description: description.to_string(),
        parameters,
    }
}

fn empty_object() -> Value {
    json!({"type":"object","properties":{},"required":[],"additionalProperties":false})
}

fn json_type(memory_type: Option<&str>) -> &'static str {
    match memory_type {
        Some("bool") => "boolean",
        Some("int") => "integer",
        Some("float") => "number",
        Some("list") => "array",
        _ => "string",
    }
}
