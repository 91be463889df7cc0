//! Declared memory: skill `memory.yml` (`schema.public` / `schema.private`,
//! `access.deny_read` / `access.deny_write`) and the flat project
//! `memory.yml` (namespace `project`).
//!
//! This module reads declarations and answers "may skill S write name N?"
//! ([`MemoryModel::write_target`]); the full field validation belongs to the
//! memory checks.

use crate::diagnostic::Finding;
use crate::skill_md::Spanned;
use crate::source::{FileId, Span};
use crate::yaml::{self, Node, Value};

/// Reserved namespace that no project may write.
pub const SYSTEM_NAMESPACE: &str = "system";
/// Namespace of the project-root `memory.yml`.
pub const PROJECT_NAMESPACE: &str = "project";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    Public,
    Private,
    /// A field of the project `memory.yml`.
    Project,
}

/// One declared memory field.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    /// Span of the field's key.
    pub span: Span,
    pub file: FileId,
    pub visibility: Visibility,
    pub llm_settable: bool,
    pub immutable: bool,
    pub type_name: Option<String>,
    pub description: Option<String>,
    /// The whole attribute mapping, for later checks.
    pub attrs: Option<Node>,
}

/// A skill's `memory.yml`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillMemory {
    pub fields: Vec<Field>,
    pub deny_read: Vec<Spanned<String>>,
    pub deny_write: Vec<Spanned<String>>,
}

impl SkillMemory {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Read a skill `memory.yml`.
pub fn parse_skill(file: FileId, text: &str) -> (SkillMemory, Vec<Finding>) {
    let parsed = yaml::parse(text);
    let findings = parsed
        .issues
        .iter()
        .map(|i| crate::parse::yaml_issue(file, i, 0))
        .collect();
    let mut mem = SkillMemory::default();
    let Some(root) = parsed.root else {
        return (mem, findings);
    };
    if let Some(schema) = root.get("schema") {
        for (section, vis) in [
            ("public", Visibility::Public),
            ("private", Visibility::Private),
        ] {
            if let Some(map) = schema.get(section) {
                read_fields(file, map, vis, &mut mem.fields);
            }
        }
    }
    if let Some(access) = root.get("access") {
        for (key, list) in [
            ("deny_read", &mut mem.deny_read),
            ("deny_write", &mut mem.deny_write),
        ] {
            if let Some(items) = access.get(key).and_then(Node::as_seq) {
                list.extend(items.iter().filter_map(|n| {
                    n.as_str().map(|s| Spanned {
                        value: s.to_string(),
                        span: n.span,
                    })
                }));
            }
        }
    }
    (mem, findings)
}

/// Read the project `memory.yml` (a flat map of fields).
pub fn parse_project(file: FileId, text: &str) -> (Vec<Field>, Vec<Finding>) {
    let parsed = yaml::parse(text);
    let findings = parsed
        .issues
        .iter()
        .map(|i| crate::parse::yaml_issue(file, i, 0))
        .collect();
    let mut fields = Vec::new();
    if let Some(root) = parsed.root {
        read_fields(file, &root, Visibility::Project, &mut fields);
    }
    (fields, findings)
}

fn read_fields(file: FileId, map: &Node, visibility: Visibility, out: &mut Vec<Field>) {
    for (key, attrs) in map.entries() {
        let Some(name) = key.key_str() else { continue };
        let flag = |k: &str| attrs.get(k).and_then(Node::as_bool).unwrap_or(false);
        out.retain(|f: &Field| f.name != name);
        out.push(Field {
            name,
            span: key.span,
            file,
            visibility,
            llm_settable: flag("llm_settable"),
            immutable: flag("immutable"),
            type_name: attrs.get("type").and_then(Node::as_str).map(str::to_string),
            description: attrs
                .get("description")
                .and_then(Node::as_str)
                .map(str::to_string),
            attrs: matches!(attrs.value, Value::Map(_)).then(|| attrs.clone()),
        });
    }
}

/// Where a write by name would land, or why it cannot.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteTarget<'a> {
    /// A field of the writing skill or of the project.
    Field(&'a Field),
    /// `system.*`.
    Reserved,
    /// A qualified name (`project.x`, `<skill>.x`): `set` takes bare names.
    Qualified { namespace: String, entry: String },
    /// Listed in the skill's `access.deny_write`.
    Denied {
        field: &'a Field,
        rule: &'a Spanned<String>,
    },
    /// Declared nowhere the skill can write.
    Undeclared,
}

/// The declared memory of a whole project.
#[derive(Debug, Clone, Default)]
pub struct MemoryModel {
    pub project: Vec<Field>,
}

impl MemoryModel {
    pub fn project_field(&self, name: &str) -> Option<&Field> {
        self.project.iter().find(|f| f.name == name)
    }

    /// Resolve a `context.memory.set(name, ...)` made while `skill` (with
    /// the memory `mem`) is active: bare names only, the skill's own fields
    /// first, then the project's (decision D7).
    pub fn write_target<'a>(
        &'a self,
        skill: &str,
        mem: &'a SkillMemory,
        name: &str,
    ) -> WriteTarget<'a> {
        if name == SYSTEM_NAMESPACE || name.starts_with("system.") {
            return WriteTarget::Reserved;
        }
        if let Some((ns, entry)) = name.split_once('.') {
            return WriteTarget::Qualified {
                namespace: ns.to_string(),
                entry: entry.to_string(),
            };
        }
        let field = match mem.field(name).or_else(|| self.project_field(name)) {
            Some(f) => f,
            None => return WriteTarget::Undeclared,
        };
        let qualified = match field.visibility {
            Visibility::Project => format!("{PROJECT_NAMESPACE}.{name}"),
            _ => format!("{skill}.{name}"),
        };
        if let Some(rule) = mem
            .deny_write
            .iter()
            .find(|r| r.value == name || r.value == qualified)
        {
            return WriteTarget::Denied { field, rule };
        }
        WriteTarget::Field(field)
    }

    /// Every name a skill could write (for suggestions).
    pub fn writable_names<'a>(&'a self, mem: &'a SkillMemory) -> impl Iterator<Item = &'a str> {
        mem.fields
            .iter()
            .chain(self.project.iter())
            .map(|f| f.name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(text: &str) -> SkillMemory {
        parse_skill(FileId(0), text).0
    }

    #[test]
    fn reads_sections_and_flags() {
        let m = skill("schema:\n  public:\n    a:\n      type: bool\n      llm_settable: true\n  private:\n    b:\n      immutable: yes\naccess:\n  deny_write: [project.p, a]\n  deny_read: [x.y]\n");
        assert_eq!(m.fields.len(), 2);
        assert!(m.field("a").unwrap().llm_settable);
        assert_eq!(m.field("b").unwrap().visibility, Visibility::Private);
        assert!(m.field("b").unwrap().immutable);
        assert_eq!(m.deny_write.len(), 2);
        assert_eq!(m.deny_read[0].value, "x.y");
    }

    #[test]
    fn a_flat_file_declares_nothing_for_a_skill() {
        assert!(skill("a:\n  type: text\n").fields.is_empty());
    }

    #[test]
    fn write_targets() {
        let mem = skill("schema:\n  private:\n    own:\n      type: text\naccess:\n  deny_write: [project.locked]\n");
        let (project, _) =
            parse_project(FileId(1), "shared:\n  type: text\nlocked:\n  type: bool\n");
        let model = MemoryModel { project };
        assert!(
            matches!(model.write_target("s", &mem, "own"), WriteTarget::Field(f) if f.visibility == Visibility::Private)
        );
        assert!(
            matches!(model.write_target("s", &mem, "shared"), WriteTarget::Field(f) if f.visibility == Visibility::Project)
        );
        assert!(matches!(
            model.write_target("s", &mem, "locked"),
            WriteTarget::Denied { .. }
        ));
        assert_eq!(
            model.write_target("s", &mem, "nope"),
            WriteTarget::Undeclared
        );
        assert_eq!(
            model.write_target("s", &mem, "system.x"),
            WriteTarget::Reserved
        );
        assert!(matches!(
            model.write_target("s", &mem, "project.shared"),
            WriteTarget::Qualified { .. }
        ));
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,200}") {
            let _ = parse_skill(FileId(0), &s);
            let _ = parse_project(FileId(0), &s);
        }
    }
}
