//! Memory at run time: values of one conversation, and a [`Scope`] that
//! reads and writes them through the check pipeline's [`MemoryModel`]
//! (decision D7 and the seeds).
//!
//! The rules themselves (how a name splits into bare or qualified, which
//! slot it resolves to, who may read it, where a write lands and why it is
//! refused) exist once, in [`crate::memory`]; the engine builds the model
//! from the package once ([`MemoryModel::from_manifest`]) and this module
//! only applies its answers to stored values. The one rule added here needs
//! the values and so cannot live in the model: an `immutable` field that
//! already holds a value refuses another write (write-once per session).
//!
//! Values are stored by fully qualified key (`<skill>.<entry>`,
//! `project.<entry>`); an unset entry has no key (null is never stored).

use crate::memory::{Field, MemoryModel, WriteTarget, PROJECT_NAMESPACE};
use serde_json::Value;
use std::collections::BTreeMap;

/// The memory values of one conversation, by fully qualified key.
pub type Values = BTreeMap<String, Value>;

/// A view of memory from where a read or write happens: the model and the
/// active skill (`None` in routing mode, when no skill is active).
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    /// The project's declared memory (built once per engine).
    pub model: &'a MemoryModel,
    /// The active skill.
    pub skill: Option<&'a str>,
}

impl<'a> Scope<'a> {
    /// The qualified key a read of `name` (bare or qualified, as tool code
    /// writes it) refers to, if readable ([`MemoryModel::read`]).
    pub fn readable_key(&self, name: &str) -> Option<String> {
        self.model
            .read(self.skill, name)
            .entry()
            .map(|e| e.qualified_name())
    }

    /// `context.memory.get(name)`: the value, or null when the name is not
    /// readable from this scope or holds no value.
    pub fn get(&self, values: &Values, name: &str) -> Value {
        self.readable_key(name)
            .and_then(|k| values.get(&k).cloned())
            .unwrap_or(Value::Null)
    }

    /// A condition's `session.<namespace>.<entry>`: the value, or null when
    /// the entry is not readable from this scope or holds no value
    /// ([`MemoryModel::read_qualified`]; the namespace is given apart, so a
    /// dotted entry never re-splits).
    pub fn get_qualified(&self, values: &Values, namespace: &str, entry: &str) -> Value {
        self.model
            .read_qualified(self.skill, namespace, entry)
            .entry()
            .and_then(|e| values.get(&e.qualified_name()).cloned())
            .unwrap_or(Value::Null)
    }

    /// Resolve a write of `name` to its qualified key and field, or the
    /// `MemoryWriteError` text: [`MemoryModel::write_target`], then the
    /// run-time rule that an `immutable` field holding a value is not
    /// written again (not even cleared). The texts reach the LLM (a
    /// `set_fields` line) and tool code, so each names the entry and says
    /// what would work.
    pub fn writable_key(&self, values: &Values, name: &str) -> Result<(String, &'a Field), String> {
        let declared_in = match self.skill {
            Some(s) => format!("skill `{s}`'s or the project's memory.yml"),
            None => "the project's memory.yml (no skill is active)".to_string(),
        };
        let field = match self.model.write_target(self.skill, name) {
            WriteTarget::Field(f) => f,
            WriteTarget::Reserved => {
                return Err(format!(
                    "`{name}` is in the reserved `system` namespace; only the engine writes it"
                ))
            }
            WriteTarget::Qualified { namespace, entry } => {
                let ns = namespace.as_str();
                return Err(if ns == PROJECT_NAMESPACE || Some(ns) == self.skill {
                    format!("`{name}` is a qualified name; `memory.set` takes bare names: write `{entry}`")
                } else if self.model.is_namespace(ns) {
                    format!("`{name}` is a qualified name in another skill's memory; a tool writes only its own skill's and the project's fields, by bare name")
                } else if ns == "session" {
                    format!("`{name}` is a qualified name in the `session.` form of conditions; `memory.set` takes bare names")
                } else {
                    format!("`{name}` is not a bare name (it contains a `.`); `memory.set` takes the bare name of a field declared in {declared_in}")
                });
            }
            WriteTarget::Denied { field, rule } => {
                return Err(format!(
                    "skill `{}` may not write `{}`: its memory.yml lists `{}` under `access.deny_write`",
                    self.skill.unwrap_or_default(),
                    field.qualified_name(),
                    rule.value
                ))
            }
            WriteTarget::Undeclared => {
                return Err(format!("`{name}` is not declared in {declared_in}"))
            }
        };
        let key = field.qualified_name();
        if field.immutable && values.contains_key(&key) {
            return Err(format!(
                "`{key}` is immutable and already set; it can be written once per session"
            ));
        }
        Ok((key, field))
    }

    /// `context.memory.set(name, value)`: writes (null clears) and returns
    /// the qualified key, or the text of the `MemoryWriteError`.
    pub fn set(&self, values: &mut Values, name: &str, value: Value) -> Result<String, String> {
        let (key, _) = self.writable_key(values, name)?;
        if value.is_null() {
            values.remove(&key);
        } else {
            values.insert(key.clone(), value);
        }
        Ok(key)
    }

    /// Every stored value this scope may read, by qualified key (for the
    /// prompt's memory lines): the keys the model's readable set holds.
    pub fn readable_values(&self, values: &Values) -> Vec<(String, Value)> {
        values
            .iter()
            .filter(|(k, _)| self.readable_key(k).as_deref() == Some(k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// The fields `set_fields` may write, by bare name
    /// ([`MemoryModel::settable`]): the active skill's `llm_settable`
    /// fields, then the project's not shadowed by a skill field.
    pub fn settable(&self) -> Vec<&'a Field> {
        self.model.settable(self.skill)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{self, Memory, SkillMemory};
    use serde_json::json;

    fn field(name: &str, vis: &str) -> manifest::Field {
        manifest::Field {
            name: name.into(),
            visibility: vis.into(),
            type_name: Some("text".into()),
            description: None,
            llm_settable: true,
            immutable: false,
            initial_value: None,
        }
    }

    /// Skill `card` (public `reason`, private `note`, private immutable
    /// `order_id`, a dotted private entry `address.city`; denies reading
    /// `other.code` and writing `project.locked`), skill `other` (public
    /// `code`, `label` and `both`, private `pin` and `both`), project
    /// `customer` and `locked`.
    fn schema() -> Memory {
        let mut skills = BTreeMap::new();
        skills.insert(
            "card".into(),
            SkillMemory {
                fields: vec![
                    field("reason", "public"),
                    field("note", "private"),
                    manifest::Field {
                        immutable: true,
                        ..field("order_id", "private")
                    },
                    field("address.city", "private"),
                ],
                deny_read: vec!["other.code".into()],
                deny_write: vec!["project.locked".into()],
            },
        );
        skills.insert(
            "other".into(),
            SkillMemory {
                fields: vec![
                    field("code", "public"),
                    field("pin", "private"),
                    field("label", "public"),
                    field("both", "public"),
                    field("both", "private"),
                ],
                ..Default::default()
            },
        );
        Memory {
            project: vec![field("customer", "project"), field("locked", "project")],
            skills,
        }
    }

    fn model() -> MemoryModel {
        MemoryModel::from_manifest(&schema())
    }

    fn scope<'a>(model: &'a MemoryModel, skill: Option<&'a str>) -> Scope<'a> {
        Scope { model, skill }
    }

    #[test]
    fn reads_follow_the_seeds() {
        let m = model();
        let scope = scope(&m, Some("card"));
        let mut v = Values::new();
        v.insert("card.note".into(), json!("n"));
        v.insert("project.customer".into(), json!("c"));
        v.insert("other.pin".into(), json!("1234"));
        v.insert("other.label".into(), json!("gold"));
        v.insert("other.code".into(), json!("x"));
        assert_eq!(scope.get(&v, "note"), json!("n"));
        assert_eq!(scope.get(&v, "customer"), json!("c"));
        assert_eq!(scope.get(&v, "card.note"), json!("n"));
        assert_eq!(scope.get(&v, "project.customer"), json!("c"));
        assert_eq!(scope.get(&v, "other.label"), json!("gold"));
        assert_eq!(
            scope.get(&v, "label"),
            Value::Null,
            "another skill's field by its bare name"
        );
        assert_eq!(
            scope.get(&v, "other.pin"),
            Value::Null,
            "private of another skill"
        );
        assert_eq!(scope.get(&v, "other.code"), Value::Null, "deny_read");
        assert_eq!(scope.get(&v, "nope"), Value::Null);
        assert_eq!(scope.readable_key("other.pin"), None);
        assert_eq!(scope.readable_key("note").as_deref(), Some("card.note"));
        // Another skill sees `other.code`, and not `card.note`.
        let other = Scope {
            model: &m,
            skill: Some("other"),
        };
        assert_eq!(other.get(&v, "other.code"), json!("x"));
        assert_eq!(other.get(&v, "card.note"), Value::Null);
        assert_eq!(other.get(&v, "pin"), json!("1234"));
    }

    #[test]
    fn routing_mode_reads_public_and_project_and_writes_project_only() {
        let m = model();
        let scope = scope(&m, None);
        let mut v = Values::new();
        v.insert("card.note".into(), json!("n"));
        v.insert("card.reason".into(), json!("lost"));
        v.insert("project.customer".into(), json!("c"));
        assert_eq!(scope.get(&v, "customer"), json!("c"));
        assert_eq!(scope.get(&v, "card.reason"), json!("lost"));
        assert_eq!(scope.get(&v, "card.note"), Value::Null, "private");
        assert_eq!(scope.get(&v, "reason"), Value::Null, "no active skill");
        assert_eq!(
            scope.readable_values(&v),
            vec![
                ("card.reason".to_string(), json!("lost")),
                ("project.customer".to_string(), json!("c")),
            ]
        );
        assert_eq!(
            scope.set(&mut v, "customer", json!("d")),
            Ok("project.customer".into())
        );
        let err = scope.set(&mut v, "reason", json!("x")).unwrap_err();
        assert!(err.contains("`reason` is not declared"), "{err}");
        assert!(err.contains("no skill is active"), "{err}");
        // No deny list applies without an active skill.
        assert_eq!(
            scope.set(&mut v, "locked", json!(true)),
            Ok("project.locked".into())
        );
    }

    /// `address.city` is a bare name unless `address` is a namespace (the
    /// check model's split, memory.md §2.3); the old run-time copy read
    /// every dotted name as qualified.
    #[test]
    fn a_dotted_name_is_bare_unless_its_head_is_a_namespace() {
        let m = model();
        let scope = scope(&m, Some("card"));
        let mut v = Values::new();
        v.insert("card.address.city".into(), json!("Berlin"));
        assert_eq!(scope.get(&v, "address.city"), json!("Berlin"));
        assert_eq!(scope.get(&v, "card.address.city"), json!("Berlin"));
        assert_eq!(
            scope.readable_key("address.city").as_deref(),
            Some("card.address.city")
        );
        assert_eq!(scope.get(&v, "nowhere.city"), Value::Null);
        // As a condition's `session.address.city`: no namespace `address`.
        assert_eq!(scope.get_qualified(&v, "address", "city"), Value::Null);
        assert_eq!(
            scope.get_qualified(&v, "card", "address.city"),
            json!("Berlin")
        );
        // `set` takes bare names only: a dotted name is never written.
        let err = scope
            .set(&mut v, "address.city", json!("Paris"))
            .unwrap_err();
        assert!(err.contains("`address.city` is not a bare name"), "{err}");
        assert_eq!(v["card.address.city"], json!("Berlin"));
    }

    /// `system.*` reads are limited to the engine's registry, like `check`.
    #[test]
    fn only_registered_system_entries_are_readable() {
        let m = model();
        let mut v = Values::new();
        v.insert(
            "system.pending_tool_confirmation".into(),
            json!({"tool": "t"}),
        );
        v.insert("system.language".into(), json!("de"));
        for skill in [Some("card"), None] {
            let scope = scope(&m, skill);
            assert_eq!(
                scope.get(&v, "system.pending_tool_confirmation"),
                json!({"tool": "t"})
            );
            assert_eq!(scope.get(&v, "system.language"), Value::Null);
            assert_eq!(scope.get_qualified(&v, "system", "language"), Value::Null);
            assert_eq!(scope.readable_key("system.language"), None);
        }
    }

    /// A bare deny item names the slot the bare name resolves to (the
    /// skill's own field shadows the project's); a qualified item names its
    /// slot; both apply to bare and qualified reads and writes.
    #[test]
    fn deny_lists_resolve_bare_and_qualified_items_like_check() {
        let mut memory = schema();
        let card = memory.skills.get_mut("card").expect("card");
        card.fields.push(field("customer", "private"));
        card.deny_read = vec!["customer".into(), "other.label".into()];
        card.deny_write = vec!["note".into(), "project.locked".into()];
        let m = MemoryModel::from_manifest(&memory);
        let scope = scope(&m, Some("card"));
        let mut v = Values::new();
        v.insert("card.customer".into(), json!("own"));
        v.insert("project.customer".into(), json!("shared"));
        v.insert("other.label".into(), json!("gold"));
        // `customer` (bare item) is the skill's own field, not the project's.
        assert_eq!(scope.get(&v, "customer"), Value::Null);
        assert_eq!(scope.get(&v, "card.customer"), Value::Null);
        assert_eq!(scope.get(&v, "project.customer"), json!("shared"));
        assert_eq!(scope.get(&v, "other.label"), Value::Null);
        assert_eq!(
            scope.readable_values(&v),
            vec![("project.customer".to_string(), json!("shared"))]
        );
        let err = scope.set(&mut v, "note", json!("x")).unwrap_err();
        assert!(err.contains("may not write `card.note`"), "{err}");
        assert!(
            err.contains("lists `note` under `access.deny_write`"),
            "{err}"
        );
        let err = scope.set(&mut v, "locked", json!(true)).unwrap_err();
        assert!(err.contains("`project.locked`"), "{err}");
        assert!(!v.contains_key("card.note") && !v.contains_key("project.locked"));
    }

    /// An entry declared both public and private: its own skill uses the
    /// private declaration, other skills still read the public one (same
    /// slot), as memory.md §1.5 says.
    #[test]
    fn public_and_private_of_one_name_share_a_slot() {
        let m = model();
        let mut v = Values::new();
        v.insert("other.both".into(), json!(1));
        assert_eq!(scope(&m, Some("card")).get(&v, "other.both"), json!(1));
        assert_eq!(scope(&m, Some("other")).get(&v, "both"), json!(1));
    }

    #[test]
    fn writes_raise_for_each_reason() {
        let m = model();
        let scope = scope(&m, Some("card"));
        let mut v = Values::new();
        assert_eq!(
            scope.set(&mut v, "reason", json!("lost")),
            Ok("card.reason".into())
        );
        assert_eq!(
            scope.set(&mut v, "customer", json!("c")),
            Ok("project.customer".into())
        );
        let err = scope.set(&mut v, "undeclared", json!(1)).unwrap_err();
        assert!(
            err.contains("`undeclared` is not declared in skill `card`"),
            "{err}"
        );
        let err = scope.set(&mut v, "locked", json!(true)).unwrap_err();
        assert!(
            err.contains("deny_write") && err.contains("project.locked"),
            "{err}"
        );
        for name in ["system.x", "system", "system.pending_tool_confirmation"] {
            let err = scope.set(&mut v, name, json!(1)).unwrap_err();
            assert!(err.contains("reserved `system` namespace"), "{name}: {err}");
            assert!(err.contains(&format!("`{name}`")), "{err}");
        }
        let err = scope.set(&mut v, "other.label", json!(1)).unwrap_err();
        assert!(
            err.contains("qualified") && err.contains("another skill"),
            "{err}"
        );
        let err = scope.set(&mut v, "card.reason", json!(1)).unwrap_err();
        assert!(
            err.contains("qualified") && err.contains("write `reason`"),
            "{err}"
        );
        let err = scope.set(&mut v, "project.customer", json!(1)).unwrap_err();
        assert!(err.contains("write `customer`"), "{err}");
        let err = scope
            .set(&mut v, "session.card.reason", json!(1))
            .unwrap_err();
        assert!(err.contains("`session.` form"), "{err}");
        assert_eq!(v["card.reason"], json!("lost"));
        assert_eq!(v["project.customer"], json!("c"));
        assert!(scope.set(&mut v, "reason", Value::Null).is_ok());
        assert!(!v.contains_key("card.reason"), "null clears");
    }

    #[test]
    fn an_immutable_field_is_written_once() {
        let m = model();
        let scope = scope(&m, Some("card"));
        let mut v = Values::new();
        // Unset: clearing and writing are fine.
        assert!(scope.set(&mut v, "order_id", Value::Null).is_ok());
        assert_eq!(
            scope.set(&mut v, "order_id", json!("o1")),
            Ok("card.order_id".into())
        );
        for again in [json!("o2"), json!("o1"), Value::Null] {
            let err = scope.set(&mut v, "order_id", again).unwrap_err();
            assert!(
                err.contains("`card.order_id` is immutable and already set"),
                "{err}"
            );
        }
        assert_eq!(v["card.order_id"], json!("o1"));
    }

    #[test]
    fn settable_lists_the_skill_then_the_project_with_shadowing() {
        let mut memory = schema();
        let card = memory.skills.get_mut("card").expect("card");
        // A non-settable skill field shadows the settable project field.
        card.fields.push(manifest::Field {
            llm_settable: false,
            ..field("customer", "private")
        });
        memory.project.push(field("channel", "project"));
        let m = MemoryModel::from_manifest(&memory);
        let names = |skill| -> Vec<String> {
            scope(&m, skill)
                .settable()
                .iter()
                .map(|f| f.qualified_name())
                .collect()
        };
        assert_eq!(
            names(Some("card")),
            [
                "card.reason",
                "card.note",
                "card.order_id",
                "project.channel"
            ],
            "`locked` is deny_write-listed, `address.city` is not a bare name"
        );
        assert_eq!(
            names(None),
            ["project.customer", "project.locked", "project.channel"]
        );
        assert_eq!(
            names(Some("other")).first().map(String::as_str),
            Some("other.code")
        );
    }

    #[test]
    fn the_packaged_model_keeps_what_the_rules_read() {
        let mut memory = schema();
        memory.project.push(manifest::Field {
            type_name: Some("str".into()),
            initial_value: Some(json!({"a": [1, 2.5, "x", null, true]})),
            ..field("odd", "weird")
        });
        memory
            .skills
            .get_mut("other")
            .expect("other")
            .fields
            .push(manifest::Field {
                type_name: None,
                initial_value: Some(Value::Null),
                ..field("mystery", "unknown-visibility")
            });
        let m = MemoryModel::from_manifest(&memory);
        let odd = m.project_field("odd").expect("odd");
        assert_eq!(odd.visibility, crate::memory::Visibility::Project);
        assert_eq!(odd.namespace, "project");
        assert_eq!(odd.ty, crate::memory::FieldType::Unknown);
        assert_eq!(odd.file, crate::source::FileId::NONE);
        assert_eq!(
            odd.initial_value.as_ref().map(crate::yaml::Node::to_json),
            Some(json!({"a": [1, 2.5, "x", null, true]}))
        );
        let mystery = m.skill_or_empty("other").field("mystery").expect("mystery");
        assert_eq!(
            mystery.visibility,
            crate::memory::Visibility::Private,
            "fail closed"
        );
        assert_eq!(mystery.ty, crate::memory::FieldType::Any);
        assert_eq!(mystery.initial_value, None);
        assert!(m.skill_or_empty("card").deny_write[0].value == "project.locked");
        assert!(m.is_namespace("card") && m.is_namespace("other"));
    }
}
