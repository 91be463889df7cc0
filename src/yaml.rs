//! YAML reading with byte spans, the way the Python engine reads it.
//!
//! The Python engine loads YAML with PyYAML's safe loader, which implements
//! YAML 1.1: `yes`/`on` are booleans, `012` is octal, `1:30` is base 60,
//! `2024-01-01` is a date. This module reproduces that reading on top of the
//! `saphyr-parser` event stream while keeping a byte [`Span`] for every key
//! and value, and it reports problems as [`Issue`]s instead of failing:
//! [`parse`] never panics and always returns whatever it could read.
//!
//! Choices worth knowing:
//! - Only the first document is read; a second one is a
//!   [`IssueKind::MultipleDocuments`] issue.
//! - Integers that do not fit in an `i64` become [`Value::Float`] (Python
//!   would keep an exact big integer; a float keeps them numeric).
//! - Merge keys (`<<: *base`) are not expanded: they stay ordinary keys
//!   (repeated `<<` keys are not reported as duplicates).
//! - Plain floats follow PyYAML's own pattern, which is stricter than the
//!   YAML 1.1 spec: `-.5`, `1e5` and `1.0e5` stay strings (the exponent
//!   needs a sign, a leading `.` allows no sign).
//! - Aliases are expanded by copying; expansion stops at
//!   [`MAX_ALIAS_NODES`] copied nodes, and nesting stops at [`MAX_DEPTH`].
//! - Duplicate keys are compared the way Python compares dict keys:
//!   `on`/`true`/`1`/`1.0` are the same key, `1` and `"1"` are not.
//! - After a syntax error the tree built so far is returned: open
//!   collections are closed and a key still waiting for its value gets a
//!   null value.
//!
//! Spans: a scalar covers its source text including quotes (block scalars:
//! from the `|`/`>` indicator to the end of the content, trailing blank
//! lines excluded), without its anchor or tag; an empty (implicit null)
//! scalar is an empty span right after its `:` or the previous token; a
//! collection covers its first token (`[`, `{`, `-` or first key) up to
//! its closing bracket or the end of its last child; an alias node covers
//! the `*alias` token while its copied children keep their original spans.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Tag};

use crate::source::Span;

/// Most nodes that alias expansion may add to one document.
pub const MAX_ALIAS_NODES: usize = 10_000;
/// Deepest collection nesting read; deeper input is a syntax issue.
pub const MAX_DEPTH: usize = 256;

/// The result of [`parse`]: the first document (if any) and all issues.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The first document; `None` for empty input or input with only comments.
    pub root: Option<Node>,
    /// Problems found, sorted by position.
    pub issues: Vec<Issue>,
}

/// One YAML node with its value, source span and written style.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The resolved value.
    pub value: Value,
    /// Byte span in the source (see the module docs for what it covers).
    pub span: Span,
    /// How the node was written.
    pub style: Style,
}

/// How a node was written in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// Unquoted scalar.
    Plain,
    /// `'single quoted'` scalar.
    SingleQuoted,
    /// `"double quoted"` scalar.
    DoubleQuoted,
    /// `|` block scalar.
    Literal,
    /// `>` block scalar.
    Folded,
    /// `[...]` or `{...}` collection.
    Flow,
    /// Indented block collection.
    Block,
    /// `*alias` (the value is a copy of the anchored node).
    Alias,
}

/// A resolved YAML value (YAML 1.1 / PyYAML safe loader rules).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `~`, `null`, empty.
    Null,
    /// `true`, `yes`, `on`, ... (YAML 1.1).
    Bool(bool),
    /// Integer (decimal, octal `012`, hex, binary, base 60).
    Int(i64),
    /// Float, including `.inf`/`.nan` and integers too large for `i64`.
    Float(f64),
    /// String.
    Str(String),
    /// YAML 1.1 timestamp (`2024-01-01`, `2024-01-01T10:00:00Z`), as written.
    Date(String),
    /// Sequence.
    Seq(Vec<Node>),
    /// Mapping in source order, duplicates kept (see [`Node::get`]).
    Map(Vec<(Node, Node)>),
}

/// A problem found while reading YAML.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    /// What kind of problem.
    pub kind: IssueKind,
    /// Where it is.
    pub span: Span,
    /// One-line description.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
    /// A second relevant place (e.g. the first occurrence of a duplicate key).
    pub related: Option<Span>,
}

/// The kinds of [`Issue`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IssueKind {
    /// Invalid YAML (or YAML that PyYAML cannot load).
    Syntax,
    /// A plain scalar that YAML 1.1 and YAML 1.2 read differently (warning).
    AmbiguousScalar,
    /// A mapping key that appears twice (the last one wins).
    DuplicateKey,
    /// Alias expansion stopped (too many nodes, too deep, or recursive).
    AliasLimit,
    /// More than one document; only the first is read.
    MultipleDocuments,
    /// A tag other than `!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, ...
    UnsupportedTag,
}

impl Node {
    /// The value as JSON (dates become strings, maps with non-string keys
    /// use the keys' text).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) | Value::Date(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(_) => J::Object(
                self.entries()
                    .filter_map(|(k, v)| Some((k.key_str()?, v.to_json())))
                    .collect(),
            ),
        }
    }

    /// A node for a JSON value, with no source location (empty spans at 0):
    /// the inverse of [`Node::to_json`] for values read back from a package.
    /// Numbers that fit an `i64` become [`Value::Int`], others
    /// [`Value::Float`]; strings are double-quoted scalars (never re-read as
    /// YAML 1.1 booleans or dates); arrays and objects are flow collections.
    pub fn from_json(json: &serde_json::Value) -> Node {
        use serde_json::Value as J;
        let (value, style) = match json {
            J::Null => (Value::Null, Style::Plain),
            J::Bool(b) => (Value::Bool(*b), Style::Plain),
            J::Number(n) => (
                match n.as_i64() {
                    Some(i) => Value::Int(i),
                    None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
                },
                Style::Plain,
            ),
            J::String(s) => (Value::Str(s.clone()), Style::DoubleQuoted),
            J::Array(items) => (
                Value::Seq(items.iter().map(Node::from_json).collect()),
                Style::Flow,
            ),
            J::Object(map) => (
                Value::Map(
                    map.iter()
                        .map(|(k, v)| {
                            let key = Node {
                                value: Value::Str(k.clone()),
                                span: Span::default(),
                                style: Style::DoubleQuoted,
                            };
                            (key, Node::from_json(v))
                        })
                        .collect(),
                ),
                Style::Flow,
            ),
        };
        Node {
            value,
            span: Span::default(),
            style,
        }
    }

    /// Map lookup by string key; the LAST occurrence wins (PyYAML behaviour).
    /// Only string keys match: `get("true")` does not find the key `on`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .rev()
            .find(|(k, _)| matches!(&k.value, Value::Str(s) if s == key))
            .map(|(_, v)| v)
    }

    /// Map entries with duplicate keys removed, keeping the last occurrence
    /// (in source order of the kept entries); empty for non-maps.
    pub fn entries(&self) -> impl Iterator<Item = (&Node, &Node)> + '_ {
        let es: &[(Node, Node)] = self.as_map().unwrap_or(&[]);
        let mut keep = vec![true; es.len()];
        let mut seen: HashMap<KeyRepr<'_>, usize> = HashMap::new();
        for (i, (k, _)) in es.iter().enumerate() {
            if let Some(r) = key_repr(&k.value) {
                if let Some(prev) = seen.insert(r, i) {
                    keep[prev] = false;
                }
            }
        }
        es.iter()
            .zip(keep)
            .filter(|(_, keep)| *keep)
            .map(|((k, v), _)| (k, v))
    }

    /// The string value (not for dates or other scalars).
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean value.
    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The integer value.
    pub fn as_i64(&self) -> Option<i64> {
        match self.value {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// The numeric value of an integer or float.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The items of a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(v) => Some(v),
            _ => None,
        }
    }

    /// All entries of a mapping, duplicates included.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(v) => Some(v),
            _ => None,
        }
    }

    /// Whether the value is null.
    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// Type name for messages: "null", "boolean", "integer", "number",
    /// "string", "date", "list" or "mapping".
    pub fn type_name(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Date(_) => "date",
            Value::Seq(_) => "list",
            Value::Map(_) => "mapping",
        }
    }

    /// A scalar rendered as text: strings as-is, booleans as `true`/`false`
    /// (so the key `on` gives "true"), numbers as digits, null as "null".
    /// `None` for collections.
    pub fn key_str(&self) -> Option<String> {
        scalar_text(&self.value)
    }
}

/// The span of the content of a scalar: inside the quotes for quoted
/// scalars, after the header line for block scalars, else `node.span`.
pub fn inner_span(node: &Node, text: &str) -> Span {
    let s = node.span;
    let Some(src) = text.get(s.range()) else {
        return s;
    };
    match node.style {
        Style::SingleQuoted | Style::DoubleQuoted => {
            let q = if node.style == Style::SingleQuoted {
                '\''
            } else {
                '"'
            };
            if !src.starts_with(q) {
                return s;
            }
            let end = if src.len() >= 2 && src.ends_with(q) {
                s.end - 1
            } else {
                s.end
            };
            Span::new(s.start + 1, end)
        }
        Style::Literal | Style::Folded => match src.find('\n') {
            Some(nl) => {
                let mut start = s.start + nl + 1;
                let b = text.as_bytes();
                while start < s.end && b[start] == b' ' {
                    start += 1;
                }
                Span::new(start, s.end)
            }
            None => Span::at(s.end),
        },
        _ => s,
    }
}

/// Parse YAML text the way PyYAML's safe loader reads it. Never panics.
pub fn parse(text: &str) -> Parsed {
    let mut b = Builder::new(text);
    let mut parser = Parser::new_from_str(text);
    let max_events = text.len().saturating_mul(8).saturating_add(64);
    let mut events = 0usize;
    let mut documents = 0usize;
    loop {
        events += 1;
        if events > max_events {
            b.issue(
                IssueKind::Syntax,
                Span::at(b.prev_end),
                "the YAML parser did not make progress; reading stopped here".into(),
                None,
            );
            break;
        }
        let item = match catch_unwind(AssertUnwindSafe(|| parser.next_event())) {
            Ok(Some(item)) => item,
            Ok(None) => break,
            Err(_) => {
                b.issue(
                    IssueKind::Syntax,
                    Span::at(b.prev_end),
                    "the YAML parser failed on this input; reading stopped here".into(),
                    None,
                );
                break;
            }
        };
        let (event, raw) = match item {
            Ok(x) => x,
            Err(e) => {
                b.syntax_error(&e);
                break;
            }
        };
        let raw = b.offs.span(raw);
        let mut keep_going = true;
        let mut advance = true;
        match event {
            Event::StreamStart | Event::Nothing | Event::DocumentEnd => advance = false,
            Event::StreamEnd => break,
            Event::DocumentStart(explicit) => {
                documents += 1;
                if documents > 1 {
                    let span = if raw.is_empty() {
                        b.one_char_at(raw.start)
                    } else {
                        raw
                    };
                    b.issue_full(
                        IssueKind::MultipleDocuments,
                        span,
                        "a second YAML document starts here; only the first document is read"
                            .into(),
                        Some(
                            "remove the `---` separator and merge the documents, \
                             or move this document to its own file"
                                .into(),
                        ),
                        None,
                    );
                    break;
                }
                advance = explicit;
            }
            Event::Scalar(value, style, anchor, tag) => {
                advance = !(value.is_empty() && style == ScalarStyle::Plain);
                b.scalar(&value, style, anchor, tag.as_deref(), raw);
            }
            Event::SequenceStart(anchor, tag) => {
                keep_going = b.start(false, anchor, tag.as_deref(), raw);
            }
            Event::MappingStart(anchor, tag) => {
                keep_going = b.start(true, anchor, tag.as_deref(), raw);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                advance = !raw.is_empty();
                b.end(raw);
            }
            Event::Alias(id) => b.alias(id, raw),
        }
        if advance {
            b.prev_end = raw.end;
        }
        if !keep_going {
            break;
        }
    }
    b.close_all();
    b.anchors.clear();
    let root = b.root.take().map(into_node);
    let mut issues = b.issues;
    issues.sort_by_key(|i| i.span.start);
    Parsed { root, issues }
}

// ---------------------------------------------------------------------------
// Byte offsets

/// Converts saphyr's character indices to byte offsets.
struct Offsets {
    len: usize,
    /// Byte offset of every char (plus the end); `None` for ASCII text.
    table: Option<Vec<usize>>,
}

impl Offsets {
    fn new(text: &str) -> Self {
        let table = (!text.is_ascii()).then(|| {
            let mut v: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            v.push(text.len());
            v
        });
        Offsets {
            len: text.len(),
            table,
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.table {
            None => char_index.min(self.len),
            Some(t) => t.get(char_index).copied().unwrap_or(self.len),
        }
    }

    fn span(&self, s: saphyr_parser::Span) -> Span {
        let start = self.byte(s.start.index());
        let end = self.byte(s.end.index()).max(start);
        Span::new(start, end)
    }
}

// ---------------------------------------------------------------------------
// Tree building

/// Internal tree node: children are shared so that anchors are cheap.
#[derive(Debug)]
struct INode {
    kind: IKind,
    span: Span,
    style: Style,
    /// Nodes in this subtree once aliases are expanded.
    count: usize,
    /// Nesting height once aliases are expanded (1 for scalars).
    height: usize,
}

#[derive(Debug)]
enum IKind {
    Scalar(Value),
    Seq(Vec<Rc<INode>>),
    Map(Vec<(Rc<INode>, Rc<INode>)>),
    Alias(Rc<INode>),
}

impl INode {
    fn scalar(value: Value, span: Span, style: Style) -> Self {
        INode {
            kind: IKind::Scalar(value),
            span,
            style,
            count: 1,
            height: 1,
        }
    }

    /// The node an alias stands for (itself otherwise).
    fn target(&self) -> &INode {
        match &self.kind {
            IKind::Alias(t) => t,
            _ => self,
        }
    }
}

/// Converts the internal tree, moving out of nodes that are not shared.
fn into_node(n: Rc<INode>) -> Node {
    let n = match Rc::try_unwrap(n) {
        Ok(n) => n,
        Err(shared) => return to_node(&shared),
    };
    let value = match n.kind {
        IKind::Scalar(v) => v,
        IKind::Seq(items) => Value::Seq(items.into_iter().map(into_node).collect()),
        IKind::Map(es) => Value::Map(
            es.into_iter()
                .map(|(k, v)| (into_node(k), into_node(v)))
                .collect(),
        ),
        IKind::Alias(t) => to_node(&t).value,
    };
    Node {
        value,
        span: n.span,
        style: n.style,
    }
}

fn to_node(n: &INode) -> Node {
    let value = match &n.kind {
        IKind::Scalar(v) => v.clone(),
        IKind::Seq(items) => Value::Seq(items.iter().map(|c| to_node(c)).collect()),
        IKind::Map(es) => Value::Map(es.iter().map(|(k, v)| (to_node(k), to_node(v))).collect()),
        IKind::Alias(t) => to_node(t).value,
    };
    Node {
        value,
        span: n.span,
        style: n.style,
    }
}

/// An open collection.
struct Frame {
    is_map: bool,
    /// Written with `[`/`{` (its end event is the closing bracket).
    bracket: bool,
    style: Style,
    start: usize,
    end: usize,
    anchor: usize,
    items: Vec<Rc<INode>>,
    entries: Vec<(Rc<INode>, Rc<INode>)>,
    pending_key: Option<Rc<INode>>,
    /// Hash of each key seen so far -> index of its (latest) entry.
    seen: HashMap<u64, usize>,
    count: usize,
    height: usize,
}

/// How a tag is handled.
enum TagKind {
    /// The non-specific `!` tag: the scalar is a string.
    NonSpecific,
    /// `!!name` (or `!<tag:yaml.org,2002:name>`).
    Core(String),
    /// Anything else.
    Other,
}

fn classify_tag(tag: &Tag) -> TagKind {
    const CORE: &str = "tag:yaml.org,2002:";
    if tag.handle.is_empty() && tag.suffix == "!" {
        TagKind::NonSpecific
    } else if tag.handle == CORE {
        TagKind::Core(tag.suffix.clone())
    } else if let Some(rest) = tag
        .suffix
        .strip_prefix(CORE)
        .filter(|_| tag.handle.is_empty())
    {
        TagKind::Core(rest.to_string())
    } else {
        TagKind::Other
    }
}

struct Builder<'t> {
    text: &'t str,
    offs: Offsets,
    issues: Vec<Issue>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Rc<INode>>,
    /// Anchors whose node is still open (an alias to them is recursive).
    open_anchors: Vec<usize>,
    expanded: usize,
    alias_limit_hit: bool,
    root: Option<Rc<INode>>,
    /// End of the previous event that has a meaningful position.
    prev_end: usize,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str) -> Self {
        Builder {
            text,
            offs: Offsets::new(text),
            issues: Vec::new(),
            stack: Vec::new(),
            anchors: HashMap::new(),
            open_anchors: Vec::new(),
            expanded: 0,
            alias_limit_hit: false,
            root: None,
            prev_end: 0,
        }
    }

    fn issue(&mut self, kind: IssueKind, span: Span, message: String, help: Option<String>) {
        self.issue_full(kind, span, message, help, None);
    }

    fn issue_full(
        &mut self,
        kind: IssueKind,
        span: Span,
        message: String,
        help: Option<String>,
        related: Option<Span>,
    ) {
        self.issues.push(Issue {
            kind,
            span,
            message,
            help,
            related,
        });
    }

    fn slice(&self, span: Span) -> &'t str {
        self.text.get(span.range()).unwrap_or("")
    }

    /// A span covering the character at `pos` (empty at line ends / EOF).
    fn one_char_at(&self, pos: usize) -> Span {
        let pos = pos.min(self.text.len());
        match self.text.get(pos..).and_then(|r| r.chars().next()) {
            Some(c) if c != '\n' && c != '\r' => Span::new(pos, pos + c.len_utf8()),
            _ => Span::at(pos),
        }
    }

    fn in_key_position(&self) -> bool {
        self.stack
            .last()
            .is_some_and(|f| f.is_map && f.pending_key.is_none())
    }

    fn syntax_error(&mut self, e: &ScanError) {
        let pos = self.offs.byte(e.marker().index());
        let span = self.one_char_at(pos);
        let info = clean_parser_message(e.info());
        if info.contains("unknown anchor") {
            let rest = self.text.get(pos..).unwrap_or("");
            let name: String = rest
                .strip_prefix('*')
                .unwrap_or("")
                .chars()
                .take_while(|c| !c.is_whitespace() && !",[]{}".contains(*c))
                .collect();
            let span = Span::new(pos, (pos + 1 + name.len()).min(self.text.len()));
            self.issue(
                IssueKind::Syntax,
                span,
                format!("unknown alias `*{name}`: no anchor `&{name}` is defined before it"),
                Some(format!(
                    "define the anchor with `&{name}` on a node before using `*{name}`"
                )),
            );
            return;
        }
        let mut help = syntax_help(&info);
        // An unclosed bracket often causes an error much later: point at it.
        let open = self.stack.iter().rev().find(|f| f.bracket).map(|f| f.start);
        let related = open.map(|start| self.one_char_at(start));
        if let Some(rel) = related {
            let bracket = self.slice(rel);
            help = Some(match help {
                Some(h) => format!("{h} (a `{bracket}` opened earlier is still open here)"),
                None => format!("a `{bracket}` opened earlier is still open here: close it"),
            });
        }
        self.issue_full(IssueKind::Syntax, span, info, help, related);
    }

    fn unsupported_tag(&mut self, tag: &Tag, tag_span: Option<Span>, node_span: Span, what: &str) {
        let span = tag_span.unwrap_or(node_span);
        let shown = match tag_span {
            Some(s) => self.slice(s).to_string(),
            None => tag.to_string(),
        };
        self.issue(
            IssueKind::UnsupportedTag,
            span,
            format!("the tag `{shown}` is not supported; {what}"),
            Some(
                "remove the tag (only !!str, !!int, !!float, !!bool, !!null, \
                 !!timestamp, !!seq and !!map are understood)"
                    .into(),
            ),
        );
    }

    fn scalar(
        &mut self,
        raw_value: &str,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        raw: Span,
    ) {
        let has_props = anchor > 0 || tag.is_some();
        let (content_start, props_end, tag_span) = if has_props {
            skip_props(self.text, raw.start, raw.end)
        } else {
            (raw.start, raw.start, None)
        };
        let nstyle = match style {
            ScalarStyle::Plain => Style::Plain,
            ScalarStyle::SingleQuoted => Style::SingleQuoted,
            ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
            ScalarStyle::Literal => Style::Literal,
            ScalarStyle::Folded => Style::Folded,
        };
        let span = match style {
            ScalarStyle::Plain if raw_value.is_empty() => {
                if has_props {
                    Span::at(props_end)
                } else {
                    self.empty_scalar_span(raw)
                }
            }
            ScalarStyle::Literal | ScalarStyle::Folded => {
                let start = if has_props {
                    content_start
                } else {
                    find_block_indicator(self.text, self.prev_end, raw.start).unwrap_or(raw.start)
                };
                let start = start.min(raw.end);
                let b = self.text.as_bytes();
                let mut end = raw.end;
                while end > start + 1 && matches!(b[end - 1], b' ' | b'\t' | b'\r' | b'\n') {
                    end -= 1;
                }
                Span::new(start, end)
            }
            _ => Span::new(content_start.min(raw.end), raw.end),
        };
        let is_key = self.in_key_position();
        let value = match tag.map(|t| (t, classify_tag(t))) {
            None if nstyle == Style::Plain => {
                let v = resolve_11(raw_value);
                self.check_plain(raw_value, &v, span, is_key);
                v
            }
            None | Some((_, TagKind::NonSpecific)) => Value::Str(raw_value.to_string()),
            Some((t, TagKind::Core(name))) => match resolve_tagged(&name, raw_value) {
                Ok(v) => v,
                Err(Some(msg)) => {
                    self.issue(
                        IssueKind::Syntax,
                        span,
                        format!("`{raw_value}` {msg} for the tag `!!{name}`"),
                        Some(format!("fix the value or remove the `!!{name}` tag")),
                    );
                    Value::Str(raw_value.to_string())
                }
                Err(None) => {
                    self.unsupported_tag(t, tag_span, span, "the value is read as a string");
                    Value::Str(raw_value.to_string())
                }
            },
            Some((t, TagKind::Other)) => {
                self.unsupported_tag(t, tag_span, span, "the value is read as a string");
                Value::Str(raw_value.to_string())
            }
        };
        let node = Rc::new(INode::scalar(value, span, nstyle));
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        self.push_node(node);
    }

    /// Where to put an empty (implicit null) scalar: right after its `:`
    /// when there is one, else right after the previous token.
    fn empty_scalar_span(&self, raw: Span) -> Span {
        let p = raw.start;
        let before = self.text.get(self.prev_end..p);
        if self.text.as_bytes().get(p) == Some(&b':') {
            Span::at(p + 1)
        } else if !raw.is_empty() || before.is_some_and(|b| b.trim().is_empty()) {
            Span::at(self.prev_end.min(p))
        } else {
            Span::at(p)
        }
    }

    /// Issues for an untagged plain scalar read as `v` (YAML 1.1).
    fn check_plain(&mut self, text: &str, v11: &Value, span: Span, is_key: bool) {
        if let Value::Date(d) = v11 {
            if let Some(reason) = timestamp_11(d).and_then(|ts| ts.invalid_reason()) {
                self.issue(
                    IssueKind::Syntax,
                    span,
                    format!("`{d}` looks like a date but is not a valid one ({reason}); PyYAML fails to load it"),
                    Some(format!("fix the date, or quote it ({text:?}) to keep it as text")),
                );
                return;
            }
        }
        let v12 = match resolve_12_non_str(text) {
            Some(v) => v,
            None if matches!(v11, Value::Str(_)) => return,
            None => Value::Str(text.to_string()),
        };
        if same_scalar(v11, &v12) {
            return;
        }
        let message = format!(
            "`{text}` is read as {} (YAML 1.1), but YAML 1.2 tools read it as {}",
            describe(v11),
            describe(&v12)
        );
        let help = if is_key {
            format!(
                "quote the key ({text:?}) if you mean the text; YAML 1.1 reads it as {}",
                describe(v11)
            )
        } else {
            match v11 {
                Value::Bool(_) | Value::Int(_) | Value::Float(_) => format!(
                    "write {} (or quote it: {text:?}) so that every YAML version reads it the same way",
                    canonical(v11)
                ),
                Value::Str(_) => match canonical_number(&v12) {
                    Some(n) => format!(
                        "quote it ({text:?}) if you mean the text, or write {n} if you mean the number"
                    ),
                    None => format!("quote it ({text:?}) so that every YAML version reads it as text"),
                },
                _ => format!("quote it ({text:?}) so that every YAML version reads it as text"),
            }
        };
        self.issue(IssueKind::AmbiguousScalar, span, message, Some(help));
    }

    fn start(&mut self, is_map: bool, anchor: usize, tag: Option<&Tag>, raw: Span) -> bool {
        if self.stack.len() >= MAX_DEPTH {
            self.issue(
                IssueKind::Syntax,
                self.one_char_at(raw.start),
                format!(
                    "the YAML is nested more than {MAX_DEPTH} levels deep; reading stopped here"
                ),
                Some("flatten the structure".into()),
            );
            return false;
        }
        let has_props = anchor > 0 || tag.is_some();
        let (start, _, tag_span) = if has_props {
            skip_props(self.text, raw.start, raw.end)
        } else {
            (raw.start, raw.start, None)
        };
        let start = start.min(raw.end.max(raw.start));
        let bracket = matches!(self.text.as_bytes().get(start), Some(b'[' | b'{'));
        let parent_flow = self.stack.last().is_some_and(|f| f.style == Style::Flow);
        let style = if bracket || parent_flow {
            Style::Flow
        } else {
            Style::Block
        };
        if let Some(t) = tag {
            let ok = match classify_tag(t) {
                TagKind::Core(name) => name == if is_map { "map" } else { "seq" },
                TagKind::NonSpecific => true,
                TagKind::Other => false,
            };
            if !ok {
                let span = Span::new(start, if bracket { start + 1 } else { start });
                self.unsupported_tag(t, tag_span, span, "the tag is ignored");
            }
        }
        if anchor > 0 {
            self.open_anchors.push(anchor);
        }
        self.stack.push(Frame {
            is_map,
            bracket,
            style,
            start,
            end: if bracket { start + 1 } else { start },
            anchor,
            items: Vec::new(),
            entries: Vec::new(),
            pending_key: None,
            seen: HashMap::new(),
            count: 1,
            height: 1,
        });
        true
    }

    fn end(&mut self, raw: Span) {
        if let Some(mut f) = self.stack.pop() {
            if f.bracket {
                f.end = f.end.max(raw.end);
            }
            self.finish(f);
        }
    }

    fn close_all(&mut self) {
        while let Some(f) = self.stack.pop() {
            self.finish(f);
        }
    }

    fn finish(&mut self, mut f: Frame) {
        if let Some(k) = f.pending_key.take() {
            let null = Rc::new(INode::scalar(
                Value::Null,
                Span::at(k.span.end),
                Style::Plain,
            ));
            f.count += k.count + 1;
            f.entries.push((k, null));
        }
        let kind = if f.is_map {
            IKind::Map(f.entries)
        } else {
            IKind::Seq(f.items)
        };
        let node = Rc::new(INode {
            kind,
            span: Span::new(f.start, f.end.max(f.start)),
            style: f.style,
            count: f.count,
            height: f.height,
        });
        if f.anchor > 0 {
            self.open_anchors.retain(|&a| a != f.anchor);
            self.anchors.insert(f.anchor, node.clone());
        }
        self.push_node(node);
    }

    fn alias(&mut self, id: usize, span: Span) {
        let name = self.slice(span).to_string();
        let null = |s: Span| Rc::new(INode::scalar(Value::Null, s, Style::Alias));
        let node = if self.open_anchors.contains(&id) {
            self.issue(
                IssueKind::AliasLimit,
                span,
                format!("the alias `{name}` refers to a node that contains it (a recursive structure); it is read as null"),
                Some("an alias can only refer to a node that is complete before it".into()),
            );
            null(span)
        } else if let Some(t) = self.anchors.get(&id).cloned() {
            if self.alias_limit_hit {
                null(span)
            } else if self.expanded + t.count > MAX_ALIAS_NODES
                || self.stack.len() + t.height > MAX_DEPTH
            {
                self.alias_limit_hit = true;
                self.issue(
                    IssueKind::AliasLimit,
                    span,
                    format!(
                        "expanding the alias `{name}` would make the document larger than \
                         {MAX_ALIAS_NODES} nodes (or deeper than {MAX_DEPTH} levels); \
                         it and all later aliases are read as null"
                    ),
                    Some(
                        "aliases that multiply each other look like a \"billion laughs\" \
                         attack; write the values out instead"
                            .into(),
                    ),
                );
                null(span)
            } else {
                self.expanded += t.count;
                Rc::new(INode {
                    count: t.count,
                    height: t.height,
                    kind: IKind::Alias(t),
                    span,
                    style: Style::Alias,
                })
            }
        } else {
            self.issue(
                IssueKind::Syntax,
                span,
                format!("unknown alias `{name}`"),
                Some("define the anchor with `&name` before using `*name`".into()),
            );
            null(span)
        };
        self.push_node(node);
    }

    fn push_node(&mut self, node: Rc<INode>) {
        let Some(f) = self.stack.last_mut() else {
            if self.root.is_none() {
                self.root = Some(node);
            }
            return;
        };
        f.end = f.end.max(node.span.end);
        f.count += node.count;
        f.height = f.height.max(node.height + 1);
        if !f.is_map {
            f.items.push(node);
            return;
        }
        let Some(key) = f.pending_key.take() else {
            let mut dup = None;
            let mut unhashable = None;
            match &node.target().kind {
                IKind::Scalar(v) => {
                    let merge =
                        node.style == Style::Plain && matches!(v, Value::Str(s) if s == "<<");
                    if let Some(r) = key_repr(v).filter(|_| !merge) {
                        let h = hash_key(&r);
                        let index = f.entries.len();
                        let earlier = f.seen.insert(h, index).and_then(|i| f.entries.get(i));
                        if let Some((earlier, _)) = earlier {
                            // Equal hashes of different keys are ignored.
                            if let IKind::Scalar(pv) = &earlier.target().kind {
                                if key_repr(pv) == Some(r) {
                                    dup = Some((earlier.span, scalar_text(v).unwrap_or_default()));
                                }
                            }
                        }
                    }
                }
                IKind::Seq(_) => unhashable = Some("list"),
                IKind::Map(_) => unhashable = Some("mapping"),
                IKind::Alias(_) => {}
            }
            let span = node.span;
            f.pending_key = Some(node);
            if let Some((prev, k)) = dup {
                self.issue_full(
                    IssueKind::DuplicateKey,
                    span,
                    format!(
                        "the key `{k}` appears more than once in this mapping; the last one wins"
                    ),
                    Some("remove one of the entries: the earlier value is silently ignored".into()),
                    Some(prev),
                );
            }
            if let Some(what) = unhashable {
                self.issue(
                    IssueKind::Syntax,
                    span,
                    format!("a {what} cannot be used as a mapping key; PyYAML fails to load this"),
                    Some("use a plain string as the key".into()),
                );
            }
            return;
        };
        f.entries.push((key, node));
    }
}

/// Skips anchors, tags, whitespace and comments starting at `from`.
/// Returns (content start, end of the last property, span of the tag).
fn skip_props(text: &str, from: usize, to: usize) -> (usize, usize, Option<Span>) {
    let b = text.as_bytes();
    let to = to.min(b.len());
    let stop = |c: u8| {
        matches!(
            c,
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
        )
    };
    let mut i = from;
    let mut props_end = from;
    let mut tag = None;
    loop {
        while i < to {
            match b[i] {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b'#' => {
                    while i < to && b[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        if i >= to {
            break;
        }
        match b[i] {
            b'&' => {
                i += 1;
                while i < to && !stop(b[i]) {
                    i += 1;
                }
                props_end = i;
            }
            b'!' => {
                let s = i;
                i += 1;
                if i < to && b[i] == b'<' {
                    while i < to && b[i] != b'>' {
                        i += 1;
                    }
                    i = (i + 1).min(to);
                } else {
                    while i < to && !stop(b[i]) {
                        i += 1;
                    }
                }
                props_end = i;
                tag = Some(Span::new(s, i));
            }
            _ => break,
        }
    }
    (i.min(to).max(from), props_end, tag)
}

/// Finds the `|`/`>` indicator of a block scalar between `from` and `to`,
/// skipping comments.
fn find_block_indicator(text: &str, from: usize, to: usize) -> Option<usize> {
    let b = text.as_bytes();
    let to = to.min(b.len());
    let mut i = from;
    let mut after_space = true;
    while i < to {
        match b[i] {
            b'#' if after_space => {
                while i < to && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'|' | b'>' => return Some(i),
            c => after_space = matches!(c, b' ' | b'\t' | b'\r' | b'\n'),
        }
        i += 1;
    }
    None
}

fn clean_parser_message(info: &str) -> String {
    let mut s = info.trim();
    for marker in [" at byte ", " at line "] {
        if let Some(i) = s.find(marker) {
            s = s[..i].trim_end();
        }
    }
    s.to_string()
}

fn syntax_help(info: &str) -> Option<String> {
    let h = if info.contains("recursion limit") {
        "the YAML is nested too deeply: flatten the structure"
    } else if info.contains("tab") {
        "indent with spaces: YAML does not allow tab characters here"
    } else if info.contains("':' must be followed") {
        "put a space (not a tab) after `:`"
    } else if info.contains("mapping values are not allowed") {
        "quote the value if it contains `: `, or fix the indentation of this line"
    } else if info.contains("did not find expected key") {
        "check the indentation of this line: it does not line up with the keys above it"
    } else if info.contains("expected '-'") {
        "check the indentation: every list item starts with `- ` at the same column"
    } else if info.contains("quoted scalar") {
        "check the quotes: the string is not closed, or contains an invalid escape"
    } else if info.contains("misplaced bracket") {
        "remove the extra closing bracket, or add the matching opening one"
    } else if info.contains("flow sequence") || info.contains("flow mapping") {
        "check the brackets: close them, and separate the items with commas"
    } else {
        return None;
    };
    Some(h.to_string())
}

// ---------------------------------------------------------------------------
// Scalar resolution

/// Hashable identity of a key, following Python equality
/// (`True == 1 == 1.0`); `None` for unhashable or never-equal keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum KeyRepr<'a> {
    Null,
    Int(i64),
    Float(u64),
    Str(&'a str),
    Date(&'a str),
}

fn hash_key(k: &KeyRepr<'_>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    k.hash(&mut h);
    h.finish()
}

fn key_repr(v: &Value) -> Option<KeyRepr<'_>> {
    Some(match v {
        Value::Null => KeyRepr::Null,
        Value::Bool(b) => KeyRepr::Int(i64::from(*b)),
        Value::Int(i) => KeyRepr::Int(*i),
        Value::Float(f) if f.is_nan() => return None,
        Value::Float(f) => {
            if f.fract() == 0.0 && f.abs() < 9.0e18 {
                KeyRepr::Int(*f as i64)
            } else {
                KeyRepr::Float(f.to_bits())
            }
        }
        Value::Str(s) => KeyRepr::Str(s),
        Value::Date(s) => KeyRepr::Date(s),
        Value::Seq(_) | Value::Map(_) => return None,
    })
}

fn format_float(f: f64) -> String {
    if f.is_nan() {
        ".nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { ".inf" } else { "-.inf" }.into()
    } else {
        let s = f.to_string();
        if s.contains(['.', 'e', 'E']) {
            s
        } else {
            s + ".0"
        }
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format_float(*f),
        Value::Str(s) | Value::Date(s) => s.clone(),
        Value::Seq(_) | Value::Map(_) => return None,
    })
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Int(i) => format!("the integer {i}"),
        Value::Float(f) => format!("the number {}", format_float(*f)),
        Value::Str(s) => format!("the string {s:?}"),
        Value::Date(d) => format!("the date {d}"),
        Value::Seq(_) => "a list".into(),
        Value::Map(_) => "a mapping".into(),
    }
}

/// How to write `v` so that YAML 1.1 and 1.2 agree.
fn canonical(v: &Value) -> String {
    scalar_text(v).unwrap_or_default()
}

fn canonical_number(v: &Value) -> Option<String> {
    match v {
        Value::Int(_) | Value::Float(_) => Some(canonical(v)),
        _ => None,
    }
}

fn same_scalar(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

fn split_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

fn all_bytes(s: &str, f: impl Fn(u8) -> bool) -> bool {
    s.bytes().all(f)
}

fn is_dec_(b: u8) -> bool {
    b.is_ascii_digit() || b == b'_'
}

/// Splits `s` after the longest prefix whose bytes satisfy `f`.
fn take_while(s: &str, f: impl Fn(u8) -> bool) -> (&str, &str) {
    let n = s.bytes().take_while(|&b| f(b)).count();
    s.split_at(n)
}

/// Integer from digits (underscores ignored) in `radix`; `Float` when it
/// does not fit in an `i64`.
fn digits_value(digits: &str, radix: u32, neg: bool) -> Value {
    if radix == 10 {
        let clean: String = digits.chars().filter(|&c| c != '_').collect();
        if let Ok(i) = clean.parse::<i64>() {
            return Value::Int(if neg { -i } else { i });
        }
        if neg && format!("-{clean}").parse::<i64>().is_ok() {
            return Value::Int(i64::MIN);
        }
        if let Ok(f) = clean.parse::<f64>() {
            return Value::Float(if neg { -f } else { f });
        }
    }
    let mut acc: Option<i128> = Some(0);
    let mut facc = 0f64;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { continue };
        acc = acc
            .and_then(|a| a.checked_mul(i128::from(radix)))
            .and_then(|a| a.checked_add(i128::from(d)));
        facc = facc * f64::from(radix) + f64::from(d);
    }
    match acc.and_then(|a| i64::try_from(if neg { -a } else { a }).ok()) {
        Some(i) => Value::Int(i),
        None => Value::Float(if neg { -facc } else { facc }),
    }
}

/// `[0-5]?[0-9]`
fn is_sexa_part(p: &str) -> bool {
    let b = p.as_bytes();
    match b.len() {
        1 => b[0].is_ascii_digit(),
        2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
        _ => false,
    }
}

/// PyYAML's int resolver and constructor.
fn int_11(s: &str) -> Option<Value> {
    let (neg, r) = split_sign(s);
    let first = *r.as_bytes().first()?;
    if let Some(d) = r.strip_prefix("0b") {
        let ok = !d.is_empty() && all_bytes(d, |b| matches!(b, b'0' | b'1' | b'_'));
        // `0b_` matches the pattern but PyYAML's constructor fails on it.
        return (ok && d.bytes().any(|b| b != b'_')).then(|| digits_value(d, 2, neg));
    }
    if let Some(d) = r.strip_prefix("0x") {
        let ok = !d.is_empty() && all_bytes(d, |b| b.is_ascii_hexdigit() || b == b'_');
        return (ok && d.bytes().any(|b| b != b'_')).then(|| digits_value(d, 16, neg));
    }
    if r == "0" {
        return Some(Value::Int(0));
    }
    if first == b'0' {
        let d = &r[1..];
        return all_bytes(d, |b| matches!(b, b'0'..=b'7' | b'_')).then(|| digits_value(d, 8, neg));
    }
    if !first.is_ascii_digit() {
        return None;
    }
    if all_bytes(r, is_dec_) {
        return Some(digits_value(r, 10, neg));
    }
    // Base 60: [1-9][0-9_]*(:[0-5]?[0-9])+
    let mut parts = r.split(':');
    let head = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    if rest.is_empty() || !all_bytes(head, is_dec_) || !rest.iter().all(|p| is_sexa_part(p)) {
        return None;
    }
    let mut acc = digits_value(head, 10, false);
    for p in rest {
        let d = i64::from(p.parse::<u8>().ok()?);
        acc = match acc {
            Value::Int(a) => match a.checked_mul(60).and_then(|a| a.checked_add(d)) {
                Some(v) => Value::Int(v),
                None => Value::Float(a as f64 * 60.0 + d as f64),
            },
            Value::Float(a) => Value::Float(a * 60.0 + d as f64),
            other => other,
        };
    }
    Some(match acc {
        Value::Int(a) if neg => Value::Int(-a),
        Value::Float(a) if neg => Value::Float(-a),
        other => other,
    })
}

/// `([eE][-+][0-9]+)?`
fn is_exp_11(e: &str) -> bool {
    let b = e.as_bytes();
    b.is_empty()
        || (b.len() >= 3
            && matches!(b[0], b'e' | b'E')
            && matches!(b[1], b'-' | b'+')
            && b[2..].iter().all(u8::is_ascii_digit))
}

fn parse_clean_f64(s: &str) -> Option<f64> {
    let clean: String = s.chars().filter(|&c| c != '_').collect();
    clean.parse::<f64>().ok()
}

/// PyYAML's float resolver and constructor.
fn float_11(s: &str) -> Option<f64> {
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN);
    }
    let (neg, r) = split_sign(s);
    let signed = r.len() != s.len();
    let apply = |f: f64| if neg { -f } else { f };
    if matches!(r, ".inf" | ".Inf" | ".INF") {
        return Some(apply(f64::INFINITY));
    }
    if let Some(rest) = r.strip_prefix('.') {
        // \.[0-9][0-9_]*([eE][-+][0-9]+)?  (no sign allowed)
        let (_, exp) = take_while(rest, is_dec_);
        if signed || !rest.starts_with(|c: char| c.is_ascii_digit()) || !is_exp_11(exp) {
            return None;
        }
        return parse_clean_f64(r);
    }
    if !r.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let (int, rest) = take_while(r, is_dec_);
    if let Some(after_dot) = rest.strip_prefix('.') {
        let (_, exp) = take_while(after_dot, is_dec_);
        if !is_exp_11(exp) {
            return None;
        }
        let (frac, _) = take_while(after_dot, is_dec_);
        let frac: String = frac.chars().filter(|&c| c != '_').collect();
        let int: String = int.chars().filter(|&c| c != '_').collect();
        let frac = if frac.is_empty() { "0".into() } else { frac };
        return format!("{int}.{frac}{exp}").parse::<f64>().ok().map(apply);
    }
    // Base 60: [0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*
    let (head, frac) = r.split_once('.')?;
    if !all_bytes(frac, is_dec_) {
        return None;
    }
    let mut parts = head.split(':');
    let first = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    if rest.is_empty() || !all_bytes(first, is_dec_) || !rest.iter().all(|p| is_sexa_part(p)) {
        return None;
    }
    let mut acc = parse_clean_f64(first)?;
    for p in rest {
        acc = acc * 60.0 + p.parse::<f64>().ok()?;
    }
    let frac = parse_clean_f64(&format!("0.{frac}"))?;
    Some(apply(acc + frac))
}

/// A parsed YAML 1.1 timestamp.
struct Timestamp {
    year: u32,
    month: u32,
    day: u32,
    /// hour, minute, second, timezone offset in minutes
    time: Option<(u32, u32, u32, u32)>,
}

impl Timestamp {
    /// Why Python's `datetime` would reject this timestamp.
    fn invalid_reason(&self) -> Option<&'static str> {
        let y = self.year;
        let leap = (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
        let dim = match self.month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return Some("month must be in 1..12"),
        };
        if self.year == 0 {
            return Some("year 0 is out of range");
        }
        if self.day == 0 || self.day > dim {
            return Some("day is out of range for month");
        }
        if let Some((h, m, s, tz)) = self.time {
            if h > 23 {
                return Some("hour must be in 0..23");
            }
            if m > 59 {
                return Some("minute must be in 0..59");
            }
            if s > 59 {
                return Some("second must be in 0..59");
            }
            if tz >= 24 * 60 {
                return Some("the time zone offset must be less than 24 hours");
            }
        }
        None
    }
}

/// PyYAML's timestamp resolver.
fn timestamp_11(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    let mut i = 0usize;
    // Reads between `min` and `max` digits.
    let digits = |i: &mut usize, min: usize, max: usize| -> Option<u32> {
        let start = *i;
        let mut v = 0u32;
        while *i < b.len() && *i - start < max && b[*i].is_ascii_digit() {
            v = v * 10 + u32::from(b[*i] - b'0');
            *i += 1;
        }
        (*i - start >= min).then_some(v)
    };
    let lit = |i: &mut usize, c: u8| -> Option<()> { (b.get(*i) == Some(&c)).then(|| *i += 1) };
    let year = digits(&mut i, 4, 4)?;
    lit(&mut i, b'-')?;
    let ms = i;
    let month = digits(&mut i, 1, 2)?;
    let month_len = i - ms;
    lit(&mut i, b'-')?;
    let ds = i;
    let day = digits(&mut i, 1, 2)?;
    let day_len = i - ds;
    if i == b.len() {
        return (month_len == 2 && day_len == 2).then_some(Timestamp {
            year,
            month,
            day,
            time: None,
        });
    }
    match b[i] {
        b'T' | b't' => i += 1,
        b' ' | b'\t' => {
            while i < b.len() && matches!(b[i], b' ' | b'\t') {
                i += 1;
            }
        }
        _ => return None,
    }
    let hour = digits(&mut i, 1, 2)?;
    lit(&mut i, b':')?;
    let minute = digits(&mut i, 2, 2)?;
    lit(&mut i, b':')?;
    let second = digits(&mut i, 2, 2)?;
    if lit(&mut i, b'.').is_some() {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    let mut tz = 0;
    if i < b.len() {
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        match b.get(i) {
            Some(b'Z') => i += 1,
            Some(b'-' | b'+') => {
                i += 1;
                let h = digits(&mut i, 1, 2)?;
                let mut m = 0;
                if lit(&mut i, b':').is_some() {
                    m = digits(&mut i, 2, 2)?;
                }
                tz = h * 60 + m;
            }
            _ => return None,
        }
    }
    (i == b.len()).then_some(Timestamp {
        year,
        month,
        day,
        time: Some((hour, minute, second, tz)),
    })
}

/// Resolve a plain scalar the way PyYAML (YAML 1.1) does.
pub fn resolve_11(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Value::Bool(true)
        }
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Value::Bool(false)
        }
        _ => {}
    }
    if let Some(v) = int_11(s) {
        return v;
    }
    if let Some(f) = float_11(s) {
        return Value::Float(f);
    }
    if timestamp_11(s).is_some() {
        return Value::Date(s.to_string());
    }
    Value::Str(s.to_string())
}

/// Resolve a plain scalar with the YAML 1.2 core schema.
pub fn resolve_12(s: &str) -> Value {
    resolve_12_non_str(s).unwrap_or_else(|| Value::Str(s.to_string()))
}

/// [`resolve_12`] without allocating: `None` for strings.
fn resolve_12_non_str(s: &str) -> Option<Value> {
    Some(match s {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        ".nan" | ".NaN" | ".NAN" => Value::Float(f64::NAN),
        _ => return resolve_12_number(s),
    })
}

fn resolve_12_number(s: &str) -> Option<Value> {
    if let Some(d) = s.strip_prefix("0o") {
        if !d.is_empty() && all_bytes(d, |b| matches!(b, b'0'..=b'7')) {
            return Some(digits_value(d, 8, false));
        }
    }
    if let Some(d) = s.strip_prefix("0x") {
        if !d.is_empty() && all_bytes(d, |b| b.is_ascii_hexdigit()) {
            return Some(digits_value(d, 16, false));
        }
    }
    let (neg, r) = split_sign(s);
    if !r.is_empty() && all_bytes(r, |b| b.is_ascii_digit()) {
        return Some(digits_value(r, 10, neg));
    }
    if matches!(r, ".inf" | ".Inf" | ".INF") {
        return Some(Value::Float(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }));
    }
    // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
    let (int, rest) = take_while(r, |b| b.is_ascii_digit());
    let (ok_mantissa, exp) = match rest.strip_prefix('.') {
        Some(after) => {
            let (frac, exp) = take_while(after, |b| b.is_ascii_digit());
            (!int.is_empty() || !frac.is_empty(), exp)
        }
        None => (!int.is_empty(), rest),
    };
    let ok_exp = exp.is_empty() || {
        let e = exp.as_bytes();
        let mut j = 1;
        if matches!(e.get(1), Some(b'-' | b'+')) {
            j = 2;
        }
        matches!(e[0], b'e' | b'E') && e.len() > j && e[j..].iter().all(u8::is_ascii_digit)
    };
    if ok_mantissa && ok_exp {
        return s.parse::<f64>().ok().map(Value::Float);
    }
    None
}

/// Value of a scalar with an explicit `!!name` tag. `Err(Some(reason))`
/// when the text does not fit the tag, `Err(None)` for unsupported tags.
fn resolve_tagged(name: &str, s: &str) -> Result<Value, Option<&'static str>> {
    match name {
        "str" => Ok(Value::Str(s.to_string())),
        "null" => Ok(Value::Null),
        "bool" => match s.to_ascii_lowercase().as_str() {
            "yes" | "true" | "on" => Ok(Value::Bool(true)),
            "no" | "false" | "off" => Ok(Value::Bool(false)),
            _ => Err(Some("is not a boolean")),
        },
        "int" => {
            if let Some(v) = int_11(s) {
                return Ok(v);
            }
            let (neg, r) = split_sign(s);
            if !r.is_empty() && all_bytes(r, is_dec_) && r.bytes().any(|b| b != b'_') {
                Ok(digits_value(r, 10, neg))
            } else {
                Err(Some("is not an integer"))
            }
        }
        "float" => {
            if let Some(f) = float_11(s) {
                return Ok(Value::Float(f));
            }
            let lower = s.to_ascii_lowercase();
            let (neg, r) = split_sign(&lower);
            let v = match r {
                ".inf" => Some(f64::INFINITY),
                ".nan" => Some(f64::NAN),
                _ => parse_clean_f64(r).or_else(|| match int_11(r) {
                    Some(Value::Int(i)) => Some(i as f64),
                    Some(Value::Float(f)) => Some(f),
                    _ => None,
                }),
            };
            v.map(|f| Value::Float(if neg { -f } else { f }))
                .ok_or(Some("is not a number"))
        }
        "timestamp" => match timestamp_11(s) {
            Some(ts) if ts.invalid_reason().is_none() => Ok(Value::Date(s.to_string())),
            _ => Err(Some("is not a valid timestamp")),
        },
        _ => Err(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn root(text: &str) -> Node {
        parse(text).root.expect("a root node")
    }

    fn src(text: &str, span: Span) -> &str {
        &text[span.range()]
    }

    fn kinds(p: &Parsed) -> Vec<IssueKind> {
        p.issues.iter().map(|i| i.kind).collect()
    }

    /// Value of `v: <text>` (one mapping entry).
    fn val(text: &str) -> Value {
        let doc = format!("v: {text}\n");
        root(&doc).get("v").expect("key v").value.clone()
    }

    fn key_span_text<'a>(text: &'a str, map: &Node, key: &str) -> (&'a str, &'a str) {
        let (k, v) = map
            .as_map()
            .unwrap()
            .iter()
            .rev()
            .find(|(k, _)| k.as_str() == Some(key))
            .unwrap();
        (src(text, k.span), src(text, v.span))
    }

    /// Every span is on char boundaries and every child is inside its parent.
    fn check_spans(text: &str, n: &Node) {
        assert!(n.span.start <= n.span.end && n.span.end <= text.len());
        assert!(text.is_char_boundary(n.span.start) && text.is_char_boundary(n.span.end));
        if n.style == Style::Alias {
            return;
        }
        let mut children: Vec<&Node> = Vec::new();
        match &n.value {
            Value::Seq(items) => children.extend(items),
            Value::Map(es) => es.iter().for_each(|(k, v)| children.extend([k, v])),
            _ => {}
        }
        for c in children {
            assert!(
                c.span.start >= n.span.start && c.span.end <= n.span.end,
                "child {:?} outside parent {:?} in {text:?}",
                c.span,
                n.span
            );
            check_spans(text, c);
        }
    }

    // ----- spans

    #[test]
    fn spans_of_keys_and_values() {
        let t = "name: demo\ncount: 3\nlist:\n  - a\n  - 'b'\nmap:\n  x: \"y\"\n";
        let r = root(t);
        check_spans(t, &r);
        assert_eq!(r.style, Style::Block);
        assert_eq!(src(t, r.span), t.trim_end());
        assert_eq!(key_span_text(t, &r, "name"), ("name", "demo"));
        assert_eq!(key_span_text(t, &r, "count"), ("count", "3"));
        assert_eq!(key_span_text(t, &r, "list"), ("list", "- a\n  - 'b'"));
        assert_eq!(key_span_text(t, &r, "map"), ("map", "x: \"y\""));
        let list = r.get("list").unwrap().as_seq().unwrap();
        assert_eq!(src(t, list[1].span), "'b'");
        assert_eq!(list[1].style, Style::SingleQuoted);
        let y = r.get("map").unwrap().get("x").unwrap();
        assert_eq!(src(t, y.span), "\"y\"");
        assert_eq!(src(t, inner_span(y, t)), "y");
        assert_eq!(inner_span(&list[0], t), list[0].span);
    }

    #[test]
    fn spans_after_multibyte_text() {
        let t = "título: \"café ñ\"\n# コメント ✓\nclé: valeur 🎉 x\nb: [é, \"ü\"]\n";
        let r = root(t);
        check_spans(t, &r);
        assert_eq!(key_span_text(t, &r, "título"), ("título", "\"café ñ\""));
        assert_eq!(key_span_text(t, &r, "clé"), ("clé", "valeur 🎉 x"));
        let b = r.get("b").unwrap();
        assert_eq!(src(t, b.span), "[é, \"ü\"]");
        let items = b.as_seq().unwrap();
        assert_eq!(src(t, items[0].span), "é");
        assert_eq!(src(t, inner_span(&items[1], t)), "ü");
        assert_eq!(r.get("título").unwrap().as_str(), Some("café ñ"));
    }

    #[test]
    fn crlf_input() {
        let t = "a: 1\r\nb: \"é\"\r\nc: |\r\n  x\r\n  y\r\nd: [1, 2]\r\n";
        let r = root(t);
        check_spans(t, &r);
        assert_eq!(r.get("a").unwrap().value, Value::Int(1));
        assert_eq!(key_span_text(t, &r, "b"), ("b", "\"é\""));
        let c = r.get("c").unwrap();
        assert_eq!(c.as_str(), Some("x\ny\n"));
        assert_eq!(src(t, c.span), "|\r\n  x\r\n  y");
        assert_eq!(key_span_text(t, &r, "d"), ("d", "[1, 2]"));
        assert!(parse(t).issues.is_empty());
    }

    #[test]
    fn properties_are_not_part_of_scalar_spans() {
        let t = "a: &x !!str 12\nb: &y \"q\"\nc: &z\n  k: v\nd: *x\n";
        let p = parse(t);
        assert!(p.issues.is_empty(), "{:?}", p.issues);
        let r = p.root.unwrap();
        check_spans(t, &r);
        assert_eq!(key_span_text(t, &r, "a"), ("a", "12"));
        assert_eq!(r.get("a").unwrap().value, Value::Str("12".into()));
        assert_eq!(key_span_text(t, &r, "b"), ("b", "\"q\""));
        assert_eq!(key_span_text(t, &r, "c"), ("c", "k: v"));
        let d = r.get("d").unwrap();
        assert_eq!(src(t, d.span), "*x");
        assert_eq!(d.style, Style::Alias);
        assert_eq!(d.value, Value::Str("12".into()));
    }

    // ----- resolution

    #[test]
    fn null_and_bool_rows() {
        for t in ["~", "null", "Null", "NULL", ""] {
            assert_eq!(resolve_11(t), Value::Null, "{t}");
        }
        assert_eq!(val(""), Value::Null);
        assert_eq!(val("~"), Value::Null);
        for t in [
            "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
        ] {
            assert_eq!(resolve_11(t), Value::Bool(true), "{t}");
        }
        for t in [
            "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
        ] {
            assert_eq!(resolve_11(t), Value::Bool(false), "{t}");
        }
        for t in ["y", "n", "Y", "yES", "nULL", "tRUE", "oN"] {
            assert_eq!(resolve_11(t), Value::Str(t.into()), "{t}");
        }
        assert_eq!(val("yes"), Value::Bool(true));
    }

    #[test]
    fn int_rows() {
        let rows: &[(&str, i64)] = &[
            ("0", 0),
            ("-0", 0),
            ("42", 42),
            ("+42", 42),
            ("-17", -17),
            ("1_000", 1000),
            ("012", 10),
            ("-012", -10),
            ("0_7", 7),
            ("00", 0),
            ("0x1F", 31),
            ("0x_ff", 255),
            ("-0x10", -16),
            ("0b101", 5),
            ("-0b1_1", -3),
            ("1:30", 90),
            ("-1:30", -90),
            ("1:00:00", 3600),
            ("190:20:30", 685_230),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
        ];
        for (t, n) in rows {
            assert_eq!(resolve_11(t), Value::Int(*n), "{t}");
        }
        assert_eq!(val("0x1F"), Value::Int(31));
        // Too large for i64: kept numeric as a float.
        assert_eq!(
            resolve_11("99999999999999999999"),
            Value::Float(99_999_999_999_999_999_999.0)
        );
        assert!(matches!(
            resolve_11("0xffffffffffffffffff"),
            Value::Float(_)
        ));
        for t in [
            "08", "0b", "0b2", "0x", "0xg", "1:60", "1:2:", "0:30", "1__:5x", "0b_", "+", "-",
        ] {
            assert!(matches!(resolve_11(t), Value::Str(_)), "{t}");
        }
    }

    #[test]
    fn float_rows() {
        let rows: &[(&str, f64)] = &[
            ("1.5", 1.5),
            ("-1.5", -1.5),
            ("+1.5", 1.5),
            ("1.", 1.0),
            (".5", 0.5),
            ("1_000.5", 1000.5),
            ("1.5e+3", 1500.0),
            ("1.5E-1", 0.15),
            ("1.e+2", 100.0),
            ("190:20:30.15", 685_230.15),
            ("1:30.5", 90.5),
            ("-1:30.", -90.0),
        ];
        for (t, f) in rows {
            match resolve_11(t) {
                Value::Float(x) => assert!((x - f).abs() < 1e-9, "{t}: {x}"),
                other => panic!("{t}: {other:?}"),
            }
        }
        for t in [".inf", ".Inf", ".INF", "+.inf"] {
            assert_eq!(resolve_11(t), Value::Float(f64::INFINITY), "{t}");
        }
        for t in ["-.inf", "-.Inf", "-.INF"] {
            assert_eq!(resolve_11(t), Value::Float(f64::NEG_INFINITY), "{t}");
        }
        for t in [".nan", ".NaN", ".NAN"] {
            assert!(
                matches!(resolve_11(t), Value::Float(f) if f.is_nan()),
                "{t}"
            );
        }
        // PyYAML's own pattern: exponent needs a sign, `.5` takes no sign.
        for t in [
            "1e5", "1.0e5", "-.5", ".", "._", "1.5.2", ".Nan", "+.nan", "inf", "1e+5",
        ] {
            assert!(matches!(resolve_11(t), Value::Str(_)), "{t}");
        }
        assert_eq!(val("2.5"), Value::Float(2.5));
    }

    #[test]
    fn timestamp_rows() {
        for t in [
            "2024-01-01",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14 21:59:43.10 -5",
            "2001-12-15T02:59:43.1Z",
            "2001-12-15 2:59:43.10",
            "2024-1-2T10:00:00",
            "2024-01-01T10:00:00Z",
            "2024-02-29",
        ] {
            assert_eq!(resolve_11(t), Value::Date(t.into()), "{t}");
        }
        for t in [
            "2024-1-1",
            "2024-01-01T",
            "2024-01-01T10:00",
            "24-01-01",
            "2024-01-01 x",
            "2024-01-01T10:00:00 ",
        ] {
            assert!(matches!(resolve_11(t), Value::Str(_)), "{t}");
        }
        let n = root("d: 2024-01-01\n");
        assert_eq!(n.get("d").unwrap().type_name(), "date");
        assert_eq!(n.get("d").unwrap().as_str(), None);
    }

    #[test]
    fn invalid_dates_are_reported() {
        for t in [
            "2023-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-04-31",
            "2024-01-01 25:00:00",
        ] {
            let p = parse(&format!("d: {t}\n"));
            assert_eq!(kinds(&p), vec![IssueKind::Syntax], "{t}");
            assert_eq!(p.issues[0].span, Span::new(3, 3 + t.len()));
        }
    }

    #[test]
    fn non_plain_scalars_are_strings() {
        let t = "a: 'yes'\nb: \"012\"\nc: |\n  true\nd: >\n  1.5\ne: '2024-01-01'\n";
        let p = parse(t);
        assert!(p.issues.is_empty(), "{:?}", p.issues);
        let r = p.root.unwrap();
        assert_eq!(r.get("a").unwrap().value, Value::Str("yes".into()));
        assert_eq!(r.get("b").unwrap().value, Value::Str("012".into()));
        assert_eq!(r.get("c").unwrap().value, Value::Str("true\n".into()));
        assert_eq!(r.get("d").unwrap().value, Value::Str("1.5\n".into()));
        assert_eq!(r.get("e").unwrap().value, Value::Str("2024-01-01".into()));
    }

    #[test]
    fn explicit_tags() {
        let t = "a: !!str 12\nb: !!int \"12\"\nc: !!bool 'yes'\nd: !!float 1\ne: !!null x\nf: ! 12\ng: !!int 0o17\nh: !!float .INF\n";
        let p = parse(t);
        let r = p.root.as_ref().unwrap();
        assert_eq!(r.get("a").unwrap().value, Value::Str("12".into()));
        assert_eq!(r.get("b").unwrap().value, Value::Int(12));
        assert_eq!(r.get("c").unwrap().value, Value::Bool(true));
        assert_eq!(r.get("d").unwrap().value, Value::Float(1.0));
        assert_eq!(r.get("e").unwrap().value, Value::Null);
        assert_eq!(r.get("f").unwrap().value, Value::Str("12".into()));
        assert_eq!(r.get("h").unwrap().value, Value::Float(f64::INFINITY));
        // `!!int 0o17` is not a PyYAML integer.
        assert_eq!(r.get("g").unwrap().value, Value::Str("0o17".into()));
        assert_eq!(kinds(&p), vec![IssueKind::Syntax]);
        assert!(p.issues[0].message.contains("!!int"));
    }

    #[test]
    fn unsupported_tags() {
        let t = "a: !foo 12\nb: !!binary aGk=\nc: !!set {x}\nd: !!map {x: 1}\ne: !!seq [1]\nf: !custom\n  k: v\n";
        let p = parse(t);
        let r = p.root.as_ref().unwrap();
        assert_eq!(r.get("a").unwrap().value, Value::Str("12".into()));
        assert_eq!(r.get("b").unwrap().value, Value::Str("aGk=".into()));
        assert!(r.get("c").unwrap().as_map().is_some());
        assert_eq!(r.get("f").unwrap().get("k").unwrap().as_str(), Some("v"));
        assert_eq!(kinds(&p), vec![IssueKind::UnsupportedTag; 4]);
        let shown: Vec<&str> = p.issues.iter().map(|i| src(t, i.span)).collect();
        assert_eq!(shown, vec!["!foo", "!!binary", "!!set", "!custom"]);
        assert!(p.issues[0].message.contains("`!foo`"));
    }

    // ----- ambiguity

    #[test]
    fn ambiguous_scalars_are_reported() {
        for t in [
            "yes",
            "No",
            "ON",
            "off",
            "012",
            "0o12",
            "1:30",
            "2024-01-01",
            "1_000",
            "0b101",
            "1e5",
            "-.5",
            "-0x1",
            "08",
        ] {
            let doc = format!("v: {t}\n");
            let p = parse(&doc);
            assert_eq!(kinds(&p), vec![IssueKind::AmbiguousScalar], "{t}");
            assert_eq!(p.issues[0].span, Span::new(3, 3 + t.len()), "{t}");
            assert!(p.issues[0].help.is_some());
        }
        for t in [
            "true", "False", "12", "0", "-3", "0x1F", "1.5", ".inf", ".nan", "null", "~", "hello",
            "y", "n", "1.", "+1",
        ] {
            let p = parse(&format!("v: {t}\n"));
            assert!(p.issues.is_empty(), "{t}: {:?}", p.issues);
        }
    }

    #[test]
    fn ambiguity_message_and_help() {
        let p = parse("enabled: yes\n");
        let i = &p.issues[0];
        assert_eq!(
            i.message,
            "`yes` is read as the boolean true (YAML 1.1), but YAML 1.2 tools read it as the string \"yes\""
        );
        assert!(i
            .help
            .as_deref()
            .unwrap()
            .starts_with("write true (or quote it: \"yes\")"));
        let p = parse("mode: 012\n");
        assert!(p.issues[0].message.contains("the integer 10"));
        assert!(p.issues[0].message.contains("the integer 12"));
        assert!(p.issues[0].help.as_deref().unwrap().starts_with("write 10"));
    }

    #[test]
    fn quoted_yes_is_not_ambiguous() {
        let p = parse("a: \"yes\"\nb: 'on'\n\"no\": 1\n? |\n  off\n: x\n");
        assert!(p.issues.is_empty(), "{:?}", p.issues);
    }

    #[test]
    fn unquoted_on_key_becomes_true() {
        let t = "on:\n  push: x\n";
        let p = parse(t);
        assert_eq!(kinds(&p), vec![IssueKind::AmbiguousScalar]);
        assert_eq!(src(t, p.issues[0].span), "on");
        let r = p.root.unwrap();
        let (k, v) = r.entries().next().unwrap();
        assert_eq!(k.value, Value::Bool(true));
        assert_eq!(k.key_str().as_deref(), Some("true"));
        assert_eq!(v.get("push").unwrap().as_str(), Some("x"));
        assert!(r.get("on").is_none());
        assert!(r.get("true").is_none());
    }

    // ----- duplicates, get, entries

    #[test]
    fn duplicate_keys() {
        let t = "a: 1\nb: 2\na: 3\n";
        let p = parse(t);
        assert_eq!(kinds(&p), vec![IssueKind::DuplicateKey]);
        let i = &p.issues[0];
        assert_eq!(i.span, Span::new(10, 11));
        assert_eq!(i.related, Some(Span::new(0, 1)));
        assert!(i.message.contains("`a`") && i.message.contains("last one wins"));
        let r = p.root.unwrap();
        assert_eq!(r.get("a").unwrap().value, Value::Int(3));
        assert_eq!(r.as_map().unwrap().len(), 3);
        let keys: Vec<String> = r.entries().map(|(k, _)| k.key_str().unwrap()).collect();
        assert_eq!(keys, vec!["b", "a"]);
        let vals: Vec<&Value> = r.entries().map(|(_, v)| &v.value).collect();
        assert_eq!(vals, vec![&Value::Int(2), &Value::Int(3)]);
    }

    #[test]
    fn duplicate_keys_compare_resolved_values() {
        // `on` and `true` are both the boolean key true; 1 and 1.0 are equal in Python.
        let p = parse("on: 1\ntrue: 2\n");
        assert!(kinds(&p).contains(&IssueKind::DuplicateKey));
        let p = parse("1: a\n1.0: b\n0x1: c\n");
        assert_eq!(
            kinds(&p)
                .iter()
                .filter(|k| **k == IssueKind::DuplicateKey)
                .count(),
            2
        );
        // Third key relates to the second occurrence.
        let d: Vec<&Issue> = p
            .issues
            .iter()
            .filter(|i| i.kind == IssueKind::DuplicateKey)
            .collect();
        assert_eq!(d[1].related, Some(Span::new(5, 8)));
        // "1" (string) and 1 (int) differ; quoted and plain strings are equal.
        assert!(parse("1: a\n'1': b\n").issues.is_empty());
        assert_eq!(
            kinds(&parse("a: 1\n'a': 2\n")),
            vec![IssueKind::DuplicateKey]
        );
        // Merge keys may repeat.
        assert!(!kinds(&parse(
            "x: &x {a: 1}\ny: &y {b: 2}\nz:\n  <<: *x\n  <<: *y\n"
        ))
        .contains(&IssueKind::DuplicateKey));
        // Duplicates in flow mappings, and per mapping only.
        assert_eq!(kinds(&parse("{a: 1, a: 2}")), vec![IssueKind::DuplicateKey]);
        assert!(parse("a: {k: 1}\nb: {k: 2}\n").issues.is_empty());
    }

    #[test]
    fn get_and_helpers() {
        let r =
            root("s: x\nb: true\ni: 3\nf: 2.5\nn: ~\nl: [1]\nm: {k: v}\nd: 2024-01-01\n1: one\n");
        assert_eq!(r.get("s").unwrap().as_str(), Some("x"));
        assert_eq!(r.get("b").unwrap().as_bool(), Some(true));
        assert_eq!(r.get("i").unwrap().as_i64(), Some(3));
        assert_eq!(r.get("f").unwrap().as_f64(), Some(2.5));
        assert!(r.get("n").unwrap().is_null());
        assert_eq!(r.get("l").unwrap().as_seq().unwrap().len(), 1);
        assert!(r.get("missing").is_none());
        assert!(r.get("1").is_none(), "only string keys match");
        let names: Vec<&str> = ["s", "b", "i", "f", "n", "l", "m", "d"]
            .iter()
            .map(|k| r.get(k).unwrap().type_name())
            .collect();
        assert_eq!(
            names,
            vec!["string", "boolean", "integer", "number", "null", "list", "mapping", "date"]
        );
        let keys: Vec<Option<String>> = r.entries().map(|(k, _)| k.key_str()).collect();
        assert_eq!(keys.last().unwrap().as_deref(), Some("1"));
        assert_eq!(r.get("m").unwrap().key_str(), None);
        assert_eq!(r.get("f").unwrap().key_str().as_deref(), Some("2.5"));
        let s = r.get("s").unwrap();
        assert!(s.get("x").is_none());
        assert_eq!(s.entries().count(), 0);
    }

    // ----- aliases

    #[test]
    fn aliases_copy_the_anchored_node() {
        let t = "base: &b\n  model: m\n  temp: 1\nother: *b\nlist: [&i item, *i]\n";
        let p = parse(t);
        assert!(p.issues.is_empty(), "{:?}", p.issues);
        let r = p.root.unwrap();
        let base = r.get("base").unwrap();
        let other = r.get("other").unwrap();
        assert_eq!(other.value, base.value);
        assert_eq!(src(t, other.span), "*b");
        assert_eq!(other.style, Style::Alias);
        assert_eq!(src(t, other.get("model").unwrap().span), "m");
        let list = r.get("list").unwrap().as_seq().unwrap();
        assert_eq!(list[1].as_str(), Some("item"));
        assert_eq!(src(t, list[1].span), "*i");
    }

    #[test]
    fn alias_keys_and_redefined_anchors() {
        let t = "k: &a key\n*a : v\nx: &a 1\ny: *a\n";
        let r = root(t);
        assert_eq!(r.get("key").unwrap().as_str(), Some("v"));
        assert_eq!(r.get("y").unwrap().value, Value::Int(1));
    }

    #[test]
    fn unknown_and_recursive_aliases() {
        let t = "a: 1\nb: *nope\nc: 3\n";
        let p = parse(t);
        assert_eq!(kinds(&p), vec![IssueKind::Syntax]);
        assert_eq!(src(t, p.issues[0].span), "*nope");
        assert!(p.issues[0].message.contains("*nope"));
        assert_eq!(p.root.unwrap().get("a").unwrap().value, Value::Int(1));

        let p = parse("a: &r\n  - 1\n  - *r\n");
        assert_eq!(kinds(&p), vec![IssueKind::AliasLimit]);
        let r = p.root.as_ref().unwrap();
        assert!(r.get("a").unwrap().as_seq().unwrap()[1].is_null());
    }

    #[test]
    fn billion_laughs_is_cut_off_fast() {
        let mut t = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..10 {
            let prev = (b'a' + i - 1) as char;
            let cur = (b'a' + i) as char;
            let refs = vec![format!("*{prev}"); 9].join(", ");
            t.push_str(&format!("{cur}: &{cur} [{refs}]\n"));
        }
        let start = Instant::now();
        let p = parse(&t);
        assert!(start.elapsed() < Duration::from_secs(2));
        assert_eq!(kinds(&p), vec![IssueKind::AliasLimit]);
        let r = p.root.unwrap();
        fn count(n: &Node) -> usize {
            1 + match &n.value {
                Value::Seq(v) => v.iter().map(count).sum(),
                Value::Map(v) => v.iter().map(|(k, v)| count(k) + count(v)).sum(),
                _ => 0,
            }
        }
        assert!(count(&r) < MAX_ALIAS_NODES + 1000);
        assert_eq!(r.as_map().unwrap().len(), 10);
        // Later aliases are null.
        assert!(r
            .get("j")
            .unwrap()
            .as_seq()
            .unwrap()
            .iter()
            .all(Node::is_null));
    }

    #[test]
    fn deep_alias_expansion_is_cut_off() {
        let deep = format!("{}x{}", "[".repeat(200), "]".repeat(200));
        let t = format!(
            "a: &a {deep}\nb: {}*a{}\n",
            "[".repeat(100),
            "]".repeat(100)
        );
        let p = parse(&t);
        assert_eq!(kinds(&p), vec![IssueKind::AliasLimit]);
        assert_eq!(src(&t, p.issues[0].span), "*a");
    }

    #[test]
    fn empty_scalar_spans() {
        let t = "- \n-\n- x\nk: &a\nz: !!str\n";
        let p = parse(t);
        let r = p.root.unwrap();
        let items = r.as_seq().unwrap();
        assert_eq!(items[0].span, Span::at(2));
        assert_eq!(items[1].span, Span::at(4));
        let t = "k: &a\nz: !!str\nw: {q}\n";
        let r = root(t);
        assert_eq!(r.get("k").unwrap().span, Span::at(5));
        assert_eq!(r.get("z").unwrap().span, Span::at(14));
        assert_eq!(r.get("z").unwrap().value, Value::Str(String::new()));
        assert_eq!(r.get("w").unwrap().get("q").unwrap().span, Span::at(20));
    }

    #[test]
    fn many_small_aliases_are_fine() {
        let mut t = String::from("x: &x 1\nl:\n");
        for _ in 0..500 {
            t.push_str("  - *x\n");
        }
        let p = parse(&t);
        assert!(p.issues.is_empty());
        assert_eq!(
            p.root.unwrap().get("l").unwrap().as_seq().unwrap().len(),
            500
        );
    }

    // ----- syntax errors

    #[test]
    fn syntax_errors_keep_prior_keys() {
        let t = "name: demo\nmodel: gpt\nbad: [1, 2\nlater: x\n";
        let p = parse(t);
        assert_eq!(kinds(&p), vec![IssueKind::Syntax]);
        let r = p.root.unwrap();
        check_spans(t, &r);
        assert_eq!(r.get("name").unwrap().as_str(), Some("demo"));
        assert_eq!(r.get("model").unwrap().as_str(), Some("gpt"));
        assert!(r.get("bad").unwrap().as_seq().is_some());
        // The unclosed bracket is pointed at.
        assert_eq!(p.issues[0].related.map(|s| src(t, s)), Some("["));

        let t = "a: 1\nb:\n  c: 2\n d: 3\n";
        let p = parse(t);
        assert_eq!(kinds(&p), vec![IssueKind::Syntax]);
        assert_eq!(src(t, p.issues[0].span), "d");
        assert!(!p.issues[0].message.contains("line"));
        let r = p.root.unwrap();
        assert_eq!(r.get("a").unwrap().value, Value::Int(1));
        assert_eq!(r.get("b").unwrap().get("c").unwrap().value, Value::Int(2));

        let t = "a: 1\nb: \"unclosed\nc: 2\n";
        let p = parse(t);
        assert_eq!(kinds(&p), vec![IssueKind::Syntax]);
        assert_eq!(p.root.unwrap().get("a").unwrap().value, Value::Int(1));

        let t = "a: 1\nb: c: d\n";
        let p = parse(t);
        assert_eq!(kinds(&p), vec![IssueKind::Syntax]);
        assert!(p.issues[0].help.is_some());
        assert_eq!(p.root.unwrap().get("a").unwrap().value, Value::Int(1));

        let p = parse("a: [1, 2]]\n");
        assert_eq!(kinds(&p), vec![IssueKind::Syntax]);
        assert!(p.issues[0].help.as_deref().unwrap().contains("bracket"));
        assert!(p.root.unwrap().get("a").unwrap().as_seq().is_some());

        let t = "a:\n\t- b\n";
        let p = parse(t);
        assert_eq!(kinds(&p), vec![IssueKind::Syntax]);
        assert!(p.issues[0].help.as_deref().unwrap().contains("tab"));
        assert_eq!(p.root.unwrap().as_map().unwrap().len(), 1);
    }

    #[test]
    fn syntax_error_span_is_on_char_boundary() {
        let t = "é: ü\n  ñ: x\n";
        let p = parse(t);
        assert!(!p.issues.is_empty());
        for i in &p.issues {
            assert!(t.is_char_boundary(i.span.start) && t.is_char_boundary(i.span.end));
            assert!(i.span.len() <= 4);
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        for t in [
            "[".repeat(100_000),
            "{a: ".repeat(50_000),
            "- ".repeat(5_000),
            {
                let mut s = String::new();
                for i in 0..1_000 {
                    s.push_str(&" ".repeat(i));
                    s.push_str("k:\n");
                }
                s
            },
        ] {
            let p = parse(&t);
            assert!(!p.issues.is_empty());
        }
        let ok = format!("{}x{}", "[".repeat(100), "]".repeat(100));
        let p = parse(&ok);
        assert!(p.issues.is_empty());
    }

    // ----- collections, block scalars, documents

    #[test]
    fn flow_collections() {
        let t = "a: {x: 1, y: [2, {z: 3}], w}\nb: [k: v, 'q']\nc: []\nd: {}\n";
        let p = parse(t);
        assert!(p.issues.is_empty(), "{:?}", p.issues);
        let r = p.root.unwrap();
        check_spans(t, &r);
        let a = r.get("a").unwrap();
        assert_eq!(a.style, Style::Flow);
        assert_eq!(src(t, a.span), "{x: 1, y: [2, {z: 3}], w}");
        assert_eq!(src(t, a.get("y").unwrap().span), "[2, {z: 3}]");
        assert!(a.get("w").unwrap().is_null());
        let b = r.get("b").unwrap().as_seq().unwrap();
        assert_eq!(b[0].get("k").unwrap().as_str(), Some("v"));
        assert_eq!(src(t, b[0].span), "k: v");
        assert_eq!(src(t, r.get("c").unwrap().span), "[]");
        assert_eq!(r.get("d").unwrap().as_map().unwrap().len(), 0);
        assert_eq!(src(t, r.get("d").unwrap().span), "{}");
    }

    #[test]
    fn block_scalars() {
        let t = "lit: |\n  one\n  two\n\nfold: >-\n  a\n  b\nkeep: &k |+ # note\n  x\n\nempty: |\nlast: >\n  end\n";
        let p = parse(t);
        assert!(p.issues.is_empty(), "{:?}", p.issues);
        let r = p.root.unwrap();
        check_spans(t, &r);
        let lit = r.get("lit").unwrap();
        assert_eq!(lit.as_str(), Some("one\ntwo\n"));
        assert_eq!(lit.style, Style::Literal);
        assert_eq!(src(t, lit.span), "|\n  one\n  two");
        assert_eq!(src(t, inner_span(lit, t)), "one\n  two");
        let fold = r.get("fold").unwrap();
        assert_eq!(fold.as_str(), Some("a b"));
        assert_eq!(fold.style, Style::Folded);
        assert_eq!(src(t, fold.span), ">-\n  a\n  b");
        let keep = r.get("keep").unwrap();
        assert_eq!(keep.as_str(), Some("x\n\n"));
        assert_eq!(src(t, keep.span), "|+ # note\n  x");
        let empty = r.get("empty").unwrap();
        assert_eq!(empty.as_str(), Some(""));
        assert_eq!(src(t, empty.span), "|");
        assert_eq!(src(t, r.get("last").unwrap().span), ">\n  end");
        // In a sequence and at the root.
        let t = "- |\n  a\n- >\n  b\n";
        let r = root(t);
        let items = r.as_seq().unwrap();
        assert_eq!(src(t, items[0].span), "|\n  a");
        assert_eq!(src(t, items[1].span), ">\n  b");
        let t = "--- |\n  text\n";
        assert_eq!(src(t, root(t).span), "|\n  text");
        let t = "# c\nk: # comment\n  |\n  body\n";
        assert_eq!(src(t, root(t).get("k").unwrap().span), "|\n  body");
    }

    #[test]
    fn empty_documents() {
        assert_eq!(
            parse(""),
            Parsed {
                root: None,
                issues: vec![]
            }
        );
        assert_eq!(
            parse("# only a comment\n\n"),
            Parsed {
                root: None,
                issues: vec![]
            }
        );
        assert_eq!(
            parse("   \n"),
            Parsed {
                root: None,
                issues: vec![]
            }
        );
        let p = parse("---\n");
        assert!(p.root.unwrap().is_null());
        assert!(p.issues.is_empty());
        assert!(parse("~").root.unwrap().is_null());
        assert!(parse("a:\n").root.unwrap().get("a").unwrap().is_null());
        let t = "a:\nb: 1\n";
        let r = root(t);
        assert_eq!(r.get("a").unwrap().span, Span::at(2));
        let r = root("just text");
        assert_eq!(r.as_str(), Some("just text"));
    }

    #[test]
    fn multiple_documents() {
        let t = "a: 1\n---\nb: 2\n";
        let p = parse(t);
        assert_eq!(kinds(&p), vec![IssueKind::MultipleDocuments]);
        assert_eq!(src(t, p.issues[0].span), "---");
        let r = p.root.unwrap();
        assert_eq!(r.get("a").unwrap().value, Value::Int(1));
        assert!(r.get("b").is_none());
        let p = parse("a: 1\n...\nb: 2\n");
        assert_eq!(kinds(&p), vec![IssueKind::MultipleDocuments]);
        // A leading `---` and a trailing `...` are one document.
        let p = parse("---\na: 1\n...\n# end\n");
        assert!(p.issues.is_empty());
        assert_eq!(p.root.unwrap().get("a").unwrap().value, Value::Int(1));
        let p = parse("%YAML 1.1\n---\na: 1\n");
        assert!(p.issues.is_empty());
    }

    #[test]
    fn unhashable_keys() {
        let p = parse("? [a, b]\n: x\n");
        assert_eq!(kinds(&p), vec![IssueKind::Syntax]);
        assert!(p.issues[0].message.contains("list"));
    }

    #[test]
    fn issues_are_sorted() {
        let p = parse("a: yes\nb: 1\nb: no\nc: 012\n");
        let starts: Vec<usize> = p.issues.iter().map(|i| i.span.start).collect();
        let mut sorted = starts.clone();
        sorted.sort();
        assert_eq!(starts, sorted);
        assert_eq!(p.issues.len(), 4);
    }

    // ----- robustness

    /// Runs `parse` on another thread and fails if it takes too long.
    fn parse_in_time(s: String) -> Result<(), String> {
        let (tx, rx) = std::sync::mpsc::channel();
        let text = s.clone();
        std::thread::spawn(move || {
            let p = parse(&text);
            if let Some(r) = &p.root {
                check_spans(&text, r);
            }
            for i in &p.issues {
                assert!(i.span.start <= i.span.end && i.span.end <= text.len());
                assert!(text.is_char_boundary(i.span.start) && text.is_char_boundary(i.span.end));
            }
            let _ = tx.send(());
        });
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(()) => Ok(()),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(format!("parse hung on {s:?}")),
            Err(_) => Err(format!("parse panicked on {s:?}")),
        }
    }

    const FRAGMENTS: &[&str] = &[
        "&a ",
        "*a",
        "&b",
        "*b ",
        "- ",
        ": ",
        "? ",
        "\"",
        "'",
        "|",
        ">",
        "|-",
        ">+",
        "\t",
        "{",
        "}",
        "[",
        "]",
        ", ",
        "---",
        "...",
        "%YAML 1.1",
        "%TAG ! x",
        "!!str ",
        "!x ",
        "#",
        " # c",
        "\n",
        "\r\n",
        "  ",
        "a",
        "key",
        "yes",
        "012",
        "1:30",
        "2024-01-01",
        "é",
        "日本",
        "🎉",
        "\\",
        "\u{feff}",
        "~",
        "null",
        "0x1F",
        ".inf",
        "<<",
        "*",
        "&",
        "!",
        "@",
        "`",
        "%",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, ..Default::default() })]

        #[test]
        fn never_panics_on_arbitrary_strings(s in "\\PC*") {
            proptest::prop_assert!(parse_in_time(s).is_ok());
        }

        #[test]
        fn never_panics_on_arbitrary_chars(s in proptest::collection::vec(proptest::prelude::any::<char>(), 0..64)) {
            let s: String = s.into_iter().collect();
            proptest::prop_assert!(parse_in_time(s).is_ok());
        }

        #[test]
        fn never_panics_on_yaml_fragments(parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..40)) {
            let s: String = parts.concat();
            let r = parse_in_time(s);
            proptest::prop_assert!(r.is_ok(), "{}", r.unwrap_err());
        }
    }
}
