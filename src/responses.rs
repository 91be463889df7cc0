//! `responses.yml`: typed responses with spans, and the merged registry.
//!
//! Files: `skills/<id>/responses.yml` (folders in sorted order) and the
//! agent-root `responses.yml`. Names are global; a later file replaces the
//! whole response of the same name (variants are never merged): skill files
//! in folder order, then the root file, which wins over all of them
//! (config-content.md §1.1). [`ResponseRegistry::response`] answers which
//! definition is used.
//!
//! Reading is lenient, the way the reference validator reads (§1.10): every
//! valid row is kept, every bad row becomes a finding, and a response with
//! no valid row is left out of the registry (references to it are then
//! unknown). Only the top-level `responses:` mapping is read; responses
//! written at the top level (without `responses:`) are a finding, not
//! silently dropped as in the reference.
//!
//! Variant `condition` strings are kept with their spans, unchecked: the
//! condition grammar validates them.

use crate::checks::{
    response_invalid_button, response_invalid_button_payload, response_invalid_variant_key,
    response_invalid_variant_shape, response_outside_responses_key, response_unknown_top_level_key,
};
use crate::diagnostic::Finding;
use crate::memory::{Visibility, PROJECT_NAMESPACE, SYSTEM_NAMESPACE};
use crate::model::Model;
use crate::skill_md::Spanned;
use crate::source::{FileId, Span};
use crate::suggest::{did_you_mean, with_article};

/// "a string", "a list", ... or "nothing" for null, for `found ...`.
pub(crate) fn found(n: &Node) -> String {
    if n.is_null() {
        "nothing".to_string()
    } else {
        with_article(n.type_name())
    }
}
use crate::yaml::{self, inner_span, Node, Value};
use std::collections::BTreeMap;

/// Keys a variant mapping may have.
pub const VARIANT_KEYS: &[&str] = &["buttons", "condition", "metadata", "text"];
/// Keys a static button may have.
pub const BUTTON_KEYS: &[&str] = &["payload", "title"];

/// Which file a response comes from (its layer in the merge).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// `skills/<id>/responses.yml`: the folder name is the observing skill.
    Skill(String),
    /// The agent-root `responses.yml` (highest priority).
    Root,
}

/// One parsed `responses.yml`.
#[derive(Debug, Clone)]
pub struct ResponseFile {
    pub file: FileId,
    pub layer: Layer,
    /// Responses with at least one valid variant, in source order.
    pub responses: Vec<Response>,
    /// The raw YAML tree.
    pub node: Option<Node>,
}

/// One response: a name and its variants.
#[derive(Debug, Clone)]
pub struct Response {
    pub name: String,
    pub file: FileId,
    pub layer: Layer,
    /// Span of the response's key.
    pub name_span: Span,
    /// Valid variants in YAML order (at least one).
    pub variants: Vec<Variant>,
}

/// One variant of a response.
#[derive(Debug, Clone)]
pub struct Variant {
    /// 0-based position in the YAML list (invalid rows keep their number).
    pub index: usize,
    /// The whole variant (scalar or mapping).
    pub span: Span,
    /// The body, rendered the way Python renders the scalar (`yes` →
    /// `True`); `""` when `text` is missing or null.
    pub text: String,
    /// The `text` value (the scalar itself for the shorthand form); `None`
    /// when the key is missing.
    pub text_span: Option<Span>,
    /// The text content without quotes or block header.
    pub text_inner: Option<Span>,
    pub condition: Option<VariantCondition>,
    pub buttons: Buttons,
    /// The `metadata` mapping, when it is one.
    pub metadata: Option<Node>,
    /// `metadata.rephrase` is truthy (Python truthiness).
    pub rephrase: bool,
}

/// A variant's `condition`, unparsed.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantCondition {
    pub expr: String,
    /// The value node (with quotes).
    pub span: Span,
    /// The string's content (inside quotes), for condition diagnostics.
    pub inner: Span,
}

/// The buttons of a variant.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Buttons {
    #[default]
    None,
    /// Valid static buttons (invalid ones are dropped).
    Static(Vec<Button>),
    /// `buttons: {source: <tool>}`: a local tool produces them.
    Source(Spanned<String>),
}

/// One static button.
#[derive(Debug, Clone, PartialEq)]
pub struct Button {
    /// 0-based position in the `buttons` list.
    pub index: usize,
    pub span: Span,
    pub title: Spanned<String>,
    pub payload: Option<Spanned<String>>,
}

impl Button {
    /// The payload sent on tap: the payload, else the title.
    pub fn payload_or_title(&self) -> &str {
        self.payload.as_ref().unwrap_or(&self.title).value.as_str()
    }
}

impl Variant {
    /// The text is empty or whitespace only (train refuses it).
    pub fn is_empty_body(&self) -> bool {
        is_empty_body(&self.text)
    }
    /// A *default* variant: no condition (runtime: or a blank one).
    pub fn is_default(&self) -> bool {
        self.condition.is_none()
    }
}

impl Response {
    /// The variants whose body is empty.
    pub fn empty_bodies(&self) -> impl Iterator<Item = &Variant> {
        self.variants.iter().filter(|v| v.is_empty_body())
    }
}

/// Whether a rendered response text counts as empty.
pub fn is_empty_body(text: &str) -> bool {
    text.trim().is_empty()
}

/// All response files, merged (config-content.md §1.1).
#[derive(Debug, Clone, Default)]
pub struct ResponseRegistry {
    /// Files in merge order: skill files by folder name, then the root.
    pub files: Vec<ResponseFile>,
    /// Name → (file index, response index) of the winning definition.
    winners: BTreeMap<String, (usize, usize)>,
}

impl ResponseRegistry {
    /// Merge files; they are put in layer order first.
    pub fn build(mut files: Vec<ResponseFile>) -> Self {
        files.sort_by(|a, b| a.layer.cmp(&b.layer));
        let mut winners = BTreeMap::new();
        for (fi, f) in files.iter().enumerate() {
            for (ri, r) in f.responses.iter().enumerate() {
                // Within one file the last definition wins (YAML duplicate
                // keys are reported by the reader).
                winners.insert(r.name.clone(), (fi, ri));
            }
        }
        ResponseRegistry { files, winners }
    }

    /// The definition in effect for `name`.
    pub fn response(&self, name: &str) -> Option<&Response> {
        let &(f, r) = self.winners.get(name)?;
        Some(&self.files[f].responses[r])
    }

    /// Every known name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.winners.keys().map(String::as_str)
    }

    /// Every definition of `name` in merge order (the last one is used).
    pub fn definitions<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Response> + 'a {
        self.all().filter(move |r| r.name == name)
    }

    /// Every response of every file, in merge order.
    pub fn all(&self) -> impl Iterator<Item = &Response> {
        self.files.iter().flat_map(|f| f.responses.iter())
    }

    /// Whether `r` is the definition in effect for its name.
    pub fn is_winner(&self, r: &Response) -> bool {
        self.response(&r.name)
            .is_some_and(|w| w.file == r.file && w.name_span == r.name_span)
    }
}

// ---------------------------------------------------------------------------
// Parsing

/// Read one `responses.yml` leniently: the valid responses plus findings.
pub fn parse_file(
    file: FileId,
    layer: Layer,
    text: &str,
    root: Option<Node>,
) -> (ResponseFile, Vec<Finding>) {
    let mut p = Parser {
        file,
        text,
        layer: layer.clone(),
        out: Vec::new(),
    };
    let mut responses = Vec::new();
    if let Some(root) = &root {
        p.document(root, &mut responses);
    }
    (
        ResponseFile {
            file,
            layer,
            responses,
            node: root,
        },
        p.out,
    )
}

struct Parser<'t> {
    file: FileId,
    text: &'t str,
    layer: Layer,
    out: Vec<Finding>,
}

const VARIANT_EXAMPLE: &str =
    "write each variant as `- text: \"...\"` (optionally with `condition`, `buttons`, `metadata`)";

impl Parser<'_> {
    fn src(&self, n: &Node) -> &str {
        self.text.get(n.span.range()).unwrap_or("")
    }

    fn shape(&mut self, span: Span, msg: String, label: &str, help: &str) {
        self.out.push(
            response_invalid_variant_shape::RULE
                .finding(msg)
                .at(self.file, span, label)
                .help(help.to_string()),
        );
    }

    /// The span to point at for a value: the value, or the key when the value
    /// is an implicit null (empty span).
    fn value_or_key(key: &Node, value: &Node) -> Span {
        if value.span.is_empty() {
            key.span
        } else {
            value.span
        }
    }

    fn document(&mut self, root: &Node, responses: &mut Vec<Response>) {
        if root.is_null() {
            return;
        }
        if root.as_map().is_none() {
            self.shape(
                root.span,
                format!(
                    "responses.yml must be a mapping with a `responses:` key, found {}",
                    found(root)
                ),
                "not a mapping",
                "start the file with `responses:` and list each response under it: `utter_greet:` then `- text: \"Hello!\"`",
            );
            return;
        }
        let has_responses = root.get("responses").is_some();
        for (k, v) in root.entries() {
            let key = k.key_str().unwrap_or_default();
            if key == "responses" && k.as_str().is_some() {
                self.responses(k, v, responses);
            } else if v.as_seq().is_some() && !has_responses {
                self.out.push(
                    response_outside_responses_key::RULE
                        .finding(format!(
                            "response `{key}` is written at the top level, outside `responses:`, and is never read"
                        ))
                        .at(self.file, k.span, "not under `responses:`")
                        .help("add a line `responses:` at the top of the file and indent every response under it"),
                );
            } else if v.as_seq().is_some() {
                self.out.push(
                    response_outside_responses_key::RULE
                        .finding(format!(
                            "response `{key}` is written at the top level, outside `responses:`, and is never read"
                        ))
                        .at(self.file, k.span, "not under `responses:`")
                        .help(format!("indent `{key}:` and its variants under the `responses:` key")),
                );
            } else {
                let help = match did_you_mean(&key, ["responses"]) {
                    Some(s) => format!("did you mean `{s}:`? Only `responses:` is read"),
                    None => {
                        "only `responses:` is read in responses.yml; remove this key".to_string()
                    }
                };
                self.out.push(
                    response_unknown_top_level_key::RULE
                        .finding(format!("top-level key `{key}` in responses.yml is ignored"))
                        .at(self.file, k.span, "ignored")
                        .help(help),
                );
            }
        }
    }

    fn responses(&mut self, key: &Node, map: &Node, out: &mut Vec<Response>) {
        if map.is_null() {
            return;
        }
        if map.as_map().is_none() {
            self.shape(
                Self::value_or_key(key, map),
                format!(
                    "`responses` must be a mapping of response names to variants, found {}",
                    found(map)
                ),
                "not a mapping",
                "write `responses:` then one key per response, e.g. `  utter_greet:` followed by `    - text: \"Hello!\"`",
            );
            return;
        }
        for (k, v) in map.entries() {
            let Some(name) = k.key_str() else {
                self.shape(
                    k.span,
                    "a response name must be a string".to_string(),
                    "not a name",
                    "use a plain name such as `utter_greet`",
                );
                continue;
            };
            if let Some(r) = self.response(&name, k, v) {
                out.push(r);
            }
        }
    }

    fn response(&mut self, name: &str, key: &Node, value: &Node) -> Option<Response> {
        let items = match value.as_seq() {
            Some(items) if !items.is_empty() => items,
            _ => {
                let found = if value.as_seq().is_some() {
                    "an empty list".to_string()
                } else {
                    found(value)
                };
                self.shape(
                    Self::value_or_key(key, value),
                    format!(
                        "response `{name}` must be a non-empty list of variants, found {found}"
                    ),
                    "expected a list of variants",
                    VARIANT_EXAMPLE,
                );
                return None;
            }
        };
        let variants: Vec<Variant> = items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| self.variant(name, i, item))
            .collect();
        if variants.is_empty() {
            return None;
        }
        Some(Response {
            name: name.to_string(),
            file: self.file,
            layer: self.layer.clone(),
            name_span: key.span,
            variants,
        })
    }

    fn variant(&mut self, name: &str, index: usize, item: &Node) -> Option<Variant> {
        let loc = format!("variant {} of response `{name}`", index + 1);
        let mut v = Variant {
            index,
            span: item.span,
            text: String::new(),
            text_span: None,
            text_inner: None,
            condition: None,
            buttons: Buttons::None,
            metadata: None,
            rephrase: false,
        };
        match &item.value {
            Value::Map(_) => {}
            Value::Null | Value::Seq(_) => {
                self.shape(
                    item.span,
                    format!(
                        "{loc} must be a mapping with `text:` or a plain text, found {}",
                        found(item)
                    ),
                    "not a variant",
                    VARIANT_EXAMPLE,
                );
                return None;
            }
            _ => {
                v.text = render_scalar(&item.value);
                v.text_span = Some(item.span);
                v.text_inner = Some(inner_span(item, self.text));
                return Some(v);
            }
        }
        for (k, val) in item.entries() {
            let key = k.key_str().unwrap_or_default();
            match key.as_str() {
                "text" if k.as_str().is_some() => {
                    if matches!(val.value, Value::Seq(_) | Value::Map(_)) {
                        self.shape(
                            val.span,
                            format!(
                                "`text` of {loc} must be a text, found {}",
                                found(val)
                            ),
                            "not a text",
                            "write the text on one line in quotes, or as a block with `text: |`",
                        );
                        v.text_span = Some(val.span);
                    } else {
                        v.text = render_scalar(&val.value);
                        v.text_span = Some(Self::value_or_key(k, val));
                        v.text_inner = Some(inner_span(val, self.text));
                    }
                }
                "condition" if k.as_str().is_some() => match &val.value {
                    Value::Str(s) => {
                        v.condition = Some(VariantCondition {
                            expr: s.clone(),
                            span: val.span,
                            inner: inner_span(val, self.text),
                        })
                    }
                    Value::Null => {}
                    _ => self.shape(
                        val.span,
                        format!(
                            "`condition` of {loc} must be a string, found {}; the variant is used as a default",
                            found(val)
                        ),
                        "not a string",
                        "quote the condition, e.g. `condition: 'session.project.is_member == True'`",
                    ),
                },
                "metadata" if k.as_str().is_some() => {
                    if val.as_map().is_some() {
                        v.rephrase = val.get("rephrase").is_some_and(truthy);
                        v.metadata = Some(val.clone());
                    }
                }
                "buttons" if k.as_str().is_some() => v.buttons = self.buttons(&loc, k, val),
                _ => {
                    let help = match did_you_mean(&key, VARIANT_KEYS.iter().copied()) {
                        Some(s) => format!("did you mean `{s}`? A variant may have: {}", VARIANT_KEYS.join(", ")),
                        None if key == "dynamic_buttons" => {
                            "for buttons made by a tool write `buttons: {source: <tool name>}`".to_string()
                        }
                        None => format!("a variant may have: {}; remove this key", VARIANT_KEYS.join(", ")),
                    };
                    self.out.push(
                        response_invalid_variant_key::RULE
                            .finding(format!("unknown key `{key}` in {loc}"))
                            .at(self.file, k.span, "unknown key")
                            .help(help),
                    );
                }
            }
        }
        Some(v)
    }

    fn buttons(&mut self, loc: &str, key: &Node, val: &Node) -> Buttons {
        match &val.value {
            Value::Seq(items) => {
                let mut out = Vec::new();
                for (j, item) in items.iter().enumerate() {
                    if let Some(b) = self.button(loc, j, item) {
                        out.push(b);
                    }
                }
                Buttons::Static(out)
            }
            Value::Map(_) => {
                for (k, _) in val.entries() {
                    if k.as_str() != Some("source") {
                        let key = k.key_str().unwrap_or_default();
                        self.out.push(
                            response_invalid_variant_key::RULE
                                .finding(format!("unknown key `{key}` in the button source of {loc}"))
                                .at(self.file, k.span, "unknown key")
                                .help("a button source has only `source: <tool name>`; for fixed buttons write a list of `- title: ...`"),
                        );
                    }
                }
                match val.get("source") {
                    Some(s) if s.as_str().is_some_and(|t| !t.trim().is_empty()) => {
                        Buttons::Source(Spanned {
                            value: s.as_str().unwrap_or_default().trim().to_string(),
                            span: s.span,
                        })
                    }
                    other => {
                        let span = other.map_or(val.span, |s| Self::value_or_key(key, s));
                        self.shape(
                            span,
                            format!("the button source of {loc} must name a tool"),
                            "no tool name",
                            "write `buttons: {source: <name of a local @tool that returns the buttons>}`",
                        );
                        Buttons::None
                    }
                }
            }
            Value::Null => Buttons::None,
            _ => {
                self.shape(
                    val.span,
                    format!(
                        "`buttons` of {loc} must be a list of buttons or `{{source: <tool>}}`, found {}",
                        found(val)
                    ),
                    "not buttons",
                    "write `buttons:` then `- title: \"Yes\"` and `payload: \"...\"` for each button",
                );
                Buttons::None
            }
        }
    }

    fn button(&mut self, loc: &str, j: usize, item: &Node) -> Option<Button> {
        let bloc = format!("button {} of {loc}", j + 1);
        if item.as_map().is_none() {
            self.shape(
                item.span,
                format!("{bloc} must be a mapping, found {}", found(item)),
                "not a button",
                "write each button as `- title: \"Yes\"` with an optional `payload: \"...\"`",
            );
            return None;
        }
        for (k, _) in item.entries() {
            let key = k.key_str().unwrap_or_default();
            if k.as_str().is_some() && BUTTON_KEYS.contains(&key.as_str()) {
                continue;
            }
            let help = match did_you_mean(&key, BUTTON_KEYS.iter().copied()) {
                Some(s) => {
                    format!("did you mean `{s}`? A button has `title` and optional `payload`")
                }
                None => {
                    "a button has `title` and an optional `payload`; remove this key".to_string()
                }
            };
            self.out.push(
                response_invalid_variant_key::RULE
                    .finding(format!("unknown key `{key}` in {bloc}"))
                    .at(self.file, k.span, "unknown key")
                    .help(help),
            );
        }
        let title = match item.get("title") {
            Some(t) if t.as_str().is_some_and(|s| !s.trim().is_empty()) => Spanned {
                value: t.as_str().unwrap_or_default().to_string(),
                span: t.span,
            },
            Some(t) if t.as_str().is_some() => {
                self.invalid_button(
                    t.span,
                    format!("{bloc} has a blank `title`"),
                    "blank",
                    "write the label the user sees, e.g. `title: \"Yes, go ahead\"`".into(),
                );
                return None;
            }
            Some(t) if !t.is_null() && t.as_map().is_none() && t.as_seq().is_none() => {
                let src = self.src(t).to_string();
                self.invalid_button(
                    t.span,
                    format!(
                        "`title` of {bloc} must be a quoted string; it is read as {}",
                        found(t)
                    ),
                    "not a string",
                    format!("quote it: `title: \"{}\"`", src.replace('"', "\\\"")),
                );
                return None;
            }
            Some(t) if !t.is_null() => {
                self.invalid_button(
                    t.span,
                    format!("`title` of {bloc} must be a string, found {}", found(t)),
                    "not a string",
                    "write the label the user sees, e.g. `title: \"Yes\"`".into(),
                );
                return None;
            }
            other => {
                let span = match (
                    other,
                    item.as_map()
                        .and_then(|m| m.iter().find(|(k, _)| k.as_str() == Some("title"))),
                ) {
                    (_, Some((k, _))) => k.span,
                    _ => item
                        .as_map()
                        .and_then(|m| m.first())
                        .map_or(item.span, |(k, _)| k.span),
                };
                self.invalid_button(
                    span,
                    format!("{bloc} has no `title`"),
                    "no title",
                    "add the label the user sees, e.g. `title: \"Yes\"` (quote labels such as \"Yes\" or \"42\")".into(),
                );
                return None;
            }
        };
        let payload = match item.get("payload") {
            None => None,
            Some(p) if p.as_str().is_some_and(|s| !s.trim().is_empty()) => {
                let value = p.as_str().unwrap_or_default().to_string();
                if let Some(rest) = value.strip_prefix("set:") {
                    if let Err(why) = check_set_payload(rest) {
                        self.out.push(
                            response_invalid_button_payload::RULE
                                .finding(format!("invalid set-memory payload in {bloc}: {why}"))
                                .at(self.file, inner_span(p, self.text), why)
                                .help("write `set:session.<skill id or project>.<entry>=<value>`, e.g. `set:session.project.delivery_slot=am`"),
                        );
                    }
                }
                Some(Spanned {
                    value,
                    span: p.span,
                })
            }
            Some(p) => {
                let what = if p.as_str().is_some() {
                    "blank".to_string()
                } else {
                    found(p)
                };
                let span = if p.span.is_empty() {
                    item.as_map()
                        .and_then(|m| m.iter().rev().find(|(k, _)| k.as_str() == Some("payload")))
                        .map_or(item.span, |(k, _)| k.span)
                } else {
                    p.span
                };
                self.invalid_button(
                    span,
                    format!("`payload` of {bloc} must be a non-blank string, found {what}"),
                    "invalid payload",
                    "quote the payload, or remove the key to send the title".into(),
                );
                return None;
            }
        };
        Some(Button {
            index: j,
            span: item.span,
            title,
            payload,
        })
    }

    fn invalid_button(&mut self, span: Span, msg: String, label: &str, help: String) {
        self.out.push(
            response_invalid_button::RULE
                .finding(msg)
                .at(self.file, span, label)
                .help(help),
        );
    }
}

/// Check the part after `set:` of a set-memory payload (§1.6).
pub fn check_set_payload(rest: &str) -> Result<(String, String), &'static str> {
    let Some((reference, value)) = rest.split_once('=') else {
        return Err("no `=` between the memory reference and the value");
    };
    if value.is_empty() {
        return Err("the value after `=` is empty");
    }
    let Some(key) = reference.trim().strip_prefix("session.") else {
        return Err("the reference must start with `session.`");
    };
    let parts: Vec<&str> = key.split('.').collect();
    if parts.len() != 2 {
        return Err(
            "the reference must be `session.<owner>.<entry>` (exactly two names after `session.`)",
        );
    }
    if parts.iter().any(|p| p.is_empty()) {
        return Err("the owner or the entry name is empty");
    }
    Ok((key.to_string(), value.to_string()))
}

/// Python truthiness of a YAML value.
fn truthy(n: &Node) -> bool {
    match &n.value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) | Value::Date(s) => !s.is_empty(),
        Value::Seq(v) => !v.is_empty(),
        Value::Map(v) => !v.is_empty(),
    }
}

/// A scalar rendered the way Python's `str()` renders it (`True`, `1.5`,
/// `3.0`); null is `""`.
pub fn render_scalar(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => py_float(*f),
        Value::Str(s) | Value::Date(s) => s.clone(),
        Value::Seq(_) | Value::Map(_) => String::new(),
    }
}

fn py_float(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }.into()
    } else if f.fract() == 0.0 && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

// ---------------------------------------------------------------------------
// Placeholders

/// One `{...}` placeholder in a response text (§1.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placeholder {
    /// `{session.<ref>}`; `reference` is what follows `session.`.
    Session { reference: String },
    /// `{<entry>}`: a bare name.
    Bare { name: String },
}

impl Placeholder {
    /// The placeholder as written, braces included.
    pub fn written(&self) -> String {
        match self {
            Placeholder::Session { reference } => format!("{{session.{reference}}}"),
            Placeholder::Bare { name } => format!("{{{name}}}"),
        }
    }
}

/// The placeholders of a template with their byte ranges in it. Other brace
/// shapes (`{{x}}`, `{ x }`, `{1}`) are not placeholders.
pub fn placeholders(template: &str) -> Vec<(Placeholder, std::ops::Range<usize>)> {
    let b = template.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'{' || (i > 0 && b[i - 1] == b'{') {
            i += 1;
            continue;
        }
        let Some(close) = template[i + 1..].find('}').map(|c| i + 1 + c) else {
            break;
        };
        let inner = &template[i + 1..close];
        let doubled = b.get(close + 1) == Some(&b'}');
        let found = if let Some(reference) = inner.strip_prefix("session.") {
            (!reference.is_empty()).then(|| Placeholder::Session {
                reference: reference.to_string(),
            })
        } else if is_identifier(inner) {
            Some(Placeholder::Bare {
                name: inner.to_string(),
            })
        } else {
            None
        };
        match found {
            Some(p) if !doubled => {
                out.push((p, i..close + 1));
                i = close + 1;
            }
            _ => i += 1,
        }
    }
    out
}

fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What a placeholder resolves to, seen from a response file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryLookup {
    /// A declared, readable entry (or one of a bundled default skill).
    Found,
    /// `{session.x}` without a second dot.
    NoDot,
    /// `{session.system.*}`: engine memory, never readable.
    Reserved,
    /// Declared, but not readable from this file (private to another skill).
    NotReadable { owner: String },
    /// Declared nowhere; `candidates` are the names valid here, for
    /// "did you mean".
    Undeclared { candidates: Vec<String> },
}

/// Resolve a placeholder of a response in `layer` against declared memory.
///
/// This is the ONE place that asks the memory model which entries exist and
/// who may read them (config-content.md §1.5, §1.11): a skill file reads the
/// skill's own fields, other skills' public fields and project fields (bare
/// names: the skill's, then the project's); the root file can be delivered
/// from any skill, so it reads public fields and project fields (bare names:
/// any skill's field or a project field). Namespaces `default_*` belong to
/// the engine's bundled skills and are accepted.
pub fn lookup_memory(model: &Model, layer: &Layer, p: &Placeholder) -> MemoryLookup {
    let observer = match layer {
        Layer::Skill(s) => model.skill(s),
        Layer::Root => None,
    };
    match p {
        Placeholder::Bare { name } => {
            let found = model.memory.project_field(name).is_some()
                || match (layer, observer) {
                    (Layer::Skill(_), Some(s)) => model.skill_memory(&s.id).field(name).is_some(),
                    (Layer::Skill(_), None) => false,
                    (Layer::Root, _) => model
                        .skills
                        .iter()
                        .any(|s| model.skill_memory(&s.id).field(name).is_some()),
                };
            if found {
                return MemoryLookup::Found;
            }
            let mut candidates: Vec<String> = model
                .memory
                .project
                .iter()
                .map(|f| f.name.clone())
                .collect();
            for s in &model.skills {
                if layer == &Layer::Root || observer.is_some_and(|o| o.id == s.id) {
                    candidates.extend(
                        model
                            .skill_memory(&s.id)
                            .fields
                            .iter()
                            .map(|f| f.name.clone()),
                    );
                }
            }
            MemoryLookup::Undeclared { candidates }
        }
        Placeholder::Session { reference } => {
            let Some((ns, entry)) = reference.split_once('.') else {
                return MemoryLookup::NoDot;
            };
            if ns == SYSTEM_NAMESPACE {
                return MemoryLookup::Reserved;
            }
            if ns == PROJECT_NAMESPACE {
                if model.memory.project_field(entry).is_some() {
                    return MemoryLookup::Found;
                }
            } else if let Some(owner) = model.skill(ns) {
                if let Some(f) = model.skill_memory(&owner.id).field(entry) {
                    let own = observer.is_some_and(|o| o.id == owner.id);
                    if f.visibility == Visibility::Private && !own {
                        return MemoryLookup::NotReadable {
                            owner: owner.id.clone(),
                        };
                    }
                    return MemoryLookup::Found;
                }
            } else if ns.starts_with("default_") {
                return MemoryLookup::Found;
            }
            let mut candidates: Vec<String> = model
                .memory
                .project
                .iter()
                .map(|f| format!("{PROJECT_NAMESPACE}.{}", f.name))
                .collect();
            for s in &model.skills {
                let own = observer.is_some_and(|o| o.id == s.id);
                candidates.extend(
                    model
                        .skill_memory(&s.id)
                        .fields
                        .iter()
                        .filter(|f| own || f.visibility != Visibility::Private)
                        .map(|f| format!("{}.{}", s.id, f.name)),
                );
            }
            MemoryLookup::Undeclared { candidates }
        }
    }
}

/// The placeholders of a scalar node, each with its span in the file: the
/// placeholder is searched in the node's source text, so spans are exact
/// for plain, quoted and block scalars (falling back to the node's span).
pub fn node_placeholders(text: &str, span: Span, value: &str) -> Vec<(Placeholder, Span)> {
    let src = text.get(span.range()).unwrap_or("");
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    placeholders(value)
        .into_iter()
        .map(|(p, _)| {
            let w = p.written();
            let nth = seen.entry(w.clone()).or_insert(0);
            let at = src.match_indices(&w).nth(*nth).map(|(i, _)| i);
            *nth += 1;
            let s = match at {
                Some(i) => Span::new(span.start + i, span.start + i + w.len()),
                None => span,
            };
            (p, s)
        })
        .collect()
}

/// Shorthand used by the parse stage: parse the YAML text and the responses.
pub fn parse_text(file: FileId, layer: Layer, text: &str) -> (ResponseFile, Vec<Finding>) {
    let parsed = yaml::parse(text);
    let mut findings: Vec<Finding> = parsed
        .issues
        .iter()
        .map(|i| crate::parse::yaml_issue(file, i, 0))
        .collect();
    let (rf, mut more) = parse_file(file, layer, text, parsed.root);
    findings.append(&mut more);
    (rf, findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn parsing_never_panics(s in "(responses|utter_x|text|condition|buttons|title|payload|- |: |\\n|  |\\{|\\}|session\\.a\\.b|/set|\"|é){0,40}") {
            let _ = parse_text(FileId(0), Layer::Root, &s);
            let _ = placeholders(&s);
        }

        #[test]
        fn parsing_never_panics_on_any_text(s in "\\PC{0,200}") {
            let _ = parse_text(FileId(0), Layer::Skill("s".into()), &s);
            let _ = placeholders(&s);
        }
    }

    #[test]
    fn placeholder_shapes() {
        let ps: Vec<Placeholder> = placeholders(
            "Hi {name}, {session.card_replace.reason} {{x}} { y } {1} {session.} {a.b}",
        )
        .into_iter()
        .map(|(p, _)| p)
        .collect();
        assert_eq!(
            ps,
            vec![
                Placeholder::Bare {
                    name: "name".into()
                },
                Placeholder::Session {
                    reference: "card_replace.reason".into()
                },
            ]
        );
    }

    #[test]
    fn set_payloads() {
        assert!(check_set_payload("session.project.slot=am").is_ok());
        assert!(check_set_payload("session.project.slot= ").is_ok());
        assert!(check_set_payload("session.project.slot").is_err());
        assert!(check_set_payload("session.project.slot=").is_err());
        assert!(check_set_payload("project.slot=x").is_err());
        assert!(check_set_payload("session.a.b.c=x").is_err());
        assert!(check_set_payload("session..b=x").is_err());
    }

    #[test]
    fn scalar_rendering() {
        assert_eq!(render_scalar(&Value::Bool(true)), "True");
        assert_eq!(render_scalar(&Value::Float(1.5)), "1.5");
        assert_eq!(render_scalar(&Value::Float(3.0)), "3.0");
        assert_eq!(render_scalar(&Value::Null), "");
    }

    fn parse(text: &str) -> (ResponseFile, Vec<&'static str>) {
        let (rf, fs) = parse_text(FileId(0), Layer::Root, text);
        (rf, fs.iter().map(|f| f.code).collect())
    }

    #[test]
    fn lenient_reading() {
        let (rf, codes) = parse(
            "responses:\n  utter_a:\n    - text: Hi\n      image: x.png\n    - ~\n  utter_b: []\n  utter_c:\n    - Yes\n    - text: Pick\n      buttons:\n        - title: Yes\n        - title: \"No\"\n          payload: \"set:session.project.x\"\n",
        );
        assert_eq!(rf.responses.len(), 2);
        assert_eq!(rf.responses[1].variants[0].text, "True");
        assert!(codes.contains(&"response.invalid_variant_key"));
        assert!(codes.contains(&"response.invalid_variant_shape"));
        assert!(codes.contains(&"response.invalid_button"));
        assert!(codes.contains(&"response.invalid_button_payload"));
    }

    #[test]
    fn flat_layout_is_reported() {
        let (rf, codes) = parse("utter_a:\n  - text: Hi\nversion: \"3.1\"\n");
        assert!(rf.responses.is_empty());
        assert_eq!(
            codes,
            vec![
                "response.outside_responses_key",
                "response.unknown_top_level_key"
            ]
        );
    }
}
