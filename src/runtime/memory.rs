//! Memory at run time, over the manifest's memory schema (decision D7 and
//! the seeds): reads by bare or qualified name with the seeds' visibility,
//! writes by bare name only, and `MemoryWriteError` reasons for undeclared,
//! `deny_write`, immutable-already-set and `system.*` targets.
//!
//! Values are stored by fully qualified key (`<skill>.<entry>`,
//! `project.<entry>`); an unset entry has no key (null is never stored).

use crate::manifest::{Field, Memory};
use serde_json::Value;
use std::collections::BTreeMap;

/// The memory values of one conversation.
pub type Values = BTreeMap<String, Value>;

/// The scope a read or write happens in: the active skill (None when no
/// skill is active).
pub struct Scope<'a> {
    pub schema: &'a Memory,
    pub skill: Option<&'a str>,
}

impl<'a> Scope<'a> {
    fn own(&self, entry: &str) -> Option<&'a Field> {
        let skill = self.skill?;
        let fields = &self.schema.skills.get(skill)?.fields;
        // A private declaration wins over a public one of the same name.
        fields
            .iter()
            .rev()
            .find(|f| f.name == entry && f.visibility == "private")
            .or_else(|| fields.iter().find(|f| f.name == entry))
    }

    fn project(&self, entry: &str) -> Option<&'a Field> {
        self.schema.project.iter().find(|f| f.name == entry)
    }

    fn denied(
        &self,
        list: fn(&crate::manifest::SkillMemory) -> &Vec<String>,
        key: &str,
        bare: &str,
    ) -> bool {
        let Some(mem) = self.skill.and_then(|s| self.schema.skills.get(s)) else {
            return false;
        };
        list(mem).iter().any(|d| d == key || d == bare)
    }

    /// The qualified key a read of `name` refers to, if readable.
    pub fn readable_key(&self, name: &str) -> Option<String> {
        let key = match name.split_once('.') {
            None => {
                if self.own(name).is_some() {
                    format!("{}.{name}", self.skill?)
                } else if self.project(name).is_some() {
                    format!("project.{name}")
                } else {
                    return None;
                }
            }
            Some((ns, entry)) => {
                let ok = match ns {
                    "project" => self.project(entry).is_some(),
                    "system" => true,
                    _ if Some(ns) == self.skill => self.own(entry).is_some(),
                    _ => self.schema.skills.get(ns).is_some_and(|m| {
                        m.fields
                            .iter()
                            .any(|f| f.name == entry && f.visibility == "public")
                            && !m
                                .fields
                                .iter()
                                .any(|f| f.name == entry && f.visibility == "private")
                    }),
                };
                if !ok {
                    return None;
                }
                name.to_string()
            }
        };
        let bare = key.split_once('.').map_or(key.as_str(), |(_, e)| e);
        let own_or_project = key.starts_with("project.")
            || self
                .skill
                .is_some_and(|s| key.starts_with(&format!("{s}.")));
        if self.denied(
            |m| &m.deny_read,
            &key,
            if own_or_project { bare } else { &key },
        ) {
            return None;
        }
        Some(key)
    }

    /// `context.memory.get(name)`: the value, or null.
    pub fn get(&self, values: &Values, name: &str) -> Value {
        self.readable_key(name)
            .and_then(|k| values.get(&k).cloned())
            .unwrap_or(Value::Null)
    }

    /// Resolve a write of `name` to its qualified key, or the
    /// `MemoryWriteError` reason.
    pub fn writable_key(&self, values: &Values, name: &str) -> Result<(String, &'a Field), String> {
        if name == "system" || name.starts_with("system.") {
            return Err(format!("`{name}` is in the reserved `system` namespace"));
        }
        if name.contains('.') {
            return Err(format!(
                "`{name}` is a qualified name; `memory.set` takes the bare name of a field of the active skill or the project"
            ));
        }
        let (key, field) = match (self.own(name), self.project(name)) {
            (Some(f), _) => (format!("{}.{name}", self.skill.unwrap_or_default()), f),
            (None, Some(f)) => (format!("project.{name}"), f),
            (None, None) => {
                return Err(format!(
                    "`{name}` is not declared in the active skill's or the project's memory.yml"
                ))
            }
        };
        if self.denied(|m| &m.deny_write, &key, name) {
            return Err(format!(
                "the active skill may not write `{key}` (access.deny_write)"
            ));
        }
        if field.immutable && values.contains_key(&key) {
            return Err(format!("`{key}` is immutable and already set"));
        }
        Ok((key, field))
    }

    /// `context.memory.set(name, value)`: writes (null clears) or returns
    /// the reason of the `MemoryWriteError`.
    pub fn set(&self, values: &mut Values, name: &str, value: Value) -> Result<String, String> {
        let (key, _) = self.writable_key(values, name)?;
        if value.is_null() {
            values.remove(&key);
        } else {
            values.insert(key.clone(), value);
        }
        Ok(key)
    }

    /// Every value the scope may read, by qualified key (for the prompt).
    pub fn readable_values(&self, values: &Values) -> Vec<(String, Value)> {
        values
            .iter()
            .filter(|(k, _)| self.readable_key(k).as_deref() == Some(k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// The fields `set_fields` may write: the active skill's and the
    /// project's `llm_settable` fields, by bare name.
    pub fn settable(&self) -> Vec<&'a Field> {
        let own = self
            .skill
            .and_then(|s| self.schema.skills.get(s))
            .map(|m| {
                m.fields
                    .iter()
                    .filter(|f| f.llm_settable)
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let mut out = own;
        for f in self.schema.project.iter().filter(|f| f.llm_settable) {
            if !out.iter().any(|o| o.name == f.name) {
                out.push(f);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::SkillMemory;
    use serde_json::json;

    fn field(name: &str, vis: &str) -> Field {
        Field {
            name: name.into(),
            visibility: vis.into(),
            type_name: Some("text".into()),
            description: None,
            llm_settable: true,
            immutable: false,
            initial_value: None,
        }
    }

    fn schema() -> Memory {
        let mut skills = BTreeMap::new();
        skills.insert(
            "card".into(),
            SkillMemory {
                fields: vec![field("reason", "public"), field("note", "private"), {
                    let mut f = field("order_id", "private");
                    f.immutable = true;
                    f
                }],
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
                ],
                ..Default::default()
            },
        );
        Memory {
            project: vec![field("customer", "project"), field("locked", "project")],
            skills,
        }
    }

    #[test]
    fn reads_follow_the_seeds() {
        let s = schema();
        let scope = Scope {
            schema: &s,
            skill: Some("card"),
        };
        let mut v = Values::new();
        v.insert("card.note".into(), json!("n"));
        v.insert("project.customer".into(), json!("c"));
        v.insert("other.pin".into(), json!("1234"));
        v.insert("other.label".into(), json!("gold"));
        v.insert("other.code".into(), json!("x"));
        assert_eq!(scope.get(&v, "note"), json!("n"));
        assert_eq!(scope.get(&v, "customer"), json!("c"));
        assert_eq!(scope.get(&v, "card.note"), json!("n"));
        assert_eq!(scope.get(&v, "other.label"), json!("gold"));
        assert_eq!(
            scope.get(&v, "other.pin"),
            Value::Null,
            "private of another skill"
        );
        assert_eq!(scope.get(&v, "other.code"), Value::Null, "deny_read");
        assert_eq!(scope.get(&v, "nope"), Value::Null);
    }

    #[test]
    fn writes_raise_for_each_reason() {
        let s = schema();
        let scope = Scope {
            schema: &s,
            skill: Some("card"),
        };
        let mut v = Values::new();
        assert_eq!(
            scope.set(&mut v, "reason", json!("lost")),
            Ok("card.reason".into())
        );
        assert_eq!(
            scope.set(&mut v, "customer", json!("c")),
            Ok("project.customer".into())
        );
        assert!(scope
            .set(&mut v, "undeclared", json!(1))
            .unwrap_err()
            .contains("not declared"));
        assert!(scope
            .set(&mut v, "locked", json!(true))
            .unwrap_err()
            .contains("deny_write"));
        assert!(scope
            .set(&mut v, "system.x", json!(1))
            .unwrap_err()
            .contains("reserved"));
        assert!(scope
            .set(&mut v, "other.label", json!(1))
            .unwrap_err()
            .contains("qualified"));
        assert!(scope.set(&mut v, "order_id", json!("o1")).is_ok());
        assert!(scope
            .set(&mut v, "order_id", json!("o2"))
            .unwrap_err()
            .contains("immutable"));
        assert_eq!(v["card.order_id"], json!("o1"));
        assert!(scope.set(&mut v, "reason", Value::Null).is_ok());
        assert!(!v.contains_key("card.reason"));
    }
}
