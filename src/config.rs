//! `agent.yml` and `integrations.yml`: the typed parts the trainer and the
//! runtime need, with spans, plus the structure findings
//! (config-content.md §3, §4).
//!
//! Divergences from the reference, on purpose:
//! - Every problem is reported with its own span (the reference stops at
//!   the first problem of agent.yml).
//! - Unknown keys at the top level of agent.yml and inside `agent:` are
//!   warnings (`config.unknown_agent_key`); the reference ignores them
//!   silently, so a misplaced `rules:` is never read.
//! - A literal secret is never echoed: messages show at most its first
//!   characters (`sk-…`), and spans still point at it.
//! - An integrations.yml whose root is not a mapping is an error (the
//!   reference ignores it silently).
//! - `privacy`, `channels`, `knowledge_stores` (except their `embeddings`
//!   references), tracing, metrics and the store sections are not validated
//!   yet: their keys are accepted.

use crate::checks::{
    config_duplicate_mcp_server_name, config_duplicate_model_group_id,
    config_invalid_agent_section, config_invalid_agent_yml, config_invalid_integrations_yml,
    config_invalid_mcp_server, config_invalid_model_group, config_invalid_model_group_credentials,
    config_invalid_model_server, config_missing_agent_section, config_unexpected_llm,
    config_unknown_agent_key, config_unknown_integration_key, config_unsupported_integration_key,
    config_unused_model_group_models,
};
use crate::diagnostic::{Finding, Rule};
use crate::responses::found;
use crate::skill_md::Spanned;
use crate::source::{FileId, Span};
use crate::suggest::did_you_mean;
use crate::yaml::{inner_span, Node, Value};

/// Built-in tools whose behaviour `orchestrator.tool_constraints` may change.
/// The seeds' names (`cancel_skill`, `complete_skill`, decision D1) and the
/// later engine's (`cancel`, `complete`) are both accepted.
pub const CONFIGURABLE_TOOLS: &[&str] = &[
    "activate",
    "cancel",
    "cancel_skill",
    "cannot_help",
    "complete",
    "complete_skill",
    "correct",
    "search_knowledge",
    "set_fields",
];
/// Built-in tools that may be disabled.
pub const DISABLEABLE_TOOLS: &[&str] = &[
    "cancel",
    "cancel_skill",
    "cannot_help",
    "complete",
    "complete_skill",
    "search_knowledge",
];

/// Top-level keys of agent.yml.
pub const AGENT_TOP_KEYS: &[&str] = &[
    "agent",
    "before_end",
    "conversation",
    "description",
    "fillers",
    "knowledge_answering",
    "name",
    "orchestrator",
    "privacy",
    "prompts",
    "rules",
    "session_config",
    "skill_retrieval",
    "tool_timeout",
    "voice",
];
/// Keys of the `agent:` block.
pub const AGENT_KEYS: &[&str] = &["description", "id", "language", "name", "persona", "voice"];
/// Keys of the `orchestrator:` block.
pub const ORCHESTRATOR_KEYS: &[&str] = &[
    "max_prompt_tokens",
    "model_group",
    "preconditions",
    "text_rules",
    "tool_constraints",
    "voice_rules",
];
/// Top-level keys integrations.yml accepts.
pub const INTEGRATION_KEYS: &[&str] = &[
    "a2a_server",
    "channels",
    "event_broker",
    "knowledge_stores",
    "lock_store",
    "mcp_servers",
    "metrics",
    "model_groups",
    "rasa_model_server",
    "recordings",
    "secrets_manager",
    "timer_store",
    "tracing",
    "tracker_store",
];
/// Keys whose value must be a `${VAR}` placeholder in a model group.
pub const SENSITIVE_KEYS: &[&str] = &[
    "api_key",
    "aws_access_key_id",
    "aws_secret_access_key",
    "aws_session_token",
    "client_id",
    "client_secret",
    "private_key",
    "public_key",
    "secret",
    "token_url",
];

// ---------------------------------------------------------------------------
// agent.yml

/// The typed `agent.yml`.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    pub file: FileId,
    /// `agent.id`; `None` when missing or blank (train generates one).
    pub id: Option<Spanned<String>>,
    /// `agent.language`, default `en`.
    pub language: String,
    pub name: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    /// `agent.persona` (required, non-blank).
    pub persona: Option<Spanned<String>>,
    /// Span of the `agent:` key, when present.
    pub agent_span: Option<Span>,
    pub orchestrator: Orchestrator,
    /// `rules`: prompt bullets.
    pub rules: Vec<Spanned<String>>,
    /// `tool_timeout` in seconds (local `@tool` calls; default 10).
    pub tool_timeout: Option<f64>,
    pub knowledge: KnowledgeAnswering,
    /// `conversation.before_end` (or the top-level `before_end`, which wins).
    pub before_end: Vec<Spanned<String>>,
    /// `voice.silence_timeout`.
    pub silence_timeout: Option<f64>,
    /// `session_config.session_expiration_time` in minutes.
    pub session_expiration_minutes: Option<f64>,
    /// The raw YAML tree.
    pub node: Option<Node>,
}

/// The `orchestrator:` block.
#[derive(Debug, Clone, Default)]
pub struct Orchestrator {
    /// Span of the `orchestrator:` key.
    pub span: Option<Span>,
    /// `model_group` (trimmed), span of the value.
    pub model_group: Option<Spanned<String>>,
    pub text_rules: String,
    pub voice_rules: String,
    pub max_prompt_tokens: Option<i64>,
    pub preconditions: Vec<Precondition>,
    pub tool_constraints: Vec<BuiltinToolConstraint>,
}

/// `orchestrator.preconditions.<name>`.
#[derive(Debug, Clone)]
pub struct Precondition {
    pub name: Spanned<String>,
    /// The condition, with the inner span of the string.
    pub satisfied_when: Option<Spanned<String>>,
    pub satisfied_when_inner: Option<Span>,
    pub resolve_with: Option<Spanned<String>>,
    pub unmet_utterance: bool,
}

/// `orchestrator.tool_constraints.<tool>`.
#[derive(Debug, Clone)]
pub struct BuiltinToolConstraint {
    pub tool: Spanned<String>,
    pub enabled: bool,
    pub invoke_when: Option<String>,
    /// Only on `cancel`; `None` when absent or `enabled: false`.
    pub confirmation: Option<Confirmation>,
}

/// A `requires_confirmation` block that is enabled.
#[derive(Debug, Clone)]
pub struct Confirmation {
    pub utter_for_confirmation: Option<Spanned<String>>,
    pub utter_on_user_denial: Option<Spanned<String>>,
}

/// `knowledge_answering`.
#[derive(Debug, Clone)]
pub struct KnowledgeAnswering {
    pub instructions: String,
    /// A model-group id; `None` or blank means the built-in embedder.
    pub embeddings: Option<Spanned<String>>,
    pub top_k: i64,
    pub chunk_size: i64,
    pub chunk_overlap: i64,
}

impl Default for KnowledgeAnswering {
    fn default() -> Self {
        KnowledgeAnswering {
            instructions: String::new(),
            embeddings: None,
            top_k: 4,
            chunk_size: 1000,
            chunk_overlap: 20,
        }
    }
}

impl AgentConfig {
    /// The built-in tool lever for `tool`, if configured.
    /// The lever for a built-in tool; `cancel_skill` and `cancel` (and
    /// `complete_skill` / `complete`) name the same tool.
    pub fn tool_constraint(&self, tool: &str) -> Option<&BuiltinToolConstraint> {
        let alias = match tool {
            "cancel" => "cancel_skill",
            "cancel_skill" => "cancel",
            "complete" => "complete_skill",
            "complete_skill" => "complete",
            other => other,
        };
        self.orchestrator
            .tool_constraints
            .iter()
            .find(|t| t.tool.value == tool || t.tool.value == alias)
    }
}

/// Shared reading helpers: every problem becomes a finding of `rule`.
struct Cx<'t> {
    file: FileId,
    text: &'t str,
    out: Vec<Finding>,
    /// The YAML had a syntax error: the tree may end early, so nothing is
    /// reported as missing.
    truncated: bool,
    /// Spans of literal secrets, to be masked in the source before any
    /// output shows it.
    secrets: Vec<Span>,
}

impl Cx<'_> {
    /// Record a literal secret (its value span) for masking.
    fn secret(&mut self, span: Span) -> &mut Self {
        self.secrets.push(span);
        self
    }

    fn push(&mut self, rule: &'static Rule, span: Span, msg: String, label: &str, help: String) {
        self.out
            .push(rule.finding(msg).at(self.file, span, label).help(help));
    }

    /// A value's span, or its key's when the value is an implicit null.
    fn at(key: &Node, value: &Node) -> Span {
        if value.span.is_empty() {
            key.span
        } else {
            value.span
        }
    }

    fn mapping<'n>(
        &mut self,
        rule: &'static Rule,
        path: &str,
        key: &Node,
        v: &'n Node,
    ) -> Option<&'n Node> {
        if v.as_map().is_some() {
            return Some(v);
        }
        self.push(
            rule,
            Self::at(key, v),
            format!("`{path}` must be a mapping, found {}", found(v)),
            "expected a mapping",
            format!("indent the keys of `{path}` under it, e.g. `{path}:` then `  key: value`"),
        );
        None
    }

    fn string(
        &mut self,
        rule: &'static Rule,
        path: &str,
        key: &Node,
        v: &Node,
    ) -> Option<Spanned<String>> {
        match &v.value {
            Value::Str(s) => Some(Spanned {
                value: s.clone(),
                span: v.span,
            }),
            // After a syntax error a key may have lost its value.
            Value::Null if self.truncated => None,
            _ => {
                self.push(
                    rule,
                    Self::at(key, v),
                    format!("`{path}` must be a string, found {}", found(v)),
                    "expected a string",
                    format!("write `{}: \"...\"`", last(path)),
                );
                None
            }
        }
    }

    fn non_blank(
        &mut self,
        rule: &'static Rule,
        path: &str,
        key: &Node,
        v: &Node,
    ) -> Option<Spanned<String>> {
        let s = self.string(rule, path, key, v)?;
        if s.value.trim().is_empty() {
            self.push(
                rule,
                Self::at(key, v),
                format!("`{path}` is blank"),
                "blank",
                format!("write a value for `{}`, or remove the key", last(path)),
            );
            return None;
        }
        Some(s)
    }

    fn boolean(&mut self, rule: &'static Rule, path: &str, key: &Node, v: &Node) -> Option<bool> {
        if let Some(b) = v.as_bool() {
            return Some(b);
        }
        self.push(
            rule,
            Self::at(key, v),
            format!("`{path}` must be true or false, found {}", found(v)),
            "expected a boolean",
            format!(
                "write `{}: true` or `{}: false` without quotes",
                last(path),
                last(path)
            ),
        );
        None
    }

    /// An integer `>= min`.
    fn int(
        &mut self,
        rule: &'static Rule,
        path: &str,
        key: &Node,
        v: &Node,
        min: i64,
    ) -> Option<i64> {
        match v.as_i64() {
            Some(i) if i >= min => Some(i),
            _ => {
                let what = if v.as_i64().is_some() {
                    format!("{}", v.as_i64().unwrap_or_default())
                } else {
                    found(v)
                };
                self.push(
                    rule,
                    Self::at(key, v),
                    format!("`{path}` must be an integer of at least {min}, found {what}"),
                    "invalid number",
                    format!(
                        "write a whole number of at least {min}, e.g. `{}: {}`",
                        last(path),
                        min.max(1)
                    ),
                );
                None
            }
        }
    }

    /// A finite number `> 0` (or `>= 0` with `zero_ok`).
    fn positive(
        &mut self,
        rule: &'static Rule,
        path: &str,
        key: &Node,
        v: &Node,
        zero_ok: bool,
    ) -> Option<f64> {
        match v.as_f64() {
            Some(f) if f.is_finite() && (f > 0.0 || (zero_ok && f == 0.0)) => Some(f),
            _ => {
                let bound = if zero_ok {
                    "zero or more"
                } else {
                    "greater than zero"
                };
                self.push(
                    rule,
                    Self::at(key, v),
                    format!("`{path}` must be a finite number {bound}"),
                    "invalid number",
                    format!("write a number of seconds, e.g. `{}: 10`", last(path)),
                );
                None
            }
        }
    }

    fn unknown_keys(&mut self, rule: &'static Rule, path: &str, map: &Node, allowed: &[&str]) {
        for (k, _) in map.entries() {
            let key = k.key_str().unwrap_or_default();
            if k.as_str().is_some() && allowed.contains(&key.as_str()) {
                continue;
            }
            let help = match did_you_mean(&key, allowed.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("`{path}` accepts: {}", allowed.join(", ")),
            };
            self.push(
                rule,
                k.span,
                format!("unknown key `{key}` in `{path}`"),
                "unknown key",
                help,
            );
        }
    }
}

/// The first line of a mapping entry: its first key (the smallest place to
/// point at for "this entry lacks ..."), else the node.
fn head(n: &Node) -> Span {
    n.as_map()
        .and_then(|m| m.first())
        .map_or(n.span, |(k, _)| k.span)
}

fn last(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// The span to locate a finding about a whole file: the start of its first
/// key, or offset 0.
fn file_start(root: Option<&Node>) -> Span {
    root.and_then(Node::as_map)
        .and_then(|m| m.first())
        .map_or(Span::at(0), |(k, _)| k.span)
}

/// Read agent.yml (root already parsed; `truncated` when the YAML had a
/// syntax error, so that keys after it are not reported missing).
pub fn parse_agent(
    file: FileId,
    text: &str,
    root: Option<Node>,
    truncated: bool,
) -> (AgentConfig, Vec<Finding>) {
    let mut cx = Cx {
        file,
        text,
        out: Vec::new(),
        truncated,
        secrets: Vec::new(),
    };
    let mut cfg = AgentConfig {
        file,
        id: None,
        language: "en".into(),
        name: None,
        description: None,
        persona: None,
        agent_span: None,
        orchestrator: Orchestrator::default(),
        rules: Vec::new(),
        tool_timeout: None,
        knowledge: KnowledgeAnswering::default(),
        before_end: Vec::new(),
        silence_timeout: None,
        session_expiration_minutes: None,
        node: None,
    };
    read_agent(&mut cx, &mut cfg, root.as_ref());
    cfg.node = root;
    (cfg, cx.out)
}

fn read_agent(cx: &mut Cx, cfg: &mut AgentConfig, root: Option<&Node>) {
    const SECTION: &Rule = &config_invalid_agent_section::RULE;
    if let Some(r) = root.filter(|r| !r.is_null() && r.as_map().is_none()) {
        // An empty list reads as an empty mapping in the reference.
        if !matches!(&r.value, Value::Seq(v) if v.is_empty()) {
            cx.push(
                &config_invalid_agent_yml::RULE,
                r.span,
                format!("agent.yml must be a mapping, found {}", found(r)),
                "not a mapping",
                "start the file with `agent:` (with `persona:`) and `orchestrator:` (with `model_group:`)".into(),
            );
            return;
        }
    }
    let empty = Node {
        value: Value::Map(Vec::new()),
        span: Span::at(0),
        style: crate::yaml::Style::Block,
    };
    let root = root.filter(|r| r.as_map().is_some()).unwrap_or(&empty);

    // Unknown top-level keys: warnings with the most likely intent.
    for (k, _) in root.entries() {
        let key = k.key_str().unwrap_or_default();
        if k.as_str().is_some() && AGENT_TOP_KEYS.contains(&key.as_str()) {
            continue;
        }
        let help = if AGENT_KEYS.contains(&key.as_str()) {
            format!("`{key}` belongs inside `agent:`; indent it under `agent:`")
        } else if ORCHESTRATOR_KEYS.contains(&key.as_str()) {
            format!("`{key}` belongs inside `orchestrator:`; indent it under `orchestrator:`")
        } else if key == "references" {
            "chunking of references is set with `knowledge_answering: {chunking: {chunk_size: ..., chunk_overlap: ...}}`".into()
        } else if let Some(s) = did_you_mean(&key, AGENT_TOP_KEYS.iter().copied()) {
            format!("did you mean `{s}`?")
        } else {
            format!(
                "agent.yml accepts at the top level: {}",
                AGENT_TOP_KEYS.join(", ")
            )
        };
        cx.push(
            &config_unknown_agent_key::RULE,
            k.span,
            format!("top-level key `{key}` in agent.yml is not read"),
            "ignored",
            help,
        );
    }

    // agent:
    let agent = root
        .as_map()
        .and_then(|m| m.iter().rev().find(|(k, _)| k.as_str() == Some("agent")));
    match agent {
        None if cx.truncated => {}
        None => cx.push(
            &config_missing_agent_section::RULE,
            file_start(Some(root)),
            "agent.yml has no `agent:` section".into(),
            "expected `agent:` in this file",
            "add `agent:` with `persona: <who the assistant is and how it talks>`".into(),
        ),
        Some((k, v)) if v.as_map().is_none() => cx.push(
            &config_missing_agent_section::RULE,
            Cx::at(k, v),
            format!("`agent` must be a mapping, found {}", found(v)),
            "not a mapping",
            "write `agent:` and indent `persona: ...` under it".into(),
        ),
        Some((k, a)) => {
            cfg.agent_span = Some(k.span);
            for (ak, av) in a.entries() {
                let key = ak.key_str().unwrap_or_default();
                match key.as_str() {
                    "id" => {
                        cfg.id = av
                            .as_str()
                            .filter(|s| !s.trim().is_empty())
                            .map(|s| Spanned {
                                value: s.to_string(),
                                span: av.span,
                            })
                    }
                    "language" => {
                        if let Some(s) = av.as_str().filter(|s| !s.trim().is_empty()) {
                            cfg.language = s.to_string();
                        }
                    }
                    "name" => {
                        cfg.name = av.as_str().map(|s| Spanned {
                            value: s.into(),
                            span: av.span,
                        })
                    }
                    "description" => {
                        cfg.description = av.as_str().map(|s| Spanned {
                            value: s.into(),
                            span: av.span,
                        })
                    }
                    "persona" => cfg.persona = cx.non_blank(SECTION, "agent.persona", ak, av),
                    "voice" => {
                        if !av.is_null() {
                            cx.mapping(SECTION, "agent.voice", ak, av);
                        }
                    }
                    _ => {
                        let help = if AGENT_TOP_KEYS.contains(&key.as_str()) {
                            format!("`{key}` belongs at the top level of agent.yml, not inside `agent:`; move it out (unindent it)")
                        } else if ORCHESTRATOR_KEYS.contains(&key.as_str()) {
                            format!("`{key}` belongs inside `orchestrator:`, not `agent:`")
                        } else if let Some(s) = did_you_mean(&key, AGENT_KEYS.iter().copied()) {
                            format!("did you mean `{s}`?")
                        } else {
                            format!("`agent:` accepts: {}", AGENT_KEYS.join(", "))
                        };
                        cx.push(
                            &config_unknown_agent_key::RULE,
                            ak.span,
                            format!("key `{key}` inside `agent:` is not read"),
                            "ignored",
                            help,
                        );
                    }
                }
            }
            if a.get("persona").is_none() && !cx.truncated {
                cx.push(
                    SECTION,
                    k.span,
                    "`agent` has no `persona`".into(),
                    "no `persona` in this section",
                    "add `persona: |` under `agent:` with who the assistant is; it starts every prompt".into(),
                );
            }
        }
    }

    // orchestrator:
    match root.get("orchestrator") {
        None if cx.truncated => {}
        None => cx.push(
            SECTION,
            file_start(Some(root)),
            "agent.yml has no `orchestrator:` section".into(),
            "expected `orchestrator:` in this file",
            "add `orchestrator:` with `model_group: <id of a model group in integrations.yml>`"
                .into(),
        ),
        Some(o) => {
            let ok = root
                .as_map()
                .and_then(|m| {
                    m.iter()
                        .rev()
                        .find(|(k, _)| k.as_str() == Some("orchestrator"))
                })
                .map(|(k, _)| k);
            if let Some(okey) = ok {
                cfg.orchestrator.span = Some(okey.span);
                if let Some(o) = cx.mapping(SECTION, "orchestrator", okey, o) {
                    read_orchestrator(cx, &mut cfg.orchestrator, okey, o);
                }
            }
        }
    }

    for (k, v) in root.entries() {
        let key = k.key_str().unwrap_or_default();
        match key.as_str() {
            "rules" => match &v.value {
                Value::Null => {}
                Value::Seq(items) => {
                    for item in items {
                        match &item.value {
                            Value::Str(s) => cfg.rules.push(Spanned {
                                value: s.clone(),
                                span: item.span,
                            }),
                            Value::Map(_) => cx.push(
                                SECTION,
                                item.span,
                                "a rule in `rules` is read as a mapping because it contains `: `".into(),
                                "read as a mapping",
                                "quote the rule: `- \"Never say: maybe\"`".into(),
                            ),
                            _ => cx.push(
                                SECTION,
                                item.span,
                                format!("each item of `rules` must be a string, found {}", found(item)),
                                "not a string",
                                "quote the rule: `- \"...\"`".into(),
                            ),
                        }
                    }
                }
                _ => cx.push(
                    SECTION,
                    Cx::at(k, v),
                    format!("`rules` must be a list of strings, found {}", found(v)),
                    "expected a list",
                    "write each rule as a list item: `- Never quote prices that did not come from a tool.`".into(),
                ),
            },
            "tool_timeout" => cfg.tool_timeout = cx.positive(SECTION, "tool_timeout", k, v, false),
            "knowledge_answering" => {
                if let Some(m) = cx.mapping(SECTION, "knowledge_answering", k, v) {
                    read_knowledge(cx, &mut cfg.knowledge, m);
                }
            }
            "skill_retrieval" => {
                if let Some(m) = cx.mapping(SECTION, "skill_retrieval", k, v) {
                    cx.unknown_keys(SECTION, "skill_retrieval", m, &["active", "embeddings", "num_skills", "should_embed_memory", "turns_to_embed"]);
                    for (sk, sv) in m.entries() {
                        let p = format!("skill_retrieval.{}", sk.key_str().unwrap_or_default());
                        match sk.as_str() {
                            Some("active" | "should_embed_memory") => {
                                cx.boolean(SECTION, &p, sk, sv);
                            }
                            Some("num_skills" | "turns_to_embed") => {
                                cx.int(SECTION, &p, sk, sv, 1);
                            }
                            Some("embeddings") => {
                                cx.string(SECTION, &p, sk, sv);
                            }
                            _ => {}
                        }
                    }
                }
            }
            "fillers" => {
                if let Some(m) = cx.mapping(SECTION, "fillers", k, v) {
                    cx.unknown_keys(SECTION, "fillers", m, &["enabled", "examples", "instructions", "reminder"]);
                    for (fk, fv) in m.entries() {
                        match fk.as_str() {
                            Some("enabled") if !fv.is_null() => {
                                cx.boolean(SECTION, "fillers.enabled", fk, fv);
                            }
                            Some(s @ ("instructions" | "reminder")) => {
                                cx.string(SECTION, &format!("fillers.{s}"), fk, fv);
                            }
                            Some("examples") if fv.as_seq().is_none() => {
                                cx.push(SECTION, Cx::at(fk, fv), "`fillers.examples` must be a list of `{user, ack}`".into(), "expected a list", "write `- {user: \"...\", ack: \"...\"}` per example".into());
                            }
                            _ => {}
                        }
                    }
                }
            }
            "prompts" => {
                if let Some(m) = cx.mapping(SECTION, "prompts", k, v) {
                    if let Some((pk, pv)) = m.entries().find(|(pk, _)| pk.as_str() == Some("routing_no_active_skill")) {
                        cx.string(SECTION, "prompts.routing_no_active_skill", pk, pv);
                    }
                }
            }
            "conversation" => {
                if let Some(m) = cx.mapping(SECTION, "conversation", k, v) {
                    if let Some((bk, bv)) = m.entries().find(|(bk, _)| bk.as_str() == Some("before_end")) {
                        if cfg.before_end.is_empty() {
                            cfg.before_end = string_list(cx, "conversation.before_end", bk, bv);
                        }
                    }
                }
            }
            "before_end" => cfg.before_end = string_list(cx, "before_end", k, v),
            "voice" => {
                if let Some(m) = cx.mapping(SECTION, "voice", k, v) {
                    cx.unknown_keys(SECTION, "voice", m, &["silence_timeout"]);
                    if let Some((sk, sv)) = m.entries().find(|(sk, _)| sk.as_str() == Some("silence_timeout")) {
                        cfg.silence_timeout = cx.positive(SECTION, "voice.silence_timeout", sk, sv, false);
                    }
                }
            }
            "session_config" => {
                if let Some(m) = cx.mapping(SECTION, "session_config", k, v) {
                    for (sk, sv) in m.entries() {
                        match sk.as_str() {
                            Some("session_expiration_time") => {
                                cfg.session_expiration_minutes = cx.positive(SECTION, "session_config.session_expiration_time", sk, sv, true)
                            }
                            Some("start_session_after_expiry") => {
                                cx.boolean(SECTION, "session_config.start_session_after_expiry", sk, sv);
                            }
                            _ => {}
                        }
                    }
                }
            }
            "privacy" => {
                cx.mapping(SECTION, "privacy", k, v);
            }
            "name" => cfg.name = cfg.name.take().or_else(|| v.as_str().map(|s| Spanned { value: s.into(), span: v.span })),
            "description" => {
                cfg.description = cfg
                    .description
                    .take()
                    .or_else(|| v.as_str().map(|s| Spanned { value: s.into(), span: v.span }))
            }
            _ => {}
        }
    }
}

fn string_list(cx: &mut Cx, path: &str, key: &Node, v: &Node) -> Vec<Spanned<String>> {
    const SECTION: &Rule = &config_invalid_agent_section::RULE;
    let Some(items) = v.as_seq() else {
        if !v.is_null() {
            cx.push(
                SECTION,
                Cx::at(key, v),
                format!("`{path}` must be a list of skill ids"),
                "expected a list",
                format!("write `{}:` then `- <skill id>` per line", last(path)),
            );
        }
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|i| match i.as_str() {
            Some(s) => Some(Spanned {
                value: s.into(),
                span: i.span,
            }),
            None => {
                cx.push(
                    SECTION,
                    i.span,
                    format!("each item of `{path}` must be a skill id"),
                    "not a string",
                    "write the skill's folder name".into(),
                );
                None
            }
        })
        .collect()
}

fn read_orchestrator(cx: &mut Cx, o: &mut Orchestrator, okey: &Node, map: &Node) {
    const SECTION: &Rule = &config_invalid_agent_section::RULE;
    cx.unknown_keys(SECTION, "orchestrator", map, ORCHESTRATOR_KEYS);
    for (k, v) in map.entries() {
        match k.as_str() {
            Some("model_group") => {
                o.model_group = cx
                    .non_blank(SECTION, "orchestrator.model_group", k, v)
                    .map(|s| Spanned {
                        value: s.value.trim().to_string(),
                        span: s.span,
                    })
            }
            Some("text_rules") => {
                o.text_rules = cx
                    .string(SECTION, "orchestrator.text_rules", k, v)
                    .map(|s| s.value)
                    .unwrap_or_default()
            }
            Some("voice_rules") => {
                o.voice_rules = cx
                    .string(SECTION, "orchestrator.voice_rules", k, v)
                    .map(|s| s.value)
                    .unwrap_or_default()
            }
            Some("max_prompt_tokens") => {
                o.max_prompt_tokens = cx.int(SECTION, "orchestrator.max_prompt_tokens", k, v, 1)
            }
            Some("preconditions") => {
                if v.is_null() {
                    continue;
                }
                if let Some(m) = cx.mapping(SECTION, "orchestrator.preconditions", k, v) {
                    for (pk, pv) in m.entries() {
                        if let Some(p) = read_precondition(cx, pk, pv) {
                            o.preconditions.push(p);
                        }
                    }
                }
            }
            Some("tool_constraints") => {
                if v.is_null() {
                    continue;
                }
                if let Some(m) = cx.mapping(SECTION, "orchestrator.tool_constraints", k, v) {
                    for (tk, tv) in m.entries() {
                        if let Some(t) = read_builtin_constraint(cx, tk, tv) {
                            o.tool_constraints.push(t);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if map.get("model_group").is_none() && !cx.truncated {
        cx.push(
            SECTION,
            okey.span,
            "`orchestrator` has no `model_group`".into(),
            "no `model_group` in this section",
            "add `model_group: <id>` naming a model group of integrations.yml".into(),
        );
    }
}

fn read_precondition(cx: &mut Cx, key: &Node, v: &Node) -> Option<Precondition> {
    const SECTION: &Rule = &config_invalid_agent_section::RULE;
    let name = key.key_str().unwrap_or_default();
    let path = format!("orchestrator.preconditions.{name}");
    let m = cx.mapping(SECTION, &path, key, v)?;
    cx.unknown_keys(
        SECTION,
        &path,
        m,
        &["resolve_with", "satisfied_when", "unmet_utterance"],
    );
    let mut p = Precondition {
        name: Spanned {
            value: name,
            span: key.span,
        },
        satisfied_when: None,
        satisfied_when_inner: None,
        resolve_with: None,
        unmet_utterance: true,
    };
    for (k, val) in m.entries() {
        match k.as_str() {
            Some("satisfied_when") => {
                p.satisfied_when = cx.non_blank(SECTION, &format!("{path}.satisfied_when"), k, val);
                p.satisfied_when_inner =
                    p.satisfied_when.as_ref().map(|_| inner_span(val, cx.text));
            }
            Some("resolve_with") => {
                p.resolve_with = cx
                    .non_blank(SECTION, &format!("{path}.resolve_with"), k, val)
                    .map(|s| Spanned {
                        value: s.value.trim().to_string(),
                        span: s.span,
                    })
            }
            Some("unmet_utterance") => {
                p.unmet_utterance = cx
                    .boolean(SECTION, &format!("{path}.unmet_utterance"), k, val)
                    .unwrap_or(true)
            }
            _ => {}
        }
    }
    for req in ["satisfied_when", "resolve_with"] {
        if m.get(req).is_none() && !cx.truncated {
            cx.push(
                SECTION,
                key.span,
                format!("precondition `{}` has no `{req}`", p.name.value),
                "incomplete",
                if req == "satisfied_when" {
                    "add `satisfied_when: <condition>`, e.g. `session.project.verified == True`"
                        .into()
                } else {
                    "add `resolve_with: <id of the skill that satisfies it>`".into()
                },
            );
        }
    }
    Some(p)
}

fn read_builtin_constraint(cx: &mut Cx, key: &Node, v: &Node) -> Option<BuiltinToolConstraint> {
    const SECTION: &Rule = &config_invalid_agent_section::RULE;
    let tool = key.key_str().unwrap_or_default();
    if !CONFIGURABLE_TOOLS.contains(&tool.as_str()) {
        let help = match tool
            .strip_suffix("_skill")
            .filter(|t| CONFIGURABLE_TOOLS.contains(t))
        {
            Some(t) => format!("the key for this built-in tool is `{t}`"),
            None => match did_you_mean(&tool, CONFIGURABLE_TOOLS.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!(
                    "configurable built-in tools: {}",
                    CONFIGURABLE_TOOLS.join(", ")
                ),
            },
        };
        cx.push(
            SECTION,
            key.span,
            format!(
                "built-in tool `{tool}` is not configurable in `orchestrator.tool_constraints`"
            ),
            "not configurable",
            help,
        );
        return None;
    }
    let path = format!("orchestrator.tool_constraints.{tool}");
    if v.is_null() {
        cx.push(
            SECTION,
            key.span,
            format!("`{path}` is empty"),
            "no settings",
            format!("give it settings (e.g. `{tool}: {{enabled: false}}`), or remove the key"),
        );
        return None;
    }
    let m = cx.mapping(SECTION, &path, key, v)?;
    cx.unknown_keys(
        SECTION,
        &path,
        m,
        &["enabled", "invoke_when", "requires_confirmation"],
    );
    let mut t = BuiltinToolConstraint {
        tool: Spanned {
            value: tool.clone(),
            span: key.span,
        },
        enabled: true,
        invoke_when: None,
        confirmation: None,
    };
    for (k, val) in m.entries() {
        match k.as_str() {
            Some("enabled") => {
                t.enabled = cx
                    .boolean(SECTION, &format!("{path}.enabled"), k, val)
                    .unwrap_or(true);
                if !t.enabled && !DISABLEABLE_TOOLS.contains(&tool.as_str()) {
                    cx.push(
                        SECTION,
                        val.span,
                        format!("built-in tool `{tool}` cannot be disabled"),
                        "not allowed here",
                        format!(
                            "only {} can be disabled; remove `enabled: false`",
                            DISABLEABLE_TOOLS.join(", ")
                        ),
                    );
                }
            }
            Some("invoke_when") => {
                t.invoke_when = cx
                    .non_blank(SECTION, &format!("{path}.invoke_when"), k, val)
                    .map(|s| s.value)
            }
            Some("requires_confirmation") => {
                if tool != "cancel" && tool != "cancel_skill" {
                    cx.push(
                        SECTION,
                        k.span,
                        format!(
                            "`requires_confirmation` is only allowed on `cancel_skill`, not on `{tool}`"
                        ),
                        "not allowed here",
                        "remove `requires_confirmation` from this tool".into(),
                    );
                    continue;
                }
                let cpath = format!("{path}.requires_confirmation");
                if val.is_null() {
                    cx.push(
                        SECTION,
                        k.span,
                        format!("`{cpath}` is empty"),
                        "no settings",
                        "write `requires_confirmation: {enabled: true, utter_for_confirmation: utter_...}`".into(),
                    );
                    continue;
                }
                let Some(cm) = cx.mapping(SECTION, &cpath, k, val) else {
                    continue;
                };
                cx.unknown_keys(
                    SECTION,
                    &cpath,
                    cm,
                    &["enabled", "utter_for_confirmation", "utter_on_user_denial"],
                );
                let mut enabled = false;
                let mut c = Confirmation {
                    utter_for_confirmation: None,
                    utter_on_user_denial: None,
                };
                for (ck, cv) in cm.entries() {
                    match ck.as_str() {
                        Some("enabled") => {
                            enabled = cx
                                .boolean(SECTION, &format!("{cpath}.enabled"), ck, cv)
                                .unwrap_or(false)
                        }
                        Some(s @ ("utter_for_confirmation" | "utter_on_user_denial")) => {
                            let r = if cv.is_null() {
                                None
                            } else {
                                cx.string(SECTION, &format!("{cpath}.{s}"), ck, cv)
                            };
                            if s == "utter_for_confirmation" {
                                c.utter_for_confirmation = r;
                            } else {
                                c.utter_on_user_denial = r;
                            }
                        }
                        _ => {}
                    }
                }
                if enabled {
                    t.confirmation = Some(c);
                }
            }
            _ => {}
        }
    }
    Some(t)
}

fn read_knowledge(cx: &mut Cx, kn: &mut KnowledgeAnswering, m: &Node) {
    const SECTION: &Rule = &config_invalid_agent_section::RULE;
    cx.unknown_keys(
        SECTION,
        "knowledge_answering",
        m,
        &["chunking", "embeddings", "instructions", "top_k"],
    );
    for (k, v) in m.entries() {
        match k.as_str() {
            Some("instructions") => {
                kn.instructions = cx
                    .string(SECTION, "knowledge_answering.instructions", k, v)
                    .map(|s| s.value)
                    .unwrap_or_default()
            }
            Some("embeddings") if !v.is_null() => {
                kn.embeddings = cx
                    .string(SECTION, "knowledge_answering.embeddings", k, v)
                    .map(|s| Spanned {
                        value: s.value.trim().to_string(),
                        span: s.span,
                    })
            }
            Some("top_k") => {
                kn.top_k = cx
                    .int(SECTION, "knowledge_answering.top_k", k, v, 1)
                    .unwrap_or(kn.top_k)
            }
            Some("chunking") => {
                let Some(c) = cx.mapping(SECTION, "knowledge_answering.chunking", k, v) else {
                    continue;
                };
                cx.unknown_keys(
                    SECTION,
                    "knowledge_answering.chunking",
                    c,
                    &["chunk_overlap", "chunk_size"],
                );
                let mut overlap_span = None;
                for (ck, cv) in c.entries() {
                    match ck.as_str() {
                        Some("chunk_size") => {
                            kn.chunk_size = cx
                                .int(
                                    SECTION,
                                    "knowledge_answering.chunking.chunk_size",
                                    ck,
                                    cv,
                                    1,
                                )
                                .unwrap_or(kn.chunk_size)
                        }
                        Some("chunk_overlap") => {
                            if let Some(o) = cx.int(
                                SECTION,
                                "knowledge_answering.chunking.chunk_overlap",
                                ck,
                                cv,
                                0,
                            ) {
                                kn.chunk_overlap = o;
                                overlap_span = Some(cv.span);
                            }
                        }
                        _ => {}
                    }
                }
                if kn.chunk_overlap >= kn.chunk_size {
                    cx.push(
                        SECTION,
                        overlap_span.unwrap_or(k.span),
                        format!(
                            "`chunk_overlap` ({}) must be smaller than `chunk_size` ({})",
                            kn.chunk_overlap, kn.chunk_size
                        ),
                        "too large",
                        "lower `chunk_overlap` or raise `chunk_size`".into(),
                    );
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------
// integrations.yml

/// The typed `integrations.yml`.
#[derive(Debug, Clone)]
pub struct Integrations {
    pub file: FileId,
    /// Valid model groups, in file order.
    pub model_groups: Vec<ModelGroup>,
    /// Span of the `model_groups` key, when present.
    pub model_groups_span: Option<Span>,
    /// `model_groups` parsed without errors: references may be checked.
    pub model_groups_valid: bool,
    /// Valid MCP servers.
    pub mcp_servers: Vec<McpServer>,
    /// `knowledge_stores[].embeddings` references (id, span).
    pub knowledge_store_embeddings: Vec<Spanned<String>>,
    /// Spans of literal secrets in the file (masked in the source text
    /// before any output, see `SourceDb::mask`).
    pub secrets: Vec<Span>,
    /// The raw YAML tree.
    pub node: Option<Node>,
}

impl Integrations {
    pub fn model_group(&self, id: &str) -> Option<&ModelGroup> {
        self.model_groups.iter().find(|g| g.id.value == id)
    }
}

/// One `model_groups` entry.
#[derive(Debug, Clone)]
pub struct ModelGroup {
    pub id: Spanned<String>,
    pub span: Span,
    /// At least one model; without `router` only the first is used.
    pub models: Vec<ModelConfig>,
    pub router: Option<Node>,
}

/// One model of a group. Secrets stay `${VAR}` placeholders.
#[derive(Debug, Clone)]
pub struct ModelConfig {
    pub span: Span,
    /// `provider`; `azure` when absent and `deployment` is set.
    pub provider: String,
    pub model: Option<String>,
    pub deployment: Option<String>,
    pub api_base: Option<String>,
    /// A `${VAR}` placeholder (validated), or `None` for keyless servers.
    pub api_key: Option<String>,
    pub api_version: Option<String>,
    /// `timeout` in seconds.
    pub timeout: Option<f64>,
    /// Every other key, passed through as extra parameters.
    pub extra: Vec<(String, Node)>,
}

/// One `mcp_servers` entry.
#[derive(Debug, Clone)]
pub struct McpServer {
    pub name: Spanned<String>,
    pub url: String,
    /// `http` or `https` (from `type`, else the URL scheme).
    pub transport: String,
    pub tool_timeout: Option<f64>,
}

/// Whether `s` is exactly one `${NAME}` placeholder (NAME: word characters).
pub fn is_placeholder(s: &str) -> bool {
    s.strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

/// Whether `s` starts with a `${NAME}` placeholder.
pub fn starts_with_placeholder(s: &str) -> bool {
    s.strip_prefix("${")
        .and_then(|r| r.split_once('}'))
        .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

/// A secret with all but its first characters elided: `sk-…`. Never more
/// than the first four characters, and none for short values.
pub fn elide_secret(s: &str) -> String {
    let head: String = match s.find('-') {
        Some(i) if i <= 4 && s.len() > i + 4 => s[..=i].to_string(),
        _ if s.chars().count() >= 12 => s.chars().take(2).collect(),
        _ => String::new(),
    };
    format!("{head}…")
}

fn env_name(key: &str, provider: &str) -> String {
    match key {
        "api_key" => {
            let p: String = provider
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_uppercase()
                    } else {
                        '_'
                    }
                })
                .collect();
            if p.is_empty() {
                "OPENAI_API_KEY".into()
            } else {
                format!("{p}_API_KEY")
            }
        }
        k => k.to_ascii_uppercase(),
    }
}

/// Read integrations.yml (root already parsed).
pub fn parse_integrations(
    file: FileId,
    text: &str,
    root: Option<Node>,
) -> (Integrations, Vec<Finding>) {
    let mut cx = Cx {
        file,
        text,
        out: Vec::new(),
        truncated: false,
        secrets: Vec::new(),
    };
    let mut it = Integrations {
        file,
        model_groups: Vec::new(),
        model_groups_span: None,
        model_groups_valid: true,
        mcp_servers: Vec::new(),
        knowledge_store_embeddings: Vec::new(),
        secrets: Vec::new(),
        node: None,
    };
    if let Some(r) = root.as_ref() {
        if r.as_map().is_some() {
            read_integrations(&mut cx, &mut it, r);
        } else if !r.is_null() && !matches!(&r.value, Value::Seq(v) if v.is_empty()) {
            cx.push(
                &config_invalid_integrations_yml::RULE,
                r.span,
                format!("integrations.yml must be a mapping, found {}", found(r)),
                "not a mapping",
                "start the file with `model_groups:` and list each group as `- id: ...` with its `models`".into(),
            );
            it.model_groups_valid = false;
        }
    }
    it.node = root;
    it.secrets = cx.secrets;
    (it, cx.out)
}

fn read_integrations(cx: &mut Cx, it: &mut Integrations, root: &Node) {
    for (k, v) in root.entries() {
        let key = k.key_str().unwrap_or_default();
        match key.as_str() {
            "model_groups" => {
                it.model_groups_span = Some(k.span);
                read_model_groups(cx, it, k, v);
            }
            "mcp_servers" => read_mcp_servers(cx, it, k, v),
            "knowledge_stores" => {
                for store in v.as_seq().unwrap_or(&[]) {
                    if let Some(e) = store.get("embeddings") {
                        if let Some(s) = e.as_str() {
                            it.knowledge_store_embeddings.push(Spanned {
                                value: s.trim().to_string(),
                                span: e.span,
                            });
                        }
                    }
                }
            }
            k2 if k.as_str().is_some() && INTEGRATION_KEYS.contains(&k2) => {}
            "llm" => cx.push(
                &config_unexpected_llm::RULE,
                k.span,
                "integrations.yml has a top-level `llm` section, which is not read".into(),
                "not read",
                "declare the model under `model_groups:` (`- id: main` with `models:`) and set `orchestrator.model_group: main` in agent.yml".into(),
            ),
            "models" => cx.push(
                &config_invalid_model_server::RULE,
                k.span,
                "top-level `models` is not a model list; the remote model server is configured under `rasa_model_server:`".into(),
                "not read",
                "to pull models from a server rename this key to `rasa_model_server:`; LLMs go in a model group's `models:` under `model_groups:`".into(),
            ),
            "nlg" | "action_endpoint" | "vector_store" | "nlu" | "interaction_handling" => {
                let (hint, path) = match key.as_str() {
                    "nlg" => ("to reword responses with the LLM set `metadata: {rephrase: true}` on the response variant", "/reference/responses-yml#metadata-rephrase"),
                    "action_endpoint" => ("write tools as `@tool` functions in `tools.py`, or connect `mcp_servers`", "/reference/integrations-yml#mcp_servers"),
                    "vector_store" => ("configure a vector store under `knowledge_stores:`", "/reference/integrations-yml"),
                    "nlu" => ("the engine has no NLU pipeline; remove this section", "/reference/integrations-yml#keys-this-file-does-not-accept"),
                    _ => ("set `voice: {silence_timeout: ...}` in agent.yml instead", "/reference/agent-yml#silence_timeout"),
                };
                cx.push(
                    &config_unsupported_integration_key::RULE,
                    k.span,
                    format!("`{key}` is not supported in integrations.yml"),
                    "not supported",
                    format!("{hint} (see https://mantle.rasa.com{path})"),
                );
            }
            _ => {
                let help = match did_you_mean(&key, INTEGRATION_KEYS.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("integrations.yml accepts: {}", INTEGRATION_KEYS.join(", ")),
                };
                cx.push(
                    &config_unknown_integration_key::RULE,
                    k.span,
                    format!("unknown top-level key `{key}` in integrations.yml"),
                    "unknown key",
                    help,
                );
            }
        }
    }
}

fn read_model_groups(cx: &mut Cx, it: &mut Integrations, key: &Node, v: &Node) {
    const GROUP: &Rule = &config_invalid_model_group::RULE;
    if v.is_null() {
        return;
    }
    let Some(items) = v.as_seq() else {
        cx.push(
            GROUP,
            Cx::at(key, v),
            format!("`model_groups` must be a list, found {}", found(v)),
            "expected a list",
            "write each group as a list item: `- id: main` with `models:` under it".into(),
        );
        it.model_groups_valid = false;
        return;
    };
    let mut seen: Vec<Spanned<String>> = Vec::new();
    for (i, entry) in items.iter().enumerate() {
        let n = i + 1;
        if entry.as_map().is_none() {
            cx.push(
                GROUP,
                entry.span,
                format!("model group {n} must be a mapping, found {}", found(entry)),
                "not a mapping",
                "write `- id: main` and `models:` with at least one model".into(),
            );
            it.model_groups_valid = false;
            continue;
        }
        let id = match entry.get("id") {
            Some(idn) if idn.as_str().is_some_and(|s| !s.trim().is_empty()) => Spanned {
                value: idn.as_str().unwrap_or_default().to_string(),
                span: idn.span,
            },
            other => {
                let span = other.filter(|n| !n.span.is_empty()).map_or(
                    entry
                        .as_map()
                        .and_then(|m| m.first())
                        .map_or(entry.span, |(k, _)| k.span),
                    |n| n.span,
                );
                cx.push(
                    GROUP,
                    span,
                    format!("model group {n} has no `id`"),
                    "no id",
                    "add `id: <name>`; agent.yml refers to it as `orchestrator.model_group`".into(),
                );
                it.model_groups_valid = false;
                continue;
            }
        };
        let label = format!("model group `{}`", id.value);
        let models = match entry.get("models") {
            Some(m) if m.as_seq().is_some_and(|s| !s.is_empty()) => m.as_seq().unwrap_or(&[]),
            other => {
                let span = other
                    .filter(|n| !n.span.is_empty())
                    .map_or(id.span, |n| n.span);
                cx.push(GROUP, span, format!("{label} has no models"), "no models", "add `models:` with at least one entry, e.g. `- provider: openai`, `model: gpt-4.1`, `api_key: ${OPENAI_API_KEY}`".into());
                it.model_groups_valid = false;
                continue;
            }
        };
        let mut parsed = Vec::new();
        let mut ok = true;
        for (j, m) in models.iter().enumerate() {
            match read_model(cx, &label, j + 1, m) {
                Some(mc) => parsed.push(mc),
                None => ok = false,
            }
        }
        // Credentials: independent of the shape checks.
        for m in models {
            check_credentials(cx, &label, m);
        }
        if let Some(first) = seen.iter().find(|s| s.value == id.value) {
            cx.out.push(
                config_duplicate_model_group_id::RULE
                    .finding(format!("model group id `{}` is declared twice", id.value))
                    .at(cx.file, id.span, "second declaration")
                    .label(cx.file, first.span, "first declared here")
                    .help("give each model group its own id, or merge their `models` lists under one group with a `router`"),
            );
        }
        seen.push(id.clone());
        let router = entry.get("router").cloned();
        if models.len() > 1 && router.is_none() {
            let mut f = config_unused_model_group_models::RULE
                .finding(format!(
                    "{label} lists {} models but has no `router`: only the first is used",
                    models.len()
                ))
                .at(cx.file, model_line(&models[1]), "never used");
            f = f.label(cx.file, model_line(&models[0]), "only this model is used");
            cx.out.push(f.help("add `router: {routing_strategy: simple-shuffle}` to spread requests, or keep one model"));
        }
        if !ok {
            it.model_groups_valid = false;
            continue;
        }
        it.model_groups.push(ModelGroup {
            id,
            span: entry.span,
            models: parsed,
            router,
        });
    }
}

/// Where to point at a model entry: its `model`/`deployment` value.
fn model_line(m: &Node) -> Span {
    m.get("model")
        .or_else(|| m.get("deployment"))
        .filter(|v| !v.span.is_empty())
        .map_or(head(m), |v| v.span)
}

fn read_model(cx: &mut Cx, group: &str, n: usize, m: &Node) -> Option<ModelConfig> {
    const GROUP: &Rule = &config_invalid_model_group::RULE;
    if m.as_map().is_none() {
        cx.push(
            GROUP,
            m.span,
            format!("model {n} of {group} must be a mapping, found {}", found(m)),
            "not a mapping",
            "write `- provider: openai` with `model: ...` under it".into(),
        );
        return None;
    }
    let s = |k: &str| m.get(k).and_then(Node::as_str).map(str::to_string);
    let provider = match (m.get("provider"), m.get("deployment")) {
        (Some(p), _) => match p.as_str() {
            Some(p) if !p.trim().is_empty() => p.trim().to_string(),
            _ => {
                cx.push(
                    GROUP,
                    p.span,
                    format!("`provider` of model {n} of {group} must be a non-blank string"),
                    "invalid provider",
                    "write e.g. `provider: openai`".into(),
                );
                return None;
            }
        },
        (None, Some(_)) => "azure".into(),
        (None, None) => {
            cx.push(GROUP, head(m), format!("model {n} of {group} has no `provider`"), "no provider", "add `provider: openai` (or `azure`, `self-hosted` with `api_base` for an OpenAI-compatible server)".into());
            return None;
        }
    };
    let required: &[&str] = match provider.as_str() {
        "azure" => &["deployment"],
        "self-hosted" | "rasa" => &["model", "api_base"],
        _ => &["model"],
    };
    let mut ok = true;
    for r in required {
        match m.get(r) {
            Some(v) if v.as_str().is_some_and(|s| !s.trim().is_empty()) => {}
            Some(v) => {
                cx.push(
                    GROUP,
                    if v.span.is_empty() { m.span } else { v.span },
                    format!("`{r}` of model {n} of {group} must be a non-blank string"),
                    "invalid",
                    format!("write `{r}: \"...\"`"),
                );
                ok = false;
            }
            None => {
                let help = match *r {
                    "api_base" => "add `api_base: http://127.0.0.1:8000/v1` (the server's OpenAI-compatible base URL)".to_string(),
                    "deployment" => "add `deployment: <name of the Azure deployment>`".to_string(),
                    _ => "add `model: <model name>`, e.g. `model: gpt-4.1`".to_string(),
                };
                cx.push(
                    GROUP,
                    m.span,
                    format!("model {n} of {group} (provider `{provider}`) has no `{r}`"),
                    &format!("no `{r}`"),
                    help,
                );
                ok = false;
            }
        }
    }
    if !matches!(provider.as_str(), "rasa" | "huggingface_local") {
        for forbidden in ["stream", "n"] {
            if let Some((k, _)) = m.entries().find(|(k, _)| k.as_str() == Some(forbidden)) {
                cx.push(
                    GROUP,
                    k.span,
                    format!("`{forbidden}` is not allowed in model {n} of {group}"),
                    "not allowed",
                    format!("remove `{forbidden}`; the engine sets it itself"),
                );
                ok = false;
            }
        }
    }
    if matches!(provider.as_str(), "openai" | "self-hosted") {
        if let Some(t) = m.get("api_type") {
            if t.as_str() != Some("openai") {
                cx.push(
                    GROUP,
                    t.span,
                    format!("`api_type` of model {n} of {group} must be `openai`"),
                    "invalid",
                    "write `api_type: openai`, or remove the key".into(),
                );
                ok = false;
            }
        }
    }
    if !ok {
        return None;
    }
    let known = [
        "provider",
        "model",
        "model_name",
        "deployment",
        "api_base",
        "api_key",
        "api_version",
        "timeout",
    ];
    Some(ModelConfig {
        span: m.span,
        provider,
        model: s("model").or_else(|| s("model_name")),
        deployment: s("deployment"),
        api_base: s("api_base"),
        api_key: s("api_key").filter(|k| is_placeholder(k)),
        api_version: s("api_version"),
        timeout: m.get("timeout").and_then(Node::as_f64),
        extra: m
            .entries()
            .filter_map(|(k, v)| {
                let key = k.as_str()?;
                (!known.contains(&key)).then(|| (key.to_string(), v.clone()))
            })
            .collect(),
    })
}

/// §4.2 step 4: sensitive keys must be `${VAR}` at any depth.
fn check_credentials(cx: &mut Cx, group: &str, m: &Node) {
    const CRED: &Rule = &config_invalid_model_group_credentials::RULE;
    let provider = m
        .get("provider")
        .and_then(Node::as_str)
        .unwrap_or("openai")
        .to_string();
    fn walk(cx: &mut Cx, group: &str, provider: &str, node: &Node) {
        for (k, v) in node.entries() {
            let Some(key) = k.as_str() else { continue };
            if key == "api_key_env" {
                let var = v
                    .as_str()
                    .filter(|s| s.chars().all(|c| c.is_alphanumeric() || c == '_'))
                    .unwrap_or("OPENAI_API_KEY");
                cx.push(
                    CRED,
                    k.span,
                    format!("`api_key_env` in {group} is not supported"),
                    "not supported",
                    format!("write `api_key: ${{{var}}}` instead"),
                );
                continue;
            }
            if SENSITIVE_KEYS.contains(&key) {
                let var = env_name(key, provider);
                match v.as_str() {
                    Some(s) if is_placeholder(s) => {}
                    Some(s) => cx.secret(v.span).push(
                        CRED,
                        Cx::at(k, v),
                        format!("`{key}` in {group} is a literal secret (`{}`); secrets must come from the environment", elide_secret(s)),
                        "literal secret",
                        format!("write `{key}: ${{{var}}}` and set {var} in the environment (never commit keys)"),
                    ),
                    None => cx.push(
                        CRED,
                        Cx::at(k, v),
                        format!("`{key}` in {group} must be a `${{VAR}}` placeholder, found {}", found(v)),
                        "not a placeholder",
                        format!("write `{key}: ${{{var}}}`, or remove the key for a server without a key"),
                    ),
                }
                continue;
            }
            if v.as_map().is_some() {
                walk(cx, group, provider, v);
            }
        }
    }
    if m.as_map().is_some() {
        walk(cx, group, &provider, m);
    }
}

fn read_mcp_servers(cx: &mut Cx, it: &mut Integrations, key: &Node, v: &Node) {
    const MCP: &Rule = &config_invalid_mcp_server::RULE;
    if v.is_null() {
        return;
    }
    let Some(items) = v.as_seq() else {
        cx.push(
            MCP,
            Cx::at(key, v),
            format!("`mcp_servers` must be a list, found {}", found(v)),
            "expected a list",
            "write each server as `- name: billing` with `url: https://...`".into(),
        );
        return;
    };
    let mut seen: Vec<Spanned<String>> = Vec::new();
    for (i, entry) in items.iter().enumerate() {
        let n = i + 1;
        if entry.as_map().is_none() {
            cx.push(
                MCP,
                entry.span,
                format!("MCP server {n} must be a mapping, found {}", found(entry)),
                "not a mapping",
                "write `- name: <name>` and `url: https://...`".into(),
            );
            continue;
        }
        let mut ok = true;
        let name = match entry.get("name") {
            Some(nn) if nn.as_str().is_some_and(valid_server_name) => Some(Spanned {
                value: nn.as_str().unwrap_or_default().to_string(),
                span: nn.span,
            }),
            Some(nn) if nn.as_str().is_some() => {
                cx.push(
                    MCP,
                    nn.span,
                    format!(
                        "MCP server name `{}` is invalid",
                        nn.as_str().unwrap_or_default()
                    ),
                    "invalid name",
                    "use letters, digits, `_`, `.` and `-`, starting with a letter or digit".into(),
                );
                None
            }
            other => {
                cx.push(
                    MCP,
                    other.map_or(entry.span, |n| Cx::at(n, n)),
                    format!("MCP server {n} has no `name`"),
                    "no name",
                    "add `name: <name>`; skills import its tools as `mcp/<name>:<tool>`".into(),
                );
                None
            }
        };
        let label = name.as_ref().map_or(format!("MCP server {n}"), |s| {
            format!("MCP server `{}`", s.value)
        });
        let url = match entry.get("url") {
            Some(u) => match u.as_str().map(str::trim) {
                Some(s) if s.starts_with("http://") || s.starts_with("https://") => {
                    Some(s.to_string())
                }
                Some(s) if s.starts_with("${") => Some(s.to_string()),
                Some(s) if !s.is_empty() => {
                    cx.push(
                        MCP,
                        u.span,
                        format!("the `url` of {label} must use http or https"),
                        "unsupported scheme",
                        "write `url: https://host/mcp/`".into(),
                    );
                    ok = false;
                    None
                }
                _ => {
                    cx.push(
                        MCP,
                        if u.span.is_empty() {
                            entry.span
                        } else {
                            u.span
                        },
                        format!("the `url` of {label} is blank"),
                        "blank",
                        "write `url: https://host/mcp/`".into(),
                    );
                    ok = false;
                    None
                }
            },
            None => {
                cx.push(
                    MCP,
                    name.as_ref().map_or(entry.span, |s| s.span),
                    format!("{label} has no `url`"),
                    "no url",
                    "add `url: https://host/mcp/`".into(),
                );
                ok = false;
                None
            }
        };
        let var_prefix: String = name
            .as_ref()
            .map(|s| {
                s.value
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() {
                            c.to_ascii_uppercase()
                        } else {
                            '_'
                        }
                    })
                    .collect::<String>()
                    + "_"
            })
            .unwrap_or_default();
        let mut transport = url
            .as_deref()
            .and_then(|u| u.split_once("://"))
            .map_or("https".to_string(), |(s, _)| s.to_string());
        let mut tool_timeout = None;
        let mut auth: Vec<&Node> = Vec::new();
        for (k, val) in entry.entries() {
            let Some(key) = k.as_str() else { continue };
            match key {
                "name" | "url" => {}
                "type" => match val.as_str() {
                    Some(t @ ("http" | "https")) => transport = t.to_string(),
                    _ => {
                        cx.push(MCP, Cx::at(k, val), format!("`type` of {label} must be `http` or `https`"), "invalid type", "write `type: http` or `type: https`, or remove it (the URL scheme is used)".into());
                        ok = false;
                    }
                },
                "tool_timeout" => {
                    tool_timeout = cx.positive(
                        MCP,
                        &format!("mcp_servers[{i}].tool_timeout"),
                        k,
                        val,
                        false,
                    );
                    ok &= tool_timeout.is_some();
                }
                "meta_map" => {
                    if let Some((fk, _)) = val
                        .entries()
                        .find(|(fk, _)| fk.as_str() == Some("from_slots"))
                    {
                        cx.push(
                            MCP,
                            fk.span,
                            format!("`meta_map.from_slots` of {label} is not supported"),
                            "not supported",
                            "use `meta_map: {static: {key: value}}`".into(),
                        );
                        ok = false;
                    }
                }
                "auth" | "token_env" | "pre_call_hook" | "protocol_version" => {
                    let help = match key {
                        "token_env" => "write `token: ${MY_TOKEN}` instead".to_string(),
                        "auth" => "use one of `token: ${VAR}`, `api_key: ${VAR}` or `oauth: {...}`"
                            .to_string(),
                        _ => format!("remove `{key}`"),
                    };
                    cx.push(
                        MCP,
                        k.span,
                        format!("`{key}` is not supported in {label}"),
                        "not supported",
                        help,
                    );
                    ok = false;
                }
                "token" | "api_key" | "client_secret" => {
                    auth.push(k);
                    secret_prefix(cx, &label, &var_prefix, k, val, &mut ok);
                }
                "oauth" => {
                    auth.push(k);
                    if let Some((ck, cv)) = val
                        .entries()
                        .find(|(ck, _)| ck.as_str() == Some("client_secret"))
                    {
                        secret_prefix(cx, &label, &var_prefix, ck, cv, &mut ok);
                    }
                }
                "module" => auth.push(k),
                _ => {}
            }
        }
        let methods: Vec<&&Node> = auth
            .iter()
            .filter(|k| k.as_str() != Some("client_secret"))
            .collect();
        if methods.len() > 1 {
            let mut f = MCP
                .finding(format!("{label} sets more than one authentication method"))
                .at(cx.file, methods[1].span, "second method");
            f = f.label(cx.file, methods[0].span, "first method");
            cx.out
                .push(f.help("keep one of `token`, `api_key`, `oauth` or `module`"));
            ok = false;
        }
        let Some(name) = name else { continue };
        if let Some(first) = seen.iter().find(|s| s.value == name.value) {
            cx.out.push(
                config_duplicate_mcp_server_name::RULE
                    .finding(format!(
                        "MCP server name `{}` is declared twice",
                        name.value
                    ))
                    .at(cx.file, name.span, "second declaration")
                    .label(cx.file, first.span, "first declared here")
                    .help("rename one of them; skills import tools as `mcp/<name>:<tool>`"),
            );
            continue;
        }
        seen.push(name.clone());
        if let (true, Some(url)) = (ok, url) {
            it.mcp_servers.push(McpServer {
                name,
                url,
                transport,
                tool_timeout,
            });
        }
    }
}

fn secret_prefix(cx: &mut Cx, label: &str, var_prefix: &str, k: &Node, v: &Node, ok: &mut bool) {
    let key = k.key_str().unwrap_or_default();
    let var = format!("{var_prefix}{}", key.to_ascii_uppercase());
    match v.as_str() {
        Some(s) if starts_with_placeholder(s) => {}
        Some(s) => {
            cx.secret(v.span).push(
                &config_invalid_mcp_server::RULE,
                Cx::at(k, v),
                format!("`{key}` of {label} is a literal secret (`{}`); secrets must come from the environment", elide_secret(s)),
                "literal secret",
                format!("write `{key}: ${{{var}}}` and set {var} in the environment (never commit secrets)"),
            );
            *ok = false;
        }
        None => {
            cx.push(
                &config_invalid_mcp_server::RULE,
                Cx::at(k, v),
                format!("`{key}` of {label} must be a `${{VAR}}` placeholder"),
                "not a placeholder",
                format!("write `{key}: ${{{var}}}`"),
            );
            *ok = false;
        }
    }
}

fn valid_server_name(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphanumeric())
        && cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(text: &str) -> (AgentConfig, Vec<&'static str>) {
        let root = crate::yaml::parse(text).root;
        let (c, f) = parse_agent(FileId(0), text, root, false);
        (c, f.iter().map(|f| f.code).collect())
    }

    fn integrations(text: &str) -> (Integrations, Vec<Finding>) {
        let root = crate::yaml::parse(text).root;
        parse_integrations(FileId(0), text, root)
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(agent|orchestrator|model_groups|models|persona|model_group|provider|api_key|tool_constraints|mcp_servers|- |: |\\n|  |\\$\\{X\\}|sk-abc|true|1|\"|\\[|\\{|é){0,40}") {
            let _ = agent(&s);
            let _ = integrations(&s);
        }

        #[test]
        fn never_panics_on_any_text(s in "\\PC{0,200}") {
            let _ = agent(&s);
            let _ = integrations(&s);
        }
    }

    #[test]
    fn valid_agent() {
        let (c, codes) = agent("agent:\n  name: X\n  persona: Hi\norchestrator:\n  model_group: ' main '\n  tool_constraints:\n    cancel:\n      requires_confirmation: {enabled: true, utter_for_confirmation: utter_sure}\nrules:\n  - Be brief\n");
        assert!(codes.is_empty(), "{codes:?}");
        assert_eq!(c.orchestrator.model_group.as_ref().unwrap().value, "main");
        assert_eq!(c.persona.as_ref().unwrap().value, "Hi");
        assert!(c.tool_constraint("cancel").unwrap().confirmation.is_some());
    }

    #[test]
    fn agent_problems() {
        let (_, codes) = agent("agent:\n  persona: ' '\n  rules: [x]\norchestrator:\n  model: x\n  tool_constraints:\n    cancel_everything: {enabled: false}\n    activate: {enabled: false}\n");
        assert_eq!(
            codes
                .iter()
                .filter(|c| **c == "config.invalid_agent_section")
                .count(),
            5,
            "{codes:?}"
        );
        assert!(codes.contains(&"config.unknown_agent_key"));
        let (_, codes) = agent("- a\n");
        assert_eq!(codes, vec!["config.invalid_agent_yml"]);
        let (_, codes) = agent("");
        assert!(codes.contains(&"config.missing_agent_section"));
    }

    #[test]
    fn literal_key_is_never_echoed() {
        let key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789";
        let (it, f) = integrations(&format!(
            "model_groups:\n  - id: main\n    models:\n      - provider: openai\n        model: gpt-4.1\n        api_key: {key}\n"
        ));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, "config.invalid_model_group_credentials");
        assert!(!f[0].message.contains("abcdef"), "{}", f[0].message);
        assert!(f[0].message.contains("`sk-…`"));
        assert!(!f[0].help.as_deref().unwrap_or("").contains("abcdef"));
        // The group is still usable for references, its key dropped.
        assert_eq!(it.model_groups.len(), 1);
        assert_eq!(it.model_groups[0].models[0].api_key, None);
    }

    #[test]
    fn elision() {
        assert_eq!(elide_secret("sk-abcdefghijkl"), "sk-…");
        assert_eq!(elide_secret("abcdefghijklmnop"), "ab…");
        assert_eq!(elide_secret("short"), "…");
        assert!(is_placeholder("${OPENAI_API_KEY}"));
        assert!(!is_placeholder("${OPENAI_API_KEY}x"));
        assert!(starts_with_placeholder("${T}x"));
    }

    #[test]
    fn integration_keys() {
        let (_, f) = integrations("llm: {}\nnlg: {}\nmodel_group: []\nmcp_servers:\n  - name: a\n    url: ftp://x\n  - name: a\n    url: https://x\n");
        let codes: Vec<&str> = f.iter().map(|f| f.code).collect();
        assert!(codes.contains(&"config.unexpected_llm"));
        assert!(codes.contains(&"config.unsupported_integration_key"));
        assert!(codes.contains(&"config.unknown_integration_key"));
        assert!(codes.contains(&"config.invalid_mcp_server"));
    }
}
