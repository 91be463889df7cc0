//! The memory model rebuilt from a package's `manifest.json`, so that the
//! runtime asks the very [`MemoryModel`] that `maestro check` asks (the D7
//! rules exist once, in this module's parent).
//!
//! `train` writes the manifest's memory from the check pipeline's model
//! (`crate::train`); this is the way back. What the manifest does not carry
//! gets a neutral value: no source location ([`FileId::NONE`], empty
//! spans), no attribute mapping, no `enum_values`, `seed` / `pii` false.
//! Nothing at run time reads those; the rules read names, namespaces,
//! visibility, `llm_settable`, `immutable` and the deny lists, which the
//! manifest keeps.

use super::{Field, FieldType, MemoryModel, SkillMemory, Visibility, PROJECT_NAMESPACE};
use crate::manifest;
use crate::skill_md::Spanned;
use crate::source::{FileId, Span};
use crate::yaml::{Node, Value};

impl MemoryModel {
    /// The model of a packaged project's memory (`manifest.memory`), for the
    /// runtime. Never fails: a manifest is written by `train`, and what a
    /// hand-edited one could get wrong is read the safe way:
    ///
    /// - a skill field whose `visibility` is neither `public` nor `private`
    ///   is taken as `private` (readable by its own skill only);
    /// - every field of `project` is a project field, whatever its
    ///   `visibility` string says;
    /// - a `type` string that is not canonical is [`FieldType::Unknown`]
    ///   (behaves as `any`, like in `check`); no `type` is `any`;
    /// - a null `initial_value` is no initial value.
    pub fn from_manifest(memory: &manifest::Memory) -> MemoryModel {
        MemoryModel {
            project: memory
                .project
                .iter()
                .map(|f| packaged_field(f, PROJECT_NAMESPACE, Visibility::Project))
                .collect(),
            skills: memory
                .skills
                .iter()
                .map(|(id, m)| (id.clone(), packaged_skill(id, m)))
                .collect(),
        }
    }
}

impl From<&manifest::Memory> for MemoryModel {
    fn from(memory: &manifest::Memory) -> MemoryModel {
        MemoryModel::from_manifest(memory)
    }
}

fn packaged_skill(id: &str, m: &manifest::SkillMemory) -> SkillMemory {
    let rules = |items: &[String]| {
        items
            .iter()
            .map(|value| Spanned {
                value: value.clone(),
                span: Span::default(),
            })
            .collect()
    };
    SkillMemory {
        file: None,
        fields: m
            .fields
            .iter()
            .map(|f| {
                let visibility = match f.visibility.as_str() {
                    "public" => Visibility::Public,
                    _ => Visibility::Private,
                };
                packaged_field(f, id, visibility)
            })
            .collect(),
        deny_read: rules(&m.deny_read),
        deny_write: rules(&m.deny_write),
    }
}

fn packaged_field(f: &manifest::Field, namespace: &str, visibility: Visibility) -> Field {
    let ty = match f.type_name.as_deref() {
        None => FieldType::Any,
        Some(name) => FieldType::parse(name).unwrap_or(FieldType::Unknown),
    };
    Field {
        name: f.name.clone(),
        namespace: namespace.to_string(),
        span: Span::default(),
        file: FileId::NONE,
        visibility,
        ty,
        type_name: f.type_name.clone(),
        description: f.description.clone(),
        llm_settable: f.llm_settable,
        immutable: f.immutable,
        initial_value: f
            .initial_value
            .as_ref()
            .map(Node::from_json)
            .filter(|n| !matches!(n.value, Value::Null)),
        enum_values: Vec::new(),
        seed: false,
        pii: false,
        attrs: None,
    }
}
