//! Reading `memory.yml` files into [`SkillMemory`] / project [`Field`]s,
//! with the file-local findings (`memory.*` codes whose rules live in
//! `crate::checks::memory_*`).
//!
//! The reader is lenient in what it keeps (whatever can be understood is
//! declared, so that one typo does not turn every write into an
//! "undeclared" finding) and strict in what it reports: every key or value
//! the engine would not understand the way the author meant it is a
//! finding.
//!
//! Choices (see memory.md §1.5 and §6):
//! - A skill file is `schema.public` / `schema.private` / `access`; a
//!   project file is a flat map of fields. Each shape written in the other
//!   file is reported (`memory.invalid_structure`), not silently read as a
//!   field named `schema` or as an empty schema.
//! - A project field with a null body (`logged_in:`) is a field of type
//!   `any` (the reference accepts it and real projects use it); a skill
//!   field with a null body is an error (the reference cannot load the
//!   skill). A scalar or list body (`size: text`) is an error in both.
//! - Flags (`llm_settable`, `immutable`, `seed`, `pii`) must be YAML
//!   booleans. The bool-ish strings the reference tolerates (`"yes"`,
//!   `"true"`, `1`) are read with the reference's meaning but reported.
//! - Unknown `type` strings are kept (the field behaves as `any`) and
//!   reported as a warning.

use super::{Field, FieldType, SkillMemory, Visibility, PROJECT_NAMESPACE};
use crate::checks::{
    memory_description_required, memory_invalid_access, memory_invalid_attribute,
    memory_invalid_field, memory_invalid_initial_value, memory_invalid_structure,
    memory_public_and_private, memory_skill_seed, memory_unknown_key, memory_unknown_type,
};
use crate::diagnostic::Finding;
use crate::skill_md::Spanned;
use crate::source::FileId;
use crate::suggest::{did_you_mean, with_article};
use crate::yaml::{self, Node, Value};

/// Attribute keys a field may carry (memory.md §1.2 plus D7's `immutable`).
pub const FIELD_KEYS: &[&str] = &[
    "type",
    "description",
    "llm_settable",
    "immutable",
    "initial_value",
    "enum_values",
    "seed",
    "pii",
    "anonymization",
    "privacy_rules",
];

const SKILL_TOP_KEYS: &[&str] = &["schema", "access"];
const SCHEMA_KEYS: &[&str] = &["public", "private"];
const ACCESS_KEYS: &[&str] = &["deny_read", "deny_write"];
const ANONYMIZATION_KEYS: &[&str] = &["type", "redaction_char", "keep_left", "keep_right"];

/// Which file a field comes from, for messages.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    file: FileId,
    /// Skill id, or `None` for the project file.
    skill: Option<&'a str>,
}

impl Ctx<'_> {
    fn path(&self) -> String {
        match self.skill {
            Some(id) => format!("skills/{id}/memory.yml"),
            None => "memory.yml".to_string(),
        }
    }
    fn namespace(&self) -> &str {
        self.skill.unwrap_or(PROJECT_NAMESPACE)
    }
}

fn yaml_findings(file: FileId, parsed: &yaml::Parsed) -> Vec<Finding> {
    parsed
        .issues
        .iter()
        .map(|i| crate::parse::yaml_issue(file, i, 0))
        .collect()
}

/// Read `skills/<skill>/memory.yml`.
pub fn parse_skill(file: FileId, skill: &str, text: &str) -> (SkillMemory, Vec<Finding>) {
    let parsed = yaml::parse(text);
    let mut findings = yaml_findings(file, &parsed);
    let mut mem = SkillMemory {
        file: Some(file),
        ..SkillMemory::default()
    };
    let cx = Ctx {
        file,
        skill: Some(skill),
    };
    let Some(root) = parsed.root else {
        return (mem, findings);
    };
    match &root.value {
        Value::Null => return (mem, findings),
        Value::Map(_) => {}
        _ => {
            findings.push(not_a_mapping(
                cx,
                &root,
                format!("{} must be a mapping", cx.path()),
                "schema:\n  public:\n    <entry>:\n      type: text",
            ));
            return (mem, findings);
        }
    }
    for (key, value) in root.entries() {
        let Some(k) = key.as_str() else {
            findings.push(non_string_key(cx, key, "a top-level key"));
            continue;
        };
        match k {
            "schema" => read_schema(cx, value, &mut mem, &mut findings),
            "access" => read_access(cx, value, &mut mem, &mut findings),
            other => findings.push(unknown_top_level(cx, key, other, value)),
        }
    }
    // An entry declared both public and private.
    for private in mem
        .fields
        .iter()
        .filter(|f| f.visibility == Visibility::Private)
    {
        if let Some(public) = mem
            .fields
            .iter()
            .find(|f| f.visibility == Visibility::Public && f.name == private.name)
        {
            findings.push(
                memory_public_and_private::RULE
                    .finding(format!(
                        "`{}` is declared both public and private in skill `{skill}`",
                        private.name
                    ))
                    .at(file, private.span, "declared private here")
                    .label(file, public.span, "and public here")
                    .help(format!(
                        "keep one declaration: under `public` if other skills read `{skill}.{}`, else under `private`",
                        private.name
                    )),
            );
        }
    }
    (mem, findings)
}

/// Read the project `memory.yml` (a flat map of fields).
pub fn parse_project(file: FileId, text: &str) -> (Vec<Field>, Vec<Finding>) {
    let parsed = yaml::parse(text);
    let mut findings = yaml_findings(file, &parsed);
    let mut fields = Vec::new();
    let cx = Ctx { file, skill: None };
    let Some(root) = parsed.root else {
        return (fields, findings);
    };
    match &root.value {
        Value::Null => {}
        Value::Map(_) => {
            for (key, value) in root.entries() {
                if let Some(k @ ("schema" | "access")) = key.as_str() {
                    if looks_like_skill_section(k, value) {
                        findings.push(
                            memory_invalid_structure::RULE
                                .finding(format!(
                                    "the project memory.yml is a flat map of fields, but it has a skill-style `{k}:` section"
                                ))
                                .at(file, key.span, "skill memory.yml syntax")
                                .help(if k == "schema" {
                                    "write project fields at the top level:\nselected_card_id:\n  type: text\n`schema.public` / `schema.private` belong in skills/<id>/memory.yml"
                                } else {
                                    "`access.deny_read`/`deny_write` belong in skills/<id>/memory.yml"
                                }),
                        );
                        continue;
                    }
                }
                read_field(
                    cx,
                    key,
                    value,
                    Visibility::Project,
                    &mut fields,
                    &mut findings,
                );
            }
        }
        _ => findings.push(not_a_mapping(
            cx,
            &root,
            "the project memory.yml must be a mapping of fields".to_string(),
            "<entry>:\n  type: text\n  description: ...",
        )),
    }
    (fields, findings)
}

fn looks_like_skill_section(key: &str, value: &Node) -> bool {
    let keys: &[&str] = if key == "schema" {
        SCHEMA_KEYS
    } else {
        ACCESS_KEYS
    };
    value
        .entries()
        .any(|(k, _)| k.as_str().is_some_and(|k| keys.contains(&k)))
}

fn not_a_mapping(cx: Ctx<'_>, node: &Node, message: String, example: &str) -> Finding {
    memory_invalid_structure::RULE
        .finding(message)
        .at(
            cx.file,
            node.span,
            format!("this is {}", with_article(node.type_name())),
        )
        .help(format!("write a mapping, e.g.\n{example}"))
}

fn non_string_key(cx: Ctx<'_>, key: &Node, what: &str) -> Finding {
    let text = key.key_str().unwrap_or_default();
    memory_invalid_structure::RULE
        .finding(format!(
            "{what} must be a string, but `{text}` is read as {}",
            with_article(key.type_name())
        ))
        .at(cx.file, key.span, "not a string")
        .help(format!("quote it: `\"{text}\":`"))
}

fn unknown_top_level(cx: Ctx<'_>, key: &Node, name: &str, value: &Node) -> Finding {
    // A field written at the top level of a skill file.
    let looks_like_field = value
        .entries()
        .any(|(k, _)| k.as_str().is_some_and(|k| FIELD_KEYS.contains(&k)));
    if looks_like_field {
        return memory_invalid_structure::RULE
            .finding(format!(
                "field `{name}` is at the top level of {}; skill fields go under `schema.public` or `schema.private`",
                cx.path()
            ))
            .at(cx.file, key.span, "ignored here")
            .help(format!(
                "indent it under a section:\nschema:\n  private:\n    {name}:\n      ..."
            ));
    }
    let f = memory_unknown_key::RULE
        .finding(format!("unknown top-level key `{name}` in {}", cx.path()))
        .at(cx.file, key.span, "not a memory.yml key");
    match name {
        "definition" | "fields" | "memory" | "slots" => {
            f.help("declare fields under `schema:` (`schema.public` / `schema.private`)")
        }
        "public" | "private" => f.help(format!("indent it under `schema:` (`schema.{name}`)")),
        "deny_read" | "deny_write" => {
            f.help(format!("indent it under `access:` (`access.{name}`)"))
        }
        _ => suggest_key(f, name, SKILL_TOP_KEYS),
    }
}

fn suggest_key(f: Finding, name: &str, known: &[&str]) -> Finding {
    match did_you_mean(name, known.iter().copied()) {
        Some(s) => f.help(format!("did you mean `{s}`?")),
        None => f.help(format!(
            "remove it; the accepted keys are {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn read_schema(cx: Ctx<'_>, schema: &Node, mem: &mut SkillMemory, findings: &mut Vec<Finding>) {
    match &schema.value {
        Value::Map(_) => {}
        _ => {
            findings.push(not_a_mapping(
                cx,
                schema,
                "`schema` must be a mapping with `public` and/or `private`".to_string(),
                "schema:\n  public:\n    <entry>:\n      type: text",
            ));
            return;
        }
    }
    for (key, section) in schema.entries() {
        let vis = match key.as_str() {
            Some("public") => Visibility::Public,
            Some("private") => Visibility::Private,
            Some(other) => {
                let looks_like_field = section
                    .entries()
                    .any(|(k, _)| k.as_str().is_some_and(|k| FIELD_KEYS.contains(&k)));
                let f = memory_unknown_key::RULE
                    .finding(format!("unknown key `{other}` under `schema`"))
                    .at(cx.file, key.span, "not `public` or `private`");
                findings.push(if looks_like_field {
                    f.help(format!(
                        "fields go under a section: `schema.public.{other}` (readable by other skills) or `schema.private.{other}`"
                    ))
                } else {
                    suggest_key(f, other, SCHEMA_KEYS)
                });
                continue;
            }
            None => {
                findings.push(non_string_key(cx, key, "a `schema` key"));
                continue;
            }
        };
        match &section.value {
            Value::Null => {}
            Value::Map(_) => {
                for (k, v) in section.entries() {
                    read_field(cx, k, v, vis, &mut mem.fields, findings);
                }
            }
            _ => findings.push(not_a_mapping(
                cx,
                section,
                format!(
                    "`schema.{}` must be a mapping of fields",
                    key.as_str().unwrap_or_default()
                ),
                "    <entry>:\n      type: text",
            )),
        }
    }
}

fn read_access(cx: Ctx<'_>, access: &Node, mem: &mut SkillMemory, findings: &mut Vec<Finding>) {
    match &access.value {
        Value::Null => return,
        Value::Map(_) => {}
        _ => {
            findings.push(
                memory_invalid_access::RULE
                    .finding(format!(
                        "`access` must be a mapping, but it is {}",
                        with_article(access.type_name())
                    ))
                    .at(cx.file, access.span, "expected `deny_read` / `deny_write`")
                    .help("write\naccess:\n  deny_read: [<entry>]\n  deny_write: [<entry>]"),
            );
            return;
        }
    }
    for (key, list) in access.entries() {
        let target = match key.as_str() {
            Some("deny_read") => &mut mem.deny_read,
            Some("deny_write") => &mut mem.deny_write,
            Some(other) => {
                let f = memory_unknown_key::RULE
                    .finding(format!("unknown key `{other}` under `access`"))
                    .at(cx.file, key.span, "not `deny_read` or `deny_write`");
                findings.push(suggest_key(f, other, ACCESS_KEYS));
                continue;
            }
            None => {
                findings.push(non_string_key(cx, key, "an `access` key"));
                continue;
            }
        };
        let k = key.as_str().unwrap_or_default();
        let items = match &list.value {
            Value::Null => continue,
            Value::Seq(items) => items,
            Value::Str(s) => {
                // A single name: keep it, but it must be a list.
                findings.push(
                    memory_invalid_access::RULE
                        .finding(format!("`access.{k}` must be a list of memory names"))
                        .at(cx.file, list.span, "a single string")
                        .help(format!("write a list: `{k}: [{s}]`")),
                );
                continue;
            }
            _ => {
                findings.push(
                    memory_invalid_access::RULE
                        .finding(format!(
                            "`access.{k}` must be a list of memory names, but it is {}",
                            with_article(list.type_name())
                        ))
                        .at(cx.file, list.span, "expected a list")
                        .help(format!(
                            "write one name per item:\n  {k}:\n    - project.<entry>"
                        )),
                );
                continue;
            }
        };
        for item in items {
            match &item.value {
                Value::Str(s) if !s.trim().is_empty() => target.push(Spanned {
                    value: s.clone(),
                    span: item.span,
                }),
                _ => findings.push(
                    memory_invalid_access::RULE
                        .finding(format!(
                            "`access.{k}` items must be memory names, but this one is {}",
                            if item.as_str().is_some() {
                                "blank".to_string()
                            } else {
                                with_article(item.type_name())
                            }
                        ))
                        .at(cx.file, item.span, "not a memory name")
                        .help("write a bare name (`card_id`) or a qualified one (`project.card_id`, `<skill_id>.<entry>`)"),
                ),
            }
        }
    }
}

/// Lenient boolean (memory.md §1.2): the reference accepts `1/0`,
/// `"yes"/"no"`, `"on"/"off"`, `"true"/"false"`.
fn boolish(node: &Node) -> Option<bool> {
    match &node.value {
        Value::Bool(b) => Some(*b),
        Value::Int(1) => Some(true),
        Value::Int(0) => Some(false),
        Value::Str(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Some(true),
            "false" | "no" | "off" | "0" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

fn read_field(
    cx: Ctx<'_>,
    key: &Node,
    attrs: &Node,
    visibility: Visibility,
    out: &mut Vec<Field>,
    findings: &mut Vec<Finding>,
) {
    let Some(name) = key.as_str().map(str::to_string) else {
        findings.push(non_string_key(cx, key, "a field name"));
        return;
    };
    if name.trim().is_empty() {
        findings.push(
            memory_invalid_structure::RULE
                .finding("a field name is blank")
                .at(cx.file, key.span, "blank name")
                .help("name the field, e.g. `selected_card_id:`"),
        );
        return;
    }
    let mut field = Field {
        name: name.clone(),
        namespace: cx.namespace().to_string(),
        span: key.span,
        file: cx.file,
        visibility,
        ty: FieldType::Any,
        type_name: None,
        description: None,
        llm_settable: false,
        immutable: false,
        initial_value: None,
        enum_values: Vec::new(),
        seed: false,
        pii: false,
        attrs: None,
    };
    match &attrs.value {
        Value::Map(_) => {}
        Value::Null if cx.skill.is_none() => {
            // Project field with no attributes: an `any` field (reference).
            out.push(field);
            return;
        }
        _ => {
            let (message, help) = match (&attrs.value, attrs.as_str()) {
                (Value::Null, _) => (
                    format!("field `{name}` has no attributes"),
                    format!("give it a type:\n{name}:\n  type: text"),
                ),
                (_, Some(s)) if FieldType::parse(s).is_some() => (
                    format!("field `{name}` is written as `{name}: {s}`, but its attributes must be a mapping"),
                    format!("write the type as an attribute:\n{name}:\n  type: {s}"),
                ),
                _ => (
                    format!(
                        "the attributes of field `{name}` must be a mapping, but they are {}",
                        with_article(attrs.type_name())
                    ),
                    format!("write\n{name}:\n  type: text\n  description: ..."),
                ),
            };
            findings.push(
                memory_invalid_field::RULE
                    .finding(message)
                    .at(
                        cx.file,
                        if attrs.span.is_empty() {
                            key.span
                        } else {
                            attrs.span
                        },
                        "expected a mapping of attributes",
                    )
                    .help(help),
            );
            // Keep the declaration so that writes to it are not also
            // reported as undeclared.
            out.push(field);
            return;
        }
    }
    for (k, v) in attrs.entries() {
        let Some(attr) = k.as_str() else {
            findings.push(non_string_key(cx, k, "an attribute name"));
            continue;
        };
        match attr {
            "type" => match v.as_str() {
                Some(s) => {
                    field.type_name = Some(s.to_string());
                    match FieldType::parse(s) {
                        Some(t) => field.ty = t,
                        None => {
                            field.ty = FieldType::Unknown;
                            findings.push(unknown_type(cx, &name, v, s));
                        }
                    }
                }
                None => findings.push(
                    memory_invalid_attribute::RULE
                        .finding(format!(
                            "`type` of field `{name}` must be a string, but it is {}",
                            with_article(v.type_name())
                        ))
                        .at(cx.file, if v.span.is_empty() { k.span } else { v.span }, "not a type name")
                        .help(format!("write one of {}", type_list())),
                ),
            },
            "description" => match &v.value {
                Value::Str(s) => field.description = Some(s.clone()),
                Value::Null => {}
                _ => findings.push(
                    memory_invalid_attribute::RULE
                        .finding(format!(
                            "`description` of field `{name}` must be a string, but it is {}",
                            with_article(v.type_name())
                        ))
                        .at(cx.file, v.span, "not a string")
                        .help("quote it: `description: \"...\"`"),
                ),
            },
            "llm_settable" | "immutable" | "seed" | "pii" => {
                let b = boolish(v);
                if !matches!(v.value, Value::Bool(_)) {
                    let read = match b {
                        Some(b) => format!(" (read as {b})"),
                        None => String::new(),
                    };
                    findings.push(
                        memory_invalid_attribute::RULE
                            .finding(format!(
                                "`{attr}` of field `{name}` must be true or false, but it is {}{read}",
                                if v.is_null() { "empty".to_string() } else { with_article(v.type_name()) }
                            ))
                            .at(cx.file, if v.span.is_empty() { k.span } else { v.span }, "not a boolean")
                            .help(format!(
                                "write `{attr}: {}` (unquoted)",
                                b.unwrap_or(true)
                            )),
                    );
                }
                let b = b.unwrap_or(false);
                match attr {
                    "llm_settable" => field.llm_settable = b,
                    "immutable" => field.immutable = b,
                    "seed" => field.seed = b,
                    _ => field.pii = b,
                }
            }
            "initial_value" => {
                if !v.is_null() {
                    field.initial_value = Some(v.clone());
                }
            }
            "enum_values" => match &v.value {
                Value::Seq(items) => field.enum_values = items.clone(),
                _ => findings.push(
                    memory_invalid_attribute::RULE
                        .finding(format!(
                            "`enum_values` of field `{name}` must be a list, but it is {}",
                            if v.is_null() { "empty".to_string() } else { with_article(v.type_name()) }
                        ))
                        .at(cx.file, if v.span.is_empty() { k.span } else { v.span }, "expected a list")
                        .help("write the allowed values as a list: `enum_values: [small, medium, large]`"),
                ),
            },
            "privacy_rules" => {
                let ok = match &v.value {
                    Value::Seq(items) => items.iter().all(|i| i.as_str().is_some()),
                    Value::Null => true,
                    _ => false,
                };
                if !ok {
                    findings.push(
                        memory_invalid_attribute::RULE
                            .finding(format!(
                                "`privacy_rules` of field `{name}` must be a list of strings"
                            ))
                            .at(cx.file, v.span, "expected a list of strings")
                            .help("write `privacy_rules: [<rule>, ...]`, or remove the key"),
                    );
                }
            }
            "anonymization" => {}
            other => {
                let f = memory_unknown_key::RULE
                    .finding(format!("unknown attribute `{other}` on field `{name}`"))
                    .at(cx.file, k.span, "not a field attribute");
                findings.push(suggest_key(f, other, FIELD_KEYS));
            }
        }
    }
    if let Some((k, v)) = attr_entry(attrs, "anonymization") {
        anonymization(cx, &name, &field, k, v, findings);
    }
    if cx.skill.is_some() && field.seed {
        let (k, _) = attr_entry(attrs, "seed").expect("seed was read from the attributes");
        findings.push(
            memory_skill_seed::RULE
                .finding(format!(
                    "skill field `{name}` uses `seed`; only project fields are seeded from the session start"
                ))
                .at(cx.file, k.span, "seed on a skill field")
                .help(format!(
                    "move `{name}` to the project memory.yml if it comes from the channel metadata, or remove `seed`"
                )),
        );
    }
    if let Some(init) = &field.initial_value {
        if let Err(expected) = field.accepts(init) {
            let mut f = memory_invalid_initial_value::RULE
                .finding(format!(
                    "the `initial_value` of field `{name}` is {}, not {}",
                    with_article(init.type_name()),
                    expected.what
                ))
                .at(cx.file, init.span, format!("not {}", expected.what));
            if let Some((_, t)) = attr_entry(attrs, "type") {
                f = f.label(cx.file, t.span, "the field's type");
            }
            findings.push(f.help(expected.help));
        }
    }
    if field.llm_settable
        && field
            .description
            .as_deref()
            .is_none_or(|d| d.trim().is_empty())
    {
        let (k, _) = attr_entry(attrs, "llm_settable").expect("llm_settable was read");
        let mut f = memory_description_required::RULE
            .finding(format!(
                "field `{name}` can be set by the model but has no description"
            ))
            .at(cx.file, key.span, "no description");
        f = f.label(cx.file, k.span, "settable by the model");
        findings.push(f.help(format!(
            "add `description: <what {name} holds>`; the model reads it to know what to fill in"
        )));
    }
    field.attrs = Some(attrs.clone());
    out.push(field);
}

/// The last `(key, value)` of attribute `name`.
fn attr_entry<'a>(attrs: &'a Node, name: &str) -> Option<(&'a Node, &'a Node)> {
    attrs
        .entries()
        .filter(|(k, _)| k.as_str() == Some(name))
        .last()
}

fn type_list() -> String {
    FieldType::NAMES
        .iter()
        .map(|t| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn unknown_type(cx: Ctx<'_>, name: &str, node: &Node, s: &str) -> Finding {
    let f = memory_unknown_type::RULE
        .finding(format!(
            "field `{name}` has the unknown type `{s}`; it is treated as `any`"
        ))
        .at(cx.file, node.span, "not a memory type");
    match FieldType::near_miss(s) {
        Some(t) => f.help(format!("did you mean `type: {t}`?")),
        None => f.help(format!("write one of {}", type_list())),
    }
}

fn anonymization(
    cx: Ctx<'_>,
    name: &str,
    field: &Field,
    key: &Node,
    v: &Node,
    findings: &mut Vec<Finding>,
) {
    let invalid = |span, message: String, label: &str, help: &str| {
        memory_invalid_attribute::RULE
            .finding(message)
            .at(cx.file, span, label.to_string())
            .help(help.to_string())
    };
    match &v.value {
        Value::Null => return,
        Value::Map(_) => {}
        _ => {
            findings.push(invalid(
                v.span,
                format!(
                    "`anonymization` of field `{name}` must be a mapping, but it is {}",
                    with_article(v.type_name())
                ),
                "expected a mapping",
                "write\nanonymization:\n  type: mask\n  keep_right: 4",
            ));
            return;
        }
    }
    if !field.pii {
        findings.push(invalid(
            key.span,
            format!("field `{name}` has `anonymization` but is not `pii: true`"),
            "only used for PII fields",
            "add `pii: true` to the field, or remove `anonymization`",
        ));
    }
    let mut has_type = false;
    for (k, val) in v.entries() {
        match k.as_str() {
            Some("type") => {
                has_type = true;
                if !matches!(val.as_str(), Some("redact" | "mask")) {
                    findings.push(invalid(
                        val.span,
                        format!(
                            "`anonymization.type` of field `{name}` must be `redact` or `mask`"
                        ),
                        "not an anonymization type",
                        "write `type: mask` or `type: redact`",
                    ));
                }
            }
            Some("redaction_char") => {
                if val.as_str().is_none_or(|s| s.chars().count() != 1) {
                    findings.push(invalid(
                        val.span,
                        format!("`anonymization.redaction_char` of field `{name}` must be exactly one character"),
                        "not one character",
                        "write e.g. `redaction_char: \"*\"`",
                    ));
                }
            }
            Some(side @ ("keep_left" | "keep_right")) => {
                if !(val.is_null() || val.as_i64().is_some_and(|n| n > 0)) {
                    findings.push(invalid(
                        val.span,
                        format!(
                            "`anonymization.{side}` of field `{name}` must be a positive integer"
                        ),
                        "not a positive integer",
                        "write a count of characters to keep, e.g. `keep_right: 4`",
                    ));
                }
            }
            Some(other) => {
                let f = memory_unknown_key::RULE
                    .finding(format!(
                        "unknown key `{other}` under `anonymization` of field `{name}`"
                    ))
                    .at(cx.file, k.span, "not an anonymization key");
                findings.push(suggest_key(f, other, ANONYMIZATION_KEYS));
            }
            None => findings.push(non_string_key(cx, k, "an anonymization key")),
        }
    }
    if !has_type {
        findings.push(invalid(
            key.span,
            format!("`anonymization` of field `{name}` has no `type`"),
            "`type` is required",
            "add `type: mask` or `type: redact`",
        ));
    }
}
