//! The packaged model's `manifest.json`: serde types, versioned.
//!
//! The manifest is produced from the semantic model by [`crate::train`] and
//! is all the runtime reads besides the packaged Python sources. Its JSON
//! Schema is generated from these types (`maestro schema manifest`); a test
//! keeps the checked-in copy `schema/manifest.schema.json` in sync.

use crate::knowledge::{ChunkingConfig, Stats};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the manifest format. Bumped on every incompatible change;
/// the runtime refuses manifests of another version.
pub const FORMAT_VERSION: u32 = 1;
/// Path of the manifest inside the archive.
pub const MANIFEST_PATH: &str = "manifest.json";
/// Path of the knowledge index inside the archive.
pub const KNOWLEDGE_PATH: &str = "knowledge/index.json";

/// The compiled project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Manifest {
    pub format_version: u32,
    /// Version of maestro that trained the model.
    pub maestro_version: String,
    /// SHA-256 over every input of the model (files and maestro version).
    pub fingerprint: String,
    pub agent: Agent,
    /// Model groups from integrations.yml; secrets stay `${VAR}`.
    pub model_groups: Vec<ModelGroup>,
    /// Skills in catalog order.
    pub skills: Vec<Skill>,
    pub memory: Memory,
    /// Post-write hooks of the agent-root `tools/`, available to every skill.
    pub shared_hooks: Vec<Hook>,
    /// Responses by name, after layering.
    pub responses: BTreeMap<String, Response>,
    /// The knowledge index, when the project has reference documents.
    pub knowledge: Option<Knowledge>,
}

/// Agent settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Agent {
    pub name: Option<String>,
    pub persona: Option<String>,
    /// The model group the orchestrator uses.
    pub model_group: Option<String>,
    /// Seconds a tool may run before it is stopped.
    pub tool_timeout_secs: f64,
    pub chunking: ChunkingConfig,
    /// Extra rules for the orchestrator prompt.
    pub rules: Vec<String>,
    /// Levers on built-in tools.
    pub builtin_tools: Vec<BuiltinTool>,
}

/// One model group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelGroup {
    pub id: String,
    pub models: Vec<ModelConfig>,
}

/// One model of a group. `api_key` is kept as written (a `${VAR}`
/// placeholder); the runtime reads the variable from its environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelConfig {
    pub provider: String,
    pub model: String,
    pub api_key: Option<String>,
    pub api_base: Option<String>,
    pub timeout_secs: Option<f64>,
}

/// One skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Skill {
    pub id: String,
    pub name: Option<String>,
    pub description: String,
    /// The body of skill.md.
    pub instructions: String,
    pub hidden: bool,
    pub disabled: bool,
    pub always_include_in_prompt: bool,
    /// `import_tools` as written.
    pub import_tools: Vec<String>,
    /// The resolved tool set, in resolution order.
    pub tools: Vec<Tool>,
    /// The skill's own post-write hooks.
    pub hooks: Vec<Hook>,
}

/// The framework tools of the seeds (decision D1): run by the engine, and
/// reserved (no builder tool, shared tool or import may take one of these
/// names; `tools.reserved_name`).
pub const FRAMEWORK_TOOLS: &[&str] = &[
    "activate",
    "complete_skill",
    "cancel_skill",
    "set_fields",
    "correct",
    "resolve_tool_confirmation",
    "search_knowledge",
    "cannot_help",
];

impl Manifest {
    /// Every Python module the runtime may call (tools, skill hooks and
    /// shared hooks), sorted, each once.
    pub fn python_modules(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .skills
            .iter()
            .flat_map(|s| {
                s.tools
                    .iter()
                    .map(|t| t.module.clone())
                    .chain(s.hooks.iter().map(|h| h.module.clone()))
            })
            .chain(self.shared_hooks.iter().map(|h| h.module.clone()))
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// One tool of a skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Tool {
    pub name: String,
    /// Module path inside the archive (e.g. `skills/card/tools.py`).
    pub module: String,
    /// The function's name in the module.
    pub function: String,
    pub description: String,
    /// JSON schema of the parameters (decision D3).
    pub parameters: serde_json::Value,
    /// An imported shared tool.
    pub shared: bool,
    pub gate: Option<Gate>,
    pub confirmation: Option<Confirmation>,
    pub on_success: Option<String>,
    pub on_failure: Option<String>,
}

/// A condition (`requires:` gate, response-variant `condition`): its source
/// text and the parsed expression. A condition that does not parse is
/// stored as `false` (fail closed); `train` refuses such projects anyway.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Gate {
    pub source: String,
    /// The parsed condition (see `crate::condition`).
    pub condition: crate::condition::Expr,
}

impl Gate {
    /// Parse `source` into a gate.
    pub fn compile(source: &str) -> Gate {
        let condition = crate::condition::parse(source).map_or_else(
            |_| {
                crate::condition::Expr::new(
                    crate::condition::ExprKind::Literal(crate::condition::Literal::Bool(false)),
                    crate::source::Span::default(),
                )
            },
            |c| c.expr,
        );
        Gate {
            source: source.to_string(),
            condition,
        }
    }
}

/// `requires_confirmation` with `enabled: true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Confirmation {
    pub utter_for_confirmation: Option<String>,
    pub utter_on_user_denial: Option<String>,
}

/// A post-write hook `run_after_setting_<entry>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hook {
    /// The memory entry it follows.
    pub entry: String,
    pub module: String,
    pub function: String,
}

/// Declared memory.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Memory {
    /// Fields of the project memory.yml (namespace `project`).
    pub project: Vec<Field>,
    /// Each skill's memory by skill id.
    pub skills: BTreeMap<String, SkillMemory>,
}

/// One skill's memory.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct SkillMemory {
    pub fields: Vec<Field>,
    pub deny_read: Vec<String>,
    pub deny_write: Vec<String>,
}

/// One memory field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Field {
    pub name: String,
    /// `public`, `private` or `project`.
    pub visibility: String,
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    pub description: Option<String>,
    pub llm_settable: bool,
    pub immutable: bool,
    pub initial_value: Option<serde_json::Value>,
}

/// A response and its variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Response {
    /// The file it came from (after layering).
    pub source: String,
    pub variants: Vec<Variant>,
}

/// One variant of a response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Variant {
    pub text: String,
    pub condition: Option<Gate>,
    pub buttons: Vec<Button>,
}

/// A button of a response variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Button {
    pub title: String,
    pub payload: Option<String>,
}

/// A lever on a built-in tool (`orchestrator.tool_constraints`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BuiltinTool {
    pub tool: String,
    pub enabled: bool,
    pub invoke_when: Option<String>,
    pub confirmation: Option<Confirmation>,
}

/// Where the knowledge index is and what it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Knowledge {
    pub path: String,
    pub stats: Stats,
}

/// The JSON Schema of the manifest, pretty-printed.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Manifest);
    serde_json::to_string_pretty(&schema).expect("a schema serializes") + "\n"
}
