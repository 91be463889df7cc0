//! Declared memory and the access rules over it (decision D7).
//!
//! - Skill `memory.yml`: `schema.public`, `schema.private` and the access
//!   lists `access.deny_read` / `access.deny_write`; namespace = skill id.
//! - Project `memory.yml`: a flat map of fields; namespace `project`.
//! - `system.*`: engine entries ([`SYSTEM_ENTRIES`]); never declared,
//!   never written by a project, readable by conditions.
//!
//! [`parse_skill`] / [`parse_project`] read the files (with the file-local
//! `memory.*` findings); the model puts the result into one
//! [`MemoryModel`], which answers the two questions every other part asks:
//!
//! - **may skill S read name N?** [`MemoryModel::read`] (names as tool code
//!   writes them: bare or `<ns>.<entry>`) and [`MemoryModel::read_qualified`]
//!   (namespace given apart, as conditions write `session.<ns>.<entry>`);
//! - **may skill S write name N?** [`MemoryModel::write_target`].
//!
//! Both return a typed answer that says *why* not, so that checks can label
//! the declaration or the deny rule involved, and the runtime can share the
//! exact same rules. [`MemoryModel::readable_names`] and
//! [`MemoryModel::writable_names`] list the candidates for "did you mean";
//! [`MemoryModel::settable`] lists what the model may set.
//!
//! These rules exist only here. `maestro check` builds the model from the
//! project's files; the runtime rebuilds it from the package
//! ([`MemoryModel::from_manifest`], no source locations) and asks the same
//! functions (`crate::runtime::memory`), adding only what needs the stored
//! values (an `immutable` field that already holds one).
//!
//! A memory *name* is either bare (`card_id`) or qualified
//! (`<namespace>.<entry>`); a *slot* is the fully-qualified storage key of a
//! field ([`Field::qualified_name`], [`qualified_name`]).

mod package;
mod parse;

pub use parse::{parse_project, parse_skill, FIELD_KEYS};

use crate::skill_md::Spanned;
use crate::source::{FileId, Span};
use crate::yaml::{Node, Value};
use std::collections::BTreeMap;

/// Reserved namespace of engine entries.
pub const SYSTEM_NAMESPACE: &str = "system";
/// Namespace of the project-root `memory.yml`.
pub const PROJECT_NAMESPACE: &str = "project";

/// The closed registry of `system.*` entries (memory.md §2.2). Conditions
/// may read them; nobody but the engine writes them.
pub const SYSTEM_ENTRIES: &[&str] = &[
    "correction_resume_point",
    "__discovered__",
    "pending_tool_confirmation",
    "consecutive_silence_timeouts",
    "verbatim_activate_triggers_fired",
    "verbatim_when_trigger_match_state",
];

/// The fully-qualified slot name of `entry` in `namespace`:
/// `qualified_name("card_replace", "reason") == "card_replace.reason"`.
pub fn qualified_name(namespace: &str, entry: &str) -> String {
    format!("{namespace}.{entry}")
}

/// Who may read a field (memory.md §2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// `schema.public`: readable by every skill as `<skill>.<entry>`.
    Public,
    /// `schema.private`: readable by its own skill only.
    Private,
    /// A field of the project `memory.yml`.
    Project,
}

/// The value type of a field (memory.md §1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// `text`: a string.
    Text,
    /// `int`: an integer.
    Int,
    /// `float`: a number.
    Float,
    /// `bool`: a boolean.
    Bool,
    /// `list`: a list.
    List,
    /// `json`: any JSON value.
    Json,
    /// `categorical`: one of `enum_values` (when given).
    Categorical,
    /// No `type`, or `type: any`.
    Any,
    /// A `type` string that is none of the above (behaves as `any`).
    Unknown,
}

impl FieldType {
    /// The accepted `type` strings.
    pub const NAMES: &'static [&'static str] = &[
        "text",
        "int",
        "float",
        "bool",
        "list",
        "json",
        "categorical",
        "any",
    ];

    /// Parse a canonical type string.
    pub fn parse(s: &str) -> Option<FieldType> {
        Some(match s {
            "text" => FieldType::Text,
            "int" => FieldType::Int,
            "float" => FieldType::Float,
            "bool" => FieldType::Bool,
            "list" => FieldType::List,
            "json" => FieldType::Json,
            "categorical" => FieldType::Categorical,
            "any" => FieldType::Any,
            _ => return None,
        })
    }

    /// The canonical type an unknown type string was probably meant to be
    /// (`str` → `text`, `number` → `float`, `Boolean` → `bool`, typos).
    pub fn near_miss(s: &str) -> Option<&'static str> {
        let lower = s.trim().to_ascii_lowercase();
        if let Some(t) = Self::NAMES.iter().find(|t| **t == lower) {
            return Some(t);
        }
        let alias = match lower.as_str() {
            "str" | "string" | "varchar" | "char" => "text",
            "integer" | "long" => "int",
            "number" | "double" | "decimal" | "numeric" | "real" => "float",
            "boolean" => "bool",
            "array" | "sequence" | "tuple" => "list",
            "dict" | "object" | "map" | "mapping" => "json",
            "enum" | "category" | "choice" => "categorical",
            "anything" | "object_any" => "any",
            _ => return crate::suggest::did_you_mean(&lower, Self::NAMES.iter().copied()),
        };
        Some(alias)
    }
}

/// One declared memory field.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The entry name as declared (the bare name).
    pub name: String,
    /// The skill id, or [`PROJECT_NAMESPACE`].
    pub namespace: String,
    /// Span of the field's key.
    pub span: Span,
    /// The memory.yml that declares it ([`FileId::NONE`] when rebuilt
    /// from a package).
    pub file: FileId,
    /// Its section: public, private or project.
    pub visibility: Visibility,
    /// The type `type_name` reads as.
    pub ty: FieldType,
    /// The `type` string as written.
    pub type_name: Option<String>,
    /// `description`, as written.
    pub description: Option<String>,
    /// `llm_settable: true`: the model may set it (`set_fields`).
    pub llm_settable: bool,
    /// Write-once per session (D7).
    pub immutable: bool,
    /// `initial_value`, when present and not null.
    pub initial_value: Option<Node>,
    /// `enum_values` (empty when absent).
    pub enum_values: Vec<Node>,
    /// `seed: true` (project fields: filled from session-start metadata).
    pub seed: bool,
    /// `pii: true`: the value is withheld from prompts.
    pub pii: bool,
    /// The whole attribute mapping (None when the body is not a mapping),
    /// for spans of single attributes ([`Field::attr`]).
    pub attrs: Option<Node>,
}

/// What a value of a field's type looks like, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// E.g. "an integer (`type: int`)".
    pub what: String,
    /// What to write instead.
    pub help: String,
}

impl Field {
    /// The fully-qualified slot name, e.g. `card_replace.order_confirmed`.
    pub fn qualified_name(&self) -> String {
        qualified_name(&self.namespace, &self.name)
    }

    /// The key and value of one attribute (the last one, like YAML reads).
    pub fn attr(&self, key: &str) -> Option<(&Node, &Node)> {
        self.attrs
            .as_ref()?
            .entries()
            .filter(|(k, _)| k.as_str() == Some(key))
            .last()
    }

    /// A non-blank description.
    pub fn has_description(&self) -> bool {
        self.description
            .as_deref()
            .is_some_and(|d| !d.trim().is_empty())
    }

    /// Whether a YAML value fits the field's type (null always does). Used
    /// for `initial_value`; `categorical` with `enum_values` requires one
    /// of them (compared as text, like the reference's `str()` check).
    pub fn accepts(&self, value: &Node) -> Result<(), Expected> {
        let v = &value.value;
        if matches!(v, Value::Null) {
            return Ok(());
        }
        let ok = match self.ty {
            FieldType::Text => matches!(v, Value::Str(_)),
            FieldType::Int => matches!(v, Value::Int(_)),
            FieldType::Float => matches!(v, Value::Int(_) | Value::Float(_)),
            FieldType::Bool => matches!(v, Value::Bool(_)),
            FieldType::List => matches!(v, Value::Seq(_)),
            FieldType::Json => !matches!(v, Value::Date(_)),
            FieldType::Categorical if !self.enum_values.is_empty() => {
                let text = value.key_str();
                text.is_some() && self.enum_values.iter().any(|e| e.key_str() == text)
            }
            FieldType::Categorical => !matches!(v, Value::Seq(_) | Value::Map(_)),
            FieldType::Any | FieldType::Unknown => true,
        };
        if ok {
            return Ok(());
        }
        let (what, help) = match self.ty {
            FieldType::Text => (
                "text (`type: text`)".to_string(),
                match v {
                    Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Date(_) => {
                        let t = value.key_str().unwrap_or_default();
                        format!("quote it: `initial_value: \"{t}\"`")
                    }
                    _ => "write a string, e.g. `initial_value: \"\"`".to_string(),
                },
            ),
            FieldType::Int => (
                "an integer (`type: int`)".to_string(),
                "write a whole number, e.g. `initial_value: 0`, or change the type".to_string(),
            ),
            FieldType::Float => (
                "a number (`type: float`)".to_string(),
                "write a number, e.g. `initial_value: 0.0`, or change the type".to_string(),
            ),
            FieldType::Bool => (
                "a boolean (`type: bool`)".to_string(),
                "write `initial_value: false` or `initial_value: true` (unquoted)".to_string(),
            ),
            FieldType::List => (
                "a list (`type: list`)".to_string(),
                "write a list, e.g. `initial_value: []`".to_string(),
            ),
            FieldType::Json => (
                "JSON (`type: json`)".to_string(),
                "quote the date to make it a string".to_string(),
            ),
            FieldType::Categorical if !self.enum_values.is_empty() => (
                "one of its `enum_values`".to_string(),
                format!(
                    "use one of {}, or add the value to `enum_values`",
                    self.enum_values
                        .iter()
                        .filter_map(Node::key_str)
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            _ => (
                "a single value (`type: categorical`)".to_string(),
                "write one value, e.g. `initial_value: small`".to_string(),
            ),
        };
        Err(Expected { what, help })
    }
}

/// A skill's `memory.yml`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillMemory {
    /// The file, when the skill has one.
    pub file: Option<FileId>,
    /// Every declaration: `schema.public` fields, then `schema.private`
    /// ones, each in file order. An entry declared in both sections (a
    /// `memory.public_and_private` finding) appears twice.
    pub fields: Vec<Field>,
    /// `access.deny_read` items (bare or fully-qualified names).
    pub deny_read: Vec<Spanned<String>>,
    /// `access.deny_write` items (bare or fully-qualified names).
    pub deny_write: Vec<Spanned<String>>,
}

static EMPTY_SKILL: SkillMemory = SkillMemory {
    file: None,
    fields: Vec::new(),
    deny_read: Vec::new(),
    deny_write: Vec::new(),
};

impl SkillMemory {
    /// The field as its own skill sees it (a private declaration wins over
    /// a public one of the same name).
    pub fn field(&self, name: &str) -> Option<&Field> {
        let mut public = None;
        for f in self.fields.iter().filter(|f| f.name == name) {
            if f.visibility == Visibility::Private {
                return Some(f);
            }
            public = public.or(Some(f));
        }
        public
    }

    /// The public declaration of `name` (what other skills see).
    pub fn public_field(&self, name: &str) -> Option<&Field> {
        self.fields
            .iter()
            .find(|f| f.name == name && f.visibility == Visibility::Public)
    }

    /// Field names, each once, in declaration order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.fields
            .iter()
            .enumerate()
            .filter(|(i, f)| !self.fields[..*i].iter().any(|g| g.name == f.name))
            .map(|(_, f)| f.name.as_str())
    }
}

/// How a memory name splits (memory.md §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name<'n> {
    /// No namespace: looked up in the active skill, then the project.
    Bare(&'n str),
    /// `<namespace>.<entry>` where the namespace is `project`, `system` or
    /// a skill id; the split is at the first `.`.
    Qualified {
        /// `project`, `system` or a skill id.
        namespace: &'n str,
        /// Everything after the first `.`.
        entry: &'n str,
    },
}

/// A readable thing: a declared field or a registered system entry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Entry<'a> {
    /// A field of a skill's or the project's memory.yml.
    Field(&'a Field),
    /// A [`SYSTEM_ENTRIES`] name (without `system.`).
    System(&'static str),
}

impl Entry<'_> {
    /// The fully-qualified slot name.
    pub fn qualified_name(&self) -> String {
        match self {
            Entry::Field(f) => f.qualified_name(),
            Entry::System(e) => qualified_name(SYSTEM_NAMESPACE, e),
        }
    }
}

/// The answer to "may skill S read name N?".
#[derive(Debug, Clone, PartialEq)]
pub enum Read<'a> {
    /// Readable.
    Ok(Entry<'a>),
    /// The namespace is not `project`, `system` nor a skill id.
    UnknownNamespace {
        /// The part before the first `.`.
        namespace: String,
    },
    /// The namespace exists but has no such entry. `namespace` is `None`
    /// for a bare name (found neither in the active skill nor the project).
    Undeclared {
        /// The namespace looked in (`None` for a bare name).
        namespace: Option<String>,
        /// The entry looked for.
        entry: String,
    },
    /// A `schema.private` field of another skill.
    Private(&'a Field),
    /// Blocked by the active skill's `access.deny_read`; `rule` is the list
    /// item (its span is in the skill's memory.yml).
    Denied {
        /// The entry the name resolves to.
        entry: Entry<'a>,
        /// The `deny_read` item that blocks it.
        rule: &'a Spanned<String>,
    },
}

impl<'a> Read<'a> {
    /// Whether the answer is [`Read::Ok`].
    pub fn is_readable(&self) -> bool {
        matches!(self, Read::Ok(_))
    }
    /// The entry, when readable.
    pub fn entry(&self) -> Option<Entry<'a>> {
        match self {
            Read::Ok(e) => Some(*e),
            _ => None,
        }
    }
}

/// The answer to "may skill S write name N?" (`context.memory.set`).
#[derive(Debug, Clone, PartialEq)]
pub enum WriteTarget<'a> {
    /// A field of the writing skill or of the project.
    Field(&'a Field),
    /// `system` or `system.*`.
    Reserved,
    /// A name with a `.` (`project.x`, `<skill>.x`, `session.x.y`): `set`
    /// takes bare names only. Any dotted name lands here, so that a dotted
    /// entry name is never silently read as a cross-namespace write.
    Qualified {
        /// The part before the first `.`.
        namespace: String,
        /// The part after it.
        entry: String,
    },
    /// Listed in the skill's `access.deny_write`.
    Denied {
        /// The field the bare name resolves to.
        field: &'a Field,
        /// The `deny_write` item that blocks it.
        rule: &'a Spanned<String>,
    },
    /// Declared neither in the skill nor in the project.
    Undeclared,
}

/// The declared memory of a whole project.
#[derive(Debug, Clone, Default)]
pub struct MemoryModel {
    /// Project fields (namespace `project`), in file order.
    pub project: Vec<Field>,
    /// Every skill folder's memory by skill id (empty when the skill has no
    /// memory.yml).
    pub skills: BTreeMap<String, SkillMemory>,
}

impl MemoryModel {
    /// The memory of a skill; `None` when there is no such skill.
    pub fn skill(&self, id: &str) -> Option<&SkillMemory> {
        self.skills.get(id)
    }

    /// The memory of a skill; empty for a skill without memory.yml or an
    /// unknown id.
    pub fn skill_or_empty(&self, id: &str) -> &SkillMemory {
        self.skills.get(id).unwrap_or(&EMPTY_SKILL)
    }

    /// The project field `name`.
    pub fn project_field(&self, name: &str) -> Option<&Field> {
        self.project.iter().find(|f| f.name == name)
    }

    /// Whether `ns` is a namespace: `project`, `system` or a skill id.
    pub fn is_namespace(&self, ns: &str) -> bool {
        ns == PROJECT_NAMESPACE || ns == SYSTEM_NAMESPACE || self.skills.contains_key(ns)
    }

    /// Split a name the way the engine does (memory.md §2.3): qualified iff
    /// it contains a `.` and the part before the first `.` is a namespace;
    /// anything else (`address.city` with no skill `address`) is bare.
    pub fn split<'n>(&self, name: &'n str) -> Name<'n> {
        match name.split_once('.') {
            Some((namespace, entry)) if self.is_namespace(namespace) => {
                Name::Qualified { namespace, entry }
            }
            _ => Name::Bare(name),
        }
    }

    /// May `skill` read `name`, written the way tool code and deny lists
    /// write names (`context.memory.get(name)`)?
    ///
    /// - bare: the active skill's fields (private wins over public), then
    ///   the project's; a bare name that is found nowhere and contains a
    ///   `.` is reported as [`Read::UnknownNamespace`] (the likelier
    ///   mistake) rather than [`Read::Undeclared`];
    /// - qualified: see [`MemoryModel::read_qualified`].
    ///
    /// `skill` is the active skill; `None` is routing mode (no own fields,
    /// no deny list). In every case the active skill's `access.deny_read`
    /// is applied last.
    pub fn read(&self, skill: Option<&str>, name: &str) -> Read<'_> {
        match self.split(name) {
            Name::Qualified { namespace, entry } => self.read_qualified(skill, namespace, entry),
            Name::Bare(bare) => {
                let own = skill.map(|s| self.skill_or_empty(s));
                let found = own
                    .and_then(|m| m.field(bare))
                    .or_else(|| self.project_field(bare));
                match found {
                    Some(f) => self.deny_read(skill, Entry::Field(f)),
                    None => match bare.split_once('.') {
                        Some((ns, _)) => Read::UnknownNamespace {
                            namespace: ns.to_string(),
                        },
                        None => Read::Undeclared {
                            namespace: None,
                            entry: bare.to_string(),
                        },
                    },
                }
            }
        }
    }

    /// May `skill` read `<namespace>.<entry>` (conditions:
    /// `session.<namespace>.<entry>`)? The readable set (D7, the seeds):
    /// the active skill's own fields (public and private), every other
    /// skill's **public** fields, the project's fields and the registered
    /// `system.*` entries, minus the active skill's `access.deny_read`
    /// (bare or fully-qualified items). `skill = None` is routing mode.
    pub fn read_qualified(&self, skill: Option<&str>, namespace: &str, entry: &str) -> Read<'_> {
        let undeclared = || Read::Undeclared {
            namespace: Some(namespace.to_string()),
            entry: entry.to_string(),
        };
        let found = if namespace == PROJECT_NAMESPACE {
            match self.project_field(entry) {
                Some(f) => Entry::Field(f),
                None => return undeclared(),
            }
        } else if namespace == SYSTEM_NAMESPACE {
            match SYSTEM_ENTRIES.iter().find(|e| **e == entry) {
                Some(e) => Entry::System(e),
                None => return undeclared(),
            }
        } else if let Some(mem) = self.skills.get(namespace) {
            if skill == Some(namespace) {
                match mem.field(entry) {
                    Some(f) => Entry::Field(f),
                    None => return undeclared(),
                }
            } else {
                match (mem.public_field(entry), mem.field(entry)) {
                    (Some(f), _) => Entry::Field(f),
                    (None, Some(f)) => return Read::Private(f),
                    (None, None) => return undeclared(),
                }
            }
        } else {
            return Read::UnknownNamespace {
                namespace: namespace.to_string(),
            };
        };
        self.deny_read(skill, found)
    }

    fn deny_read<'a>(&'a self, skill: Option<&str>, entry: Entry<'a>) -> Read<'a> {
        let Some(skill) = skill else {
            return Read::Ok(entry);
        };
        let slot = entry.qualified_name();
        match self
            .skill_or_empty(skill)
            .deny_read
            .iter()
            .find(|r| self.rule_slot(skill, &r.value).as_deref() == Some(slot.as_str()))
        {
            Some(rule) => Read::Denied { entry, rule },
            None => Read::Ok(entry),
        }
    }

    /// The slot an `access.deny_*` item of `skill` refers to: a qualified
    /// item names its slot; a bare item resolves like a bare read (the
    /// skill's field, else the project's). `None` when it names nothing
    /// declared (a `memory.unknown_access_entry` finding).
    pub fn rule_slot(&self, skill: &str, rule: &str) -> Option<String> {
        match self.split(rule) {
            Name::Qualified { namespace, entry } => {
                let exists = match namespace {
                    PROJECT_NAMESPACE => self.project_field(entry).is_some(),
                    SYSTEM_NAMESPACE => SYSTEM_ENTRIES.contains(&entry),
                    skill_id => self
                        .skills
                        .get(skill_id)
                        .is_some_and(|m| m.field(entry).is_some()),
                };
                exists.then(|| qualified_name(namespace, entry))
            }
            Name::Bare(bare) => self
                .skill_or_empty(skill)
                .field(bare)
                .or_else(|| self.project_field(bare))
                .map(Field::qualified_name),
        }
    }

    /// Every fully-qualified name `skill` may read (`None`: routing mode),
    /// sorted: for "did you mean" and for the runtime's prompt memory.
    pub fn readable_names(&self, skill: Option<&str>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (id, mem) in &self.skills {
            for name in mem.names() {
                out.push(qualified_name(id, name));
            }
        }
        out.extend(self.project.iter().map(Field::qualified_name));
        out.extend(
            SYSTEM_ENTRIES
                .iter()
                .map(|e| qualified_name(SYSTEM_NAMESPACE, e)),
        );
        out.retain(|n| match self.split(n) {
            Name::Qualified { namespace, entry } => {
                self.read_qualified(skill, namespace, entry).is_readable()
            }
            Name::Bare(_) => false,
        });
        out.sort();
        out.dedup();
        out
    }

    /// Where a `context.memory.set(name, ...)` made while `skill` is active
    /// lands (D7): bare names only; the skill's own fields first, then the
    /// project's; `system.*` is reserved; the skill's `access.deny_write`
    /// (bare or fully-qualified items) is applied last. `skill = None` is
    /// routing mode: no own fields and no deny list, so only project fields
    /// are writable.
    ///
    /// Whether an `immutable` field already holds a value is a run-time
    /// question this model cannot answer; the runtime asks it after a
    /// [`WriteTarget::Field`] answer (`crate::runtime::memory`).
    pub fn write_target(&self, skill: Option<&str>, name: &str) -> WriteTarget<'_> {
        if name == SYSTEM_NAMESPACE || name.starts_with("system.") {
            return WriteTarget::Reserved;
        }
        if let Some((ns, entry)) = name.split_once('.') {
            return WriteTarget::Qualified {
                namespace: ns.to_string(),
                entry: entry.to_string(),
            };
        }
        let own = skill.map(|s| self.skill_or_empty(s));
        let Some(field) = own
            .and_then(|m| m.field(name))
            .or_else(|| self.project_field(name))
        else {
            return WriteTarget::Undeclared;
        };
        let (Some(skill), Some(mem)) = (skill, own) else {
            return WriteTarget::Field(field);
        };
        let slot = field.qualified_name();
        match mem
            .deny_write
            .iter()
            .find(|r| self.rule_slot(skill, &r.value).as_deref() == Some(slot.as_str()))
        {
            Some(rule) => WriteTarget::Denied { field, rule },
            None => WriteTarget::Field(field),
        }
    }

    /// The fields the model may write with `set_fields` / `correct` while
    /// `skill` is active (`None`: routing mode): every bare name of the
    /// skill (declaration order), then of the project, whose
    /// [`MemoryModel::write_target`] is a field with `llm_settable: true`.
    /// So a skill field shadows a project field of the same name (the bare
    /// name writes the skill's), a private declaration wins over a public
    /// one, and a `deny_write`-listed field is not offered. Each field once.
    pub fn settable(&self, skill: Option<&str>) -> Vec<&Field> {
        let own = skill.map(|s| self.skill_or_empty(s));
        let names = own
            .into_iter()
            .flat_map(SkillMemory::names)
            .chain(self.project.iter().map(|f| f.name.as_str()));
        let mut out: Vec<&Field> = Vec::new();
        for name in names {
            if let WriteTarget::Field(f) = self.write_target(skill, name) {
                if f.llm_settable && !out.iter().any(|o| std::ptr::eq(*o, f)) {
                    out.push(f);
                }
            }
        }
        out
    }

    /// Every bare name `skill` could write (its fields, then the
    /// project's), for suggestions.
    pub fn writable_names<'a>(&'a self, skill: &str) -> impl Iterator<Item = &'a str> {
        self.skill_or_empty(skill)
            .fields
            .iter()
            .chain(self.project.iter())
            .map(|f| f.name.as_str())
    }
}

#[cfg(test)]
mod tests;
