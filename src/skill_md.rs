//! `skill.md`: frontmatter split, YAML frontmatter and body.
//!
//! [`parse`] never fails as a whole: it returns what it could read and the
//! findings about the rest. All spans are byte offsets into the whole file.

use crate::checks;
use crate::diagnostic::Finding;
use crate::source::{FileId, Span};
use crate::suggest::{did_you_mean, with_article};
use crate::yaml::{self, Node, Value};

/// The complete set of accepted top-level frontmatter keys.
pub const KNOWN_KEYS: &[&str] = &[
    "name",
    "description",
    "precondition",
    "hidden",
    "disabled",
    "always_include_in_prompt",
    "complete_when",
    "import_tools",
    "tool_constraints",
    "utter",
    "knowledge_answering",
    "routing",
];

/// A value with the span it came from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// One `tool_constraints` item: `- <tool>: {options}`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolConstraint {
    pub tool: Spanned<String>,
    /// The `requires:` condition text.
    pub requires: Option<Text>,
    /// `requires_confirmation`, when present and well-formed.
    pub confirmation: Option<Confirmation>,
    pub on_success: Option<Spanned<String>>,
    pub on_failure: Option<Spanned<String>>,
}

/// A string value and where its characters are: `span` is the whole YAML
/// scalar, `inner` the characters of the value (inside the quotes). When
/// `exact` is true the value is the verbatim text at `inner` (no escapes or
/// line folding), so an offset into the value maps to `inner.start + offset`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Text {
    pub value: String,
    pub span: Span,
    pub inner: Span,
    pub exact: bool,
}

impl Text {
    /// Map a span inside `value` to a span in the file (the whole scalar
    /// when the value is not verbatim).
    pub fn map(&self, inside: Span) -> Span {
        if self.exact && inside.end <= self.value.len() {
            inside.shifted(self.inner.start)
        } else {
            self.span
        }
    }
}

/// `requires_confirmation` of a tool constraint.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Confirmation {
    pub enabled: bool,
    /// The `requires_confirmation` key.
    pub span: Span,
    pub utter_for_confirmation: Option<Spanned<String>>,
    pub utter_on_user_denial: Option<Spanned<String>>,
}

/// Option keys of a tool constraint.
pub const CONSTRAINT_KEYS: &[&str] = &[
    "requires",
    "requires_confirmation",
    "on_success",
    "on_failure",
];
/// Keys of `requires_confirmation`.
pub const CONFIRMATION_KEYS: &[&str] =
    &["enabled", "utter_for_confirmation", "utter_on_user_denial"];

/// The parsed `skill.md`.
#[derive(Debug, Clone, Default)]
pub struct SkillDoc {
    /// The frontmatter mapping (spans relative to the whole file).
    pub frontmatter: Option<Node>,
    /// Span of the opening `---` line (where file-level findings point).
    pub header_span: Span,
    pub name: Option<Spanned<String>>,
    /// The `description` value as written (it may be blank).
    pub description: Option<Spanned<String>>,
    pub hidden: bool,
    pub disabled: bool,
    pub always_include_in_prompt: bool,
    pub precondition: Option<Spanned<String>>,
    /// `import_tools` entries that are strings.
    pub import_tools: Vec<Spanned<String>>,
    /// Whether `import_tools` was a list (or absent).
    pub import_tools_ok: bool,
    pub tool_constraints: Vec<ToolConstraint>,
    /// The instructions (body after the frontmatter, trimmed).
    pub body: String,
    pub body_span: Span,
    /// The frontmatter could not be read as a mapping (missing delimiters,
    /// not a mapping); checks of its keys are pointless then.
    pub malformed: bool,
}

/// Split `text` into frontmatter and body and read the frontmatter.
pub fn parse(file: FileId, text: &str) -> (SkillDoc, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut doc = SkillDoc {
        import_tools_ok: true,
        ..Default::default()
    };

    let Some(split) = split(text) else {
        let first = text.trim_start();
        let start = text.len() - first.len();
        let end = start + first.find('\n').unwrap_or(first.len());
        let span = Span::new(start, end.max(start));
        findings.push(
            checks::skill_invalid_frontmatter_delimiter::RULE
                .finding("skill.md must start with a `---` line and close its frontmatter with another `---` line")
                .at(file, span, if first.trim_end().starts_with("---") || first.is_empty() { "frontmatter starts here but is never closed" } else { "expected `---` here" })
                .help("put the frontmatter between two lines of `---` at the top of the file:\n---\ndescription: What this skill does\n---"),
        );
        doc.body = text.trim().to_string();
        doc.body_span = Span::new(0, text.len());
        doc.malformed = true;
        return (doc, findings);
    };
    doc.header_span = split.open;
    doc.body = text[split.body.range()].trim().to_string();
    doc.body_span = split.body;

    let yaml_text = &text[split.yaml.range()];
    let parsed = yaml::parse(yaml_text);
    for issue in &parsed.issues {
        findings.push(crate::parse::yaml_issue(file, issue, split.yaml.start));
    }
    let Some(mut root) = parsed.root else {
        return (doc, findings);
    };
    crate::parse::shift_node(&mut root, split.yaml.start);

    match &root.value {
        Value::Map(_) => {}
        Value::Null => return (doc, findings),
        _ => {
            doc.malformed = true;
            findings.push(
                checks::skill_invalid_frontmatter::RULE
                    .finding(format!(
                        "the frontmatter is {}, but it must be a mapping of keys",
                        with_article(root.type_name())
                    ))
                    .at(file, root.span, "expected `key: value` lines")
                    .help("write the frontmatter as `key: value` lines, e.g. `description: ...`"),
            );
            return (doc, findings);
        }
    }

    for (key, value) in root.entries() {
        let Some(k) = key.key_str() else { continue };
        match k.as_str() {
            "name" => doc.name = string_field(file, &k, value, &mut findings),
            "description" => doc.description = string_field(file, &k, value, &mut findings),
            "precondition" => {
                doc.precondition = string_field(file, &k, value, &mut findings);
                if doc.precondition.as_ref().is_some_and(|p| p.value.trim().is_empty()) {
                    findings.push(
                        checks::skill_invalid_frontmatter::RULE
                            .finding("`precondition` is blank")
                            .at(file, value.span, "a precondition name is expected")
                            .help("name a precondition bound in agent.yml under `orchestrator.preconditions`, or remove the key"),
                    );
                }
            }
            "hidden" | "disabled" | "always_include_in_prompt" => {
                let b = bool_field(file, &k, value, &mut findings);
                match k.as_str() {
                    "hidden" => doc.hidden = b,
                    "disabled" => doc.disabled = b,
                    _ => doc.always_include_in_prompt = b,
                }
            }
            "import_tools" => import_tools(file, value, &mut doc, &mut findings),
            "tool_constraints" => tool_constraints(file, text, value, &mut doc, &mut findings),
            "complete_when" | "utter" | "knowledge_answering" | "routing" => {}
            "requires" => findings.push(
                checks::skill_requires_removed::RULE
                    .finding("a skill-level `requires` is not supported")
                    .at(file, key.span, "remove this key")
                    .help("use `precondition:` to park the skill until a resolver runs, or `hidden: true` to keep it out of routing; `requires` inside `tool_constraints` still gates tools"),
            ),
            other => {
                let mut f = checks::skill_unknown_frontmatter_key::RULE
                    .finding(format!("unknown frontmatter key `{other}`"))
                    .at(file, key.span, "not a skill.md key");
                f = match did_you_mean(other, KNOWN_KEYS.iter().copied()) {
                    Some(s) => f.help(format!("did you mean `{s}`?")),
                    None => f.help(format!(
                        "remove it; the accepted keys are {}",
                        KNOWN_KEYS.join(", ")
                    )),
                };
                findings.push(f);
            }
        }
    }
    doc.frontmatter = Some(root);
    (doc, findings)
}

fn string_field(
    file: FileId,
    key: &str,
    value: &Node,
    findings: &mut Vec<Finding>,
) -> Option<Spanned<String>> {
    match &value.value {
        Value::Str(s) => Some(Spanned {
            value: s.clone(),
            span: value.span,
        }),
        Value::Null => None,
        _ => {
            findings.push(
                checks::skill_invalid_frontmatter::RULE
                    .finding(format!(
                        "`{key}` must be a string, but it is {}",
                        with_article(value.type_name())
                    ))
                    .at(
                        file,
                        value.span,
                        format!("read as {}", with_article(value.type_name())),
                    )
                    .help(format!("quote the value: `{key}: \"...\"`")),
            );
            None
        }
    }
}

fn bool_field(file: FileId, key: &str, value: &Node, findings: &mut Vec<Finding>) -> bool {
    match &value.value {
        Value::Bool(b) => *b,
        Value::Null => false,
        _ => {
            findings.push(
                checks::skill_invalid_boolean_frontmatter::RULE
                    .finding(format!(
                        "`{key}` must be true or false, but it is {}",
                        with_article(value.type_name())
                    ))
                    .at(file, value.span, "not a boolean")
                    .help(format!("write `{key}: true` or `{key}: false` (unquoted)")),
            );
            false
        }
    }
}

fn import_tools(file: FileId, value: &Node, doc: &mut SkillDoc, findings: &mut Vec<Finding>) {
    let items = match &value.value {
        Value::Null => return,
        Value::Seq(items) => items,
        _ => {
            doc.import_tools_ok = false;
            findings.push(
                checks::import_tools_invalid::RULE
                    .finding(format!(
                        "`import_tools` must be a list of tool names, but it is {}",
                        with_article(value.type_name())
                    ))
                    .at(file, value.span, "expected a list")
                    .help("write one tool name per line:\nimport_tools:\n  - get_customer_info"),
            );
            return;
        }
    };
    for item in items {
        match &item.value {
            Value::Str(s) if !s.trim().is_empty() => {
                if let Some(rest) = s.strip_prefix("mcp/") {
                    if let Err(why) = parse_mcp(rest) {
                        findings.push(
                            checks::import_tools_invalid::RULE
                                .finding(format!("malformed MCP import `{s}`: {why}"))
                                .at(file, item.span, "expected `mcp/<server>:<tool>`")
                                .help("write `mcp/<server>:<tool>`, e.g. `mcp/ledger:issue_credit`; the tool name uses only letters, digits, `_` and `-` (1 to 64)"),
                        );
                        continue;
                    }
                }
                doc.import_tools.push(Spanned {
                    value: s.clone(),
                    span: item.span,
                });
            }
            _ => findings.push(
                checks::import_tools_invalid::RULE
                    .finding(format!(
                        "`import_tools` entries must be tool names, but this one is {}",
                        if matches!(item.value, Value::Str(_)) {
                            "a blank string".to_string()
                        } else {
                            with_article(item.type_name())
                        }
                    ))
                    .at(file, item.span, "expected a tool name")
                    .help(
                        "write the name of a shared tool defined in the agent-root `tools/` folder",
                    ),
            ),
        }
    }
}

/// Validate `<server>:<tool>` of an `mcp/` import; returns (server, tool).
pub fn parse_mcp(rest: &str) -> Result<(&str, &str), String> {
    let mut parts = rest.split(':');
    let (Some(server), Some(tool), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err("it needs exactly one `:` between server and tool".into());
    };
    let server_ok = server
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && server
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    if !server_ok {
        return Err(format!("`{server}` is not a valid server name"));
    }
    let tool_ok = (1..=64).contains(&tool.len())
        && tool
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c));
    if !tool_ok {
        return Err(format!("`{tool}` is not a valid tool name"));
    }
    Ok((server, tool))
}

fn tool_constraints(
    file: FileId,
    text: &str,
    value: &Node,
    doc: &mut SkillDoc,
    findings: &mut Vec<Finding>,
) {
    let items = match &value.value {
        Value::Null => return,
        Value::Seq(items) => items,
        _ => {
            findings.push(
                checks::tool_constraint_invalid::RULE
                    .finding(format!(
                        "`tool_constraints` must be a list, but it is {}",
                        with_article(value.type_name())
                    ))
                    .at(file, value.span, "expected a list of `- tool_name: {...}` items")
                    .help("tool_constraints:\n  - lock_card:\n      requires: \"session.project.selected_card_id\""),
            );
            return;
        }
    };
    for item in items {
        let entries: Vec<_> = match &item.value {
            Value::Map(_) => item.entries().collect(),
            _ => Vec::new(),
        };
        if entries.len() != 1 {
            let what = match &item.value {
                Value::Str(s) => format!("the bare name `{s}`"),
                Value::Map(_) => format!("a mapping with {} keys", entries.len()),
                _ => with_article(item.type_name()),
            };
            findings.push(
                checks::tool_constraint_invalid::RULE
                    .finding(format!(
                        "each `tool_constraints` item must be a mapping with exactly one tool name, but this is {what}"
                    ))
                    .at(file, item.span, "expected `- tool_name: {...}`")
                    .help("write `- lock_card:` followed by its options, e.g. `requires: \"session.project.selected_card_id\"`"),
            );
            continue;
        }
        let (key, options) = entries[0];
        let Some(name) = key.as_str().filter(|s| !s.trim().is_empty()) else {
            findings.push(
                checks::tool_constraint_invalid::RULE
                    .finding(
                        "the tool name of a `tool_constraints` item must be a non-empty string",
                    )
                    .at(file, key.span, "expected a tool name")
                    .help("write the tool's function name, e.g. `- lock_card:`"),
            );
            continue;
        };
        let mut c = ToolConstraint {
            tool: Spanned {
                value: name.to_string(),
                span: key.span,
            },
            ..Default::default()
        };
        constraint_options(file, text, options, &mut c, findings);
        doc.tool_constraints.push(c);
    }
}

fn constraint_options(
    file: FileId,
    text: &str,
    options: &Node,
    c: &mut ToolConstraint,
    findings: &mut Vec<Finding>,
) {
    let invalid = |span: Span, msg: String, label: &str, help: String| {
        checks::tool_constraint_invalid::RULE
            .finding(msg)
            .at(file, span, label)
            .help(help)
    };
    match &options.value {
        Value::Null => return,
        Value::Map(_) => {}
        _ => {
            findings.push(invalid(
                options.span,
                format!(
                    "the options of `{}` must be a mapping, but they are {}",
                    c.tool.value,
                    with_article(options.type_name())
                ),
                "expected `requires:`, `requires_confirmation:`, `on_success:` or `on_failure:`",
                format!(
                    "- {}:\n    requires: \"session.<skill_id>.<entry>\"",
                    c.tool.value
                ),
            ));
            return;
        }
    }
    let string =
        |key: &Node, value: &Node, findings: &mut Vec<Finding>| -> Option<Spanned<String>> {
            match &value.value {
                Value::Str(v) => Some(Spanned {
                    value: v.clone(),
                    span: value.span,
                }),
                _ => {
                    findings.push(invalid(
                        value.span,
                        format!(
                            "`{}` must be a string, but it is {}",
                            key.key_str().unwrap_or_default(),
                            with_article(value.type_name())
                        ),
                        "expected a string",
                        "quote the value".to_string(),
                    ));
                    None
                }
            }
        };
    for (key, value) in options.entries() {
        let Some(k) = key.key_str() else { continue };
        match k.as_str() {
            "requires" => {
                if let Some(v) = string(key, value, findings) {
                    let inner = crate::yaml::inner_span(value, text);
                    let exact = text.get(inner.range()) == Some(v.value.as_str());
                    c.requires = Some(Text {
                        value: v.value,
                        span: v.span,
                        inner,
                        exact,
                    });
                }
            }
            "on_success" => c.on_success = string(key, value, findings),
            "on_failure" => c.on_failure = string(key, value, findings),
            "requires_confirmation" => {
                if !matches!(value.value, Value::Map(_)) {
                    findings.push(invalid(
                        if value.is_null() {
                            key.span
                        } else {
                            value.span
                        },
                        format!(
                            "`requires_confirmation` must be a mapping, but it is {}",
                            with_article(value.type_name())
                        ),
                        "expected `enabled: true` and optional response names",
                        "requires_confirmation:\n  enabled: true".to_string(),
                    ));
                    continue;
                }
                let mut conf = Confirmation {
                    span: key.span,
                    ..Default::default()
                };
                for (ck, cv) in value.entries() {
                    let Some(name) = ck.key_str() else { continue };
                    match name.as_str() {
                        "enabled" => match cv.value {
                            Value::Bool(b) => conf.enabled = b,
                            _ => findings.push(invalid(
                                cv.span,
                                format!(
                                    "`enabled` must be true or false, but it is {}",
                                    with_article(cv.type_name())
                                ),
                                "not a boolean",
                                "write `enabled: true` (unquoted)".to_string(),
                            )),
                        },
                        "utter_for_confirmation" | "utter_on_user_denial" => {
                            let v = if cv.is_null() {
                                None
                            } else {
                                string(ck, cv, findings)
                            };
                            if name == "utter_for_confirmation" {
                                conf.utter_for_confirmation = v;
                            } else {
                                conf.utter_on_user_denial = v;
                            }
                        }
                        other => findings.push(unknown_key(
                            file,
                            ck.span,
                            other,
                            CONFIRMATION_KEYS,
                            "requires_confirmation",
                        )),
                    }
                }
                c.confirmation = Some(conf);
            }
            other => findings.push(unknown_key(
                file,
                key.span,
                other,
                CONSTRAINT_KEYS,
                "a tool constraint",
            )),
        }
    }
}

fn unknown_key(file: FileId, span: Span, key: &str, known: &[&str], what: &str) -> Finding {
    let f = checks::tool_constraint_invalid::RULE
        .finding(format!("unknown key `{key}` in {what}"))
        .at(file, span, "unknown key");
    match did_you_mean(key, known.iter().copied()) {
        Some(s) => f.help(format!("did you mean `{s}`?")),
        None => f.help(format!("the accepted keys are {}", known.join(", "))),
    }
}

/// The byte ranges of a split `skill.md`.
struct Split {
    open: Span,
    yaml: Span,
    body: Span,
}

/// Find the frontmatter: the first non-blank line must be `---` (after
/// trimming), the closing delimiter is the next line that trims to `---`.
fn split(text: &str) -> Option<Split> {
    let mut lines = line_spans(text).skip_while(|s| text[s.range()].trim().is_empty());
    let open = lines.next()?;
    if text[open.range()].trim() != "---" {
        return None;
    }
    let yaml_start = (open.end + 1).min(text.len());
    for line in lines {
        if text[line.range()].trim() == "---" {
            return Some(Split {
                open: Span::new(open.start, open.start + text[open.range()].trim_end().len()),
                yaml: Span::new(yaml_start, line.start),
                body: Span::new((line.end + 1).min(text.len()), text.len()),
            });
        }
    }
    None
}

/// Spans of each line without its `\n`.
fn line_spans(text: &str) -> impl Iterator<Item = Span> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start > text.len() || (start == text.len() && !text.is_empty()) {
            return None;
        }
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let span = Span::new(start, end);
        start = end + 1;
        Some(span)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> (SkillDoc, Vec<Finding>) {
        parse(FileId(0), text)
    }

    #[test]
    fn splits_frontmatter_and_body() {
        let text =
            "\n---\nname: Card\ndescription: Replace a card\n  ---  \n\nBody text.\n---\nmore\n";
        let (doc, findings) = parse_str(text);
        assert!(findings.is_empty(), "{findings:?}");
        assert_eq!(doc.name.as_ref().unwrap().value, "Card");
        let d = doc.description.unwrap();
        assert_eq!(&text[d.span.range()], "Replace a card");
        assert_eq!(doc.body, "Body text.\n---\nmore");
        assert_eq!(&text[doc.header_span.range()], "---");
    }

    #[test]
    fn crlf_and_empty_frontmatter() {
        let (doc, findings) = parse_str("---\r\n---\r\nbody\r\n");
        assert!(findings.is_empty());
        assert!(doc.description.is_none());
        assert!(!doc.malformed);
        assert_eq!(doc.body, "body");
    }

    #[test]
    fn missing_delimiters() {
        for text in [
            "description: x\n",
            "---\ndescription: x\n",
            "----\n---\n",
            "",
        ] {
            let (doc, findings) = parse_str(text);
            assert!(doc.malformed, "{text:?}");
            assert_eq!(findings.len(), 1, "{text:?}");
            assert_eq!(findings[0].code, "skill.invalid_frontmatter_delimiter");
        }
    }

    #[test]
    fn strict_types_and_unknown_keys() {
        let text = "---\nname: 3\ndescription: ok\nhidden: \"yes\"\nrequires: x\nidd: 1\n---\nb\n";
        let (_, findings) = parse_str(text);
        let codes: Vec<&str> = findings.iter().map(|f| f.code).collect();
        assert_eq!(
            codes,
            [
                "skill.invalid_frontmatter",
                "skill.invalid_boolean_frontmatter",
                "skill.requires_removed",
                "skill.unknown_frontmatter_key",
            ]
        );
    }

    #[test]
    fn import_tools_and_constraints() {
        let text = "---\ndescription: d\nimport_tools:\n  - a\n  - mcp/srv:tool_1\n  - mcp/bad\n  - 3\ntool_constraints:\n  - a:\n      requires: x\n  - b:\n  - c\n---\nb\n";
        let (doc, findings) = parse_str(text);
        let names: Vec<&str> = doc.import_tools.iter().map(|s| s.value.as_str()).collect();
        assert_eq!(names, ["a", "mcp/srv:tool_1"]);
        let tools: Vec<&str> = doc
            .tool_constraints
            .iter()
            .map(|c| c.tool.value.as_str())
            .collect();
        assert_eq!(tools, ["a", "b"]);
        assert!(doc.tool_constraints[1].requires.is_none());
        assert_eq!(
            doc.tool_constraints[0].requires.as_ref().unwrap().value,
            "x"
        );
        let codes: Vec<&str> = findings.iter().map(|f| f.code).collect();
        assert_eq!(
            codes,
            [
                "import_tools.invalid",
                "import_tools.invalid",
                "tool_constraint.invalid"
            ]
        );
    }

    #[test]
    fn constraint_options() {
        let text = "---\ndescription: d\ntool_constraints:\n  - a:\n      requires: \"session.a.b == 'x'\"\n      requires_confirmation:\n        enabled: true\n        utter_for_confirmation: utter_ask\n      on_success: utter_ok\n  - b:\n      require: x\n      requires_confirmation:\n  - c:\n      requires_confirmation:\n        enabled: \"true\"\n        utter_on_denial: u\n      on_failure: 3\n---\nb\n";
        let (doc, findings) = parse_str(text);
        let a = &doc.tool_constraints[0];
        let req = a.requires.as_ref().unwrap();
        assert!(req.exact);
        assert_eq!(&text[req.inner.range()], "session.a.b == 'x'");
        assert_eq!(&text[req.map(Span::new(8, 11)).range()], "a.b");
        let conf = a.confirmation.as_ref().unwrap();
        assert!(conf.enabled);
        assert_eq!(
            conf.utter_for_confirmation.as_ref().unwrap().value,
            "utter_ask"
        );
        assert_eq!(a.on_success.as_ref().unwrap().value, "utter_ok");
        let messages: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "unknown key `require` in a tool constraint",
                "`requires_confirmation` must be a mapping, but it is empty (null)",
                "`enabled` must be true or false, but it is a string",
                "unknown key `utter_on_denial` in requires_confirmation",
                "`on_failure` must be a string, but it is an integer",
            ]
        );
        assert!(findings.iter().all(|f| f.code == "tool_constraint.invalid"));
    }

    #[test]
    fn mcp_entries() {
        assert_eq!(
            parse_mcp("ledger:issue_credit"),
            Ok(("ledger", "issue_credit"))
        );
        assert!(parse_mcp("ledger").is_err());
        assert!(parse_mcp("a:b:c").is_err());
        assert!(parse_mcp("_x:t").is_err());
        assert!(parse_mcp("x:t.y").is_err());
        assert!(parse_mcp(&format!("x:{}", "t".repeat(65))).is_err());
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "(---|\\n|description: |name|: |\"|'|- |\\[|\\{|&a|\\*a|é|\\r| |x){0,40}") {
            let (doc, findings) = parse_str(&s);
            for f in &findings {
                let span = f.primary.as_ref().unwrap().span;
                proptest::prop_assert!(span.end <= s.len() && s.is_char_boundary(span.start) && s.is_char_boundary(span.end));
            }
            let _ = doc;
        }

        #[test]
        fn never_panics_on_any_text(s in "\\PC{0,200}") {
            let _ = parse_str(&s);
        }
    }
}
