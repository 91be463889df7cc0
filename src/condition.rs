//! The condition language (decision D9).
//!
//! One grammar (`src/condition.pest`, parsed with pest) serves every place a
//! condition appears: tool `requires:`, `utter` `when:`, prose `if:`, `next`
//! branches, `complete_when` and response-variant `condition`.
//!
//! The language is a Python subset:
//!
//! - `or` < `and` < `not` < chained comparisons (`== != < <= > >=`), and
//!   parentheses. `not a == b` is `not (a == b)`; `a and b or c` is
//!   `(a and b) or c`; `a < b <= c` is `a < b and b <= c`.
//! - Literals: `True False None` and also `true false null`; integers
//!   (`42`, `1_000`, `0x1F`, `0o17`, `0b101`), floats (`1.5`, `.5`, `1e3`),
//!   negative numbers (`-5`, `-1.5`), strings in either quote style (also
//!   triple-quoted, `r`/`u` prefixes, Python escapes, adjacent literals
//!   concatenate).
//! - Memory: exactly `session.<namespace>.<entry>`, both parts Python
//!   identifiers (no hyphens, no keywords), where the namespace is a skill
//!   id, `project` or `system`.
//!
//! Everything else is a parse error with a span and a message written for
//! the author ([`ConditionError`]).
//!
//! Where we deliberately differ from the Python engine (see
//! `blocks-conditions.md` §1), with users in mind:
//!
//! - Whitespace around the condition is ignored (the engine rejects a
//!   leading space), and tokens may be separated by line breaks, so YAML
//!   literal block scalars (`|`) work too. `#` starts a comment.
//! - `true false null` are literals and negative numbers are allowed (D9).
//! - Exotic Python literals (bytes, imaginary numbers, `...`) and `\N{…}`
//!   escapes are rejected; integers must fit in 64 bits.
//! - The parenthesised-prefix quirk (`(session.a).b`) is rejected.
//! - Identifiers are compared as written (no NFKC normalisation).
//!
//! Evaluation ([`evaluate`], [`holds`]) follows §1.6: an unset entry is null;
//! `and`/`or` short-circuit and yield booleans; comparisons chain; `==`
//! treats booleans as numbers and compares ints and floats exactly; ordering
//! null, maps or mixed types is an [`EvalError`]. [`holds`] fails closed.
//!
//! Spans are byte offsets into the text given to [`parse`]. To point into
//! the file the condition came from, shift them by the offset of that text
//! ([`map_span`], [`ConditionError::shifted`], [`span_in_yaml`]).

use crate::source::Span;
use pest::Parser;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;

mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "condition.pest"]
    pub(super) struct ConditionParser;
}

use grammar::{ConditionParser, Rule};

type Pair<'a> = pest::iterators::Pair<'a, Rule>;

/// The memory-reference form, quoted in messages.
const MEMORY_FORM: &str = "session.<skill_id|project|system>.<entry>";

/// Deepest nesting a condition may have: open parentheses (and brackets)
/// plus every `not` so far. Keeps the recursive parser, printer and
/// evaluator far away from the stack limit, even in debug builds on a 2 MiB
/// thread stack.
pub const MAX_NESTING: usize = 32;

// ---------------------------------------------------------------------------
// AST

/// A parsed condition.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub expr: Expr,
    /// The text that was parsed; every span indexes into it.
    pub source: String,
}

/// One node of a condition, with its span in the parsed text.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Expr {
    pub kind: ExprKind,
    #[serde(skip)]
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExprKind {
    /// `a or b or …` (at least two operands when parsed).
    Or(Vec<Expr>),
    /// `a and b and …` (at least two operands when parsed).
    And(Vec<Expr>),
    Not(Box<Expr>),
    /// `first op1 e1 op2 e2 …` (at least one link when parsed).
    Compare {
        first: Box<Expr>,
        rest: Vec<(CmpOp, Expr)>,
    },
    Memory(MemoryRef),
    Literal(Literal),
}

/// `session.<namespace>.<entry>`.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct MemoryRef {
    pub namespace: String,
    pub entry: String,
    /// The whole `session.x.y`.
    #[serde(skip)]
    pub span: Span,
    #[serde(skip)]
    pub namespace_span: Span,
    #[serde(skip)]
    pub entry_span: Span,
}

impl MemoryRef {
    /// The fully qualified key `"<namespace>.<entry>"`.
    pub fn key(&self) -> String {
        format!("{}.{}", self.namespace, self.entry)
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
    fn from_str(s: &str) -> Option<CmpOp> {
        Some(match s {
            "==" => CmpOp::Eq,
            "!=" => CmpOp::Ne,
            "<" => CmpOp::Lt,
            "<=" => CmpOp::Le,
            ">" => CmpOp::Gt,
            ">=" => CmpOp::Ge,
            _ => return None,
        })
    }
}

impl fmt::Display for CmpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Condition {
    /// Every `session.N.E` in source order (duplicates included).
    pub fn references(&self) -> Vec<&MemoryRef> {
        let mut out = Vec::new();
        self.expr.collect_refs(&mut out);
        out
    }

    /// Shift every span by `offset` (see [`map_span`]).
    pub fn shifted(mut self, offset: usize) -> Self {
        self.expr.shift(offset);
        self
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Self {
        Expr { kind, span }
    }

    fn collect_refs<'a>(&'a self, out: &mut Vec<&'a MemoryRef>) {
        match &self.kind {
            ExprKind::Or(items) | ExprKind::And(items) => {
                items.iter().for_each(|e| e.collect_refs(out))
            }
            ExprKind::Not(e) => e.collect_refs(out),
            ExprKind::Compare { first, rest } => {
                first.collect_refs(out);
                rest.iter().for_each(|(_, e)| e.collect_refs(out));
            }
            ExprKind::Memory(m) => out.push(m),
            ExprKind::Literal(_) => {}
        }
    }

    /// Shift every span of this tree by `offset` bytes.
    pub fn shift(&mut self, offset: usize) {
        self.span = self.span.shifted(offset);
        match &mut self.kind {
            ExprKind::Or(items) | ExprKind::And(items) => {
                items.iter_mut().for_each(|e| e.shift(offset))
            }
            ExprKind::Not(e) => e.shift(offset),
            ExprKind::Compare { first, rest } => {
                first.shift(offset);
                rest.iter_mut().for_each(|(_, e)| e.shift(offset));
            }
            ExprKind::Memory(m) => {
                m.span = m.span.shifted(offset);
                m.namespace_span = m.namespace_span.shifted(offset);
                m.entry_span = m.entry_span.shifted(offset);
            }
            ExprKind::Literal(_) => {}
        }
    }

    /// Structural equality that ignores every span.
    pub fn eq_ignoring_spans(&self, other: &Expr) -> bool {
        use ExprKind::*;
        match (&self.kind, &other.kind) {
            (Or(a), Or(b)) | (And(a), And(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.eq_ignoring_spans(y))
            }
            (Not(a), Not(b)) => a.eq_ignoring_spans(b),
            (
                Compare {
                    first: f1,
                    rest: r1,
                },
                Compare {
                    first: f2,
                    rest: r2,
                },
            ) => {
                f1.eq_ignoring_spans(f2)
                    && r1.len() == r2.len()
                    && r1
                        .iter()
                        .zip(r2)
                        .all(|((o1, e1), (o2, e2))| o1 == o2 && e1.eq_ignoring_spans(e2))
            }
            (Memory(a), Memory(b)) => a.namespace == b.namespace && a.entry == b.entry,
            (Literal(a), Literal(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print(self))
    }
}

// ---------------------------------------------------------------------------
// Errors and spans

/// A condition that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionError {
    /// One line naming the offending token, e.g. "`=` is assignment; use
    /// `==` to compare".
    pub message: String,
    /// The offending token, as byte offsets into the parsed text.
    pub span: Span,
    /// The fix, when there is one to suggest.
    pub help: Option<String>,
}

impl ConditionError {
    fn new(message: impl Into<String>, span: Span) -> Self {
        ConditionError {
            message: message.into(),
            span,
            help: None,
        }
    }
    fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    /// The same error with its span shifted by `offset` (see [`map_span`]).
    pub fn shifted(mut self, offset: usize) -> Self {
        self.span = self.span.shifted(offset);
        self
    }
}

impl fmt::Display for ConditionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConditionError {}

/// Map a span inside a condition's text to the file the text came from.
///
/// `text_offset` is the byte offset of the condition text in the file. For a
/// YAML scalar that is `crate::yaml::inner_span(node, file).start` when the
/// file's bytes are the value itself: plain scalars on one line, and quoted
/// scalars without escapes. Otherwise use [`span_in_yaml`], which falls back
/// to the whole scalar.
pub fn map_span(inner: Span, text_offset: usize) -> Span {
    inner.shifted(text_offset)
}

/// Map a span inside the string value of YAML scalar `node` to `file_text`
/// (the text the node was parsed from). Exact when the scalar's bytes in the
/// file equal its value; otherwise (escapes, folded lines, block scalars) the
/// span of the whole scalar.
pub fn span_in_yaml(inner: Span, node: &crate::yaml::Node, file_text: &str) -> Span {
    let raw = crate::yaml::inner_span(node, file_text);
    match (file_text.get(raw.range()), node.as_str()) {
        (Some(r), Some(v)) if r == v && inner.end <= r.len() => map_span(inner, raw.start),
        _ => node.span,
    }
}

// ---------------------------------------------------------------------------
// Parsing

/// Parse one condition. Surrounding whitespace is ignored; spans are byte
/// offsets into `text`.
pub fn parse(text: &str) -> Result<Condition, ConditionError> {
    let toks = lex(text);
    check_nesting(&toks)?;
    let mut pairs = match ConditionParser::parse(Rule::condition, text) {
        Ok(p) => p,
        Err(e) => {
            let pos = match e.location {
                pest::error::InputLocation::Pos(p) => p,
                pest::error::InputLocation::Span((s, _)) => s,
            };
            return Err(diagnose(text, &toks, pos));
        }
    };
    let condition = pairs.next().expect("condition rule");
    let or = condition
        .into_inner()
        .next()
        .expect("condition has an or_expr");
    Ok(Condition {
        expr: build(or)?,
        source: text.to_string(),
    })
}

/// The span of a pair without the whitespace and comments pest lets a
/// non-atomic rule swallow at its end: it ends where its last token ends.
fn span_of(p: &Pair<'_>) -> Span {
    let s = p.as_span();
    let end = p
        .clone()
        .into_inner()
        .flatten()
        .filter(|t| t.clone().into_inner().next().is_none())
        .map(|t| t.as_span().end())
        .max()
        .unwrap_or(s.end());
    Span::new(s.start(), end)
}

fn build(pair: Pair<'_>) -> Result<Expr, ConditionError> {
    let span = span_of(&pair);
    match pair.as_rule() {
        Rule::or_expr | Rule::and_expr => {
            let is_or = pair.as_rule() == Rule::or_expr;
            let mut items = Vec::new();
            for p in pair.into_inner() {
                if !matches!(p.as_rule(), Rule::kw_or | Rule::kw_and) {
                    items.push(build(p)?);
                }
            }
            if items.len() == 1 {
                return Ok(items.pop().expect("one item"));
            }
            let kind = if is_or {
                ExprKind::Or(items)
            } else {
                ExprKind::And(items)
            };
            Ok(Expr::new(kind, span))
        }
        Rule::not_expr => {
            let mut inner = pair.into_inner();
            let first = inner.next().expect("not_expr has a child");
            if first.as_rule() == Rule::kw_not {
                let operand = build(inner.next().expect("`not` has an operand"))?;
                Ok(Expr::new(ExprKind::Not(Box::new(operand)), span))
            } else {
                build(first)
            }
        }
        Rule::comparison => {
            let mut inner = pair.into_inner();
            let first = build(inner.next().expect("comparison has an operand"))?;
            let mut rest = Vec::new();
            while let Some(op) = inner.next() {
                let op = CmpOp::from_str(op.as_str()).expect("cmp_op is one of the six");
                let operand = build(inner.next().expect("operator has an operand"))?;
                rest.push((op, operand));
            }
            if rest.is_empty() {
                return Ok(first);
            }
            Ok(Expr::new(
                ExprKind::Compare {
                    first: Box::new(first),
                    rest,
                },
                span,
            ))
        }
        Rule::paren => build(pair.into_inner().next().expect("paren has an or_expr")),
        Rule::constant => {
            let lit = match pair.as_str() {
                "True" | "true" => Literal::Bool(true),
                "False" | "false" => Literal::Bool(false),
                _ => Literal::Null,
            };
            Ok(Expr::new(ExprKind::Literal(lit), span))
        }
        Rule::number => {
            let mut negative = false;
            let mut digits = "";
            for p in pair.into_inner() {
                match p.as_rule() {
                    Rule::minus => negative = true,
                    _ => digits = p.as_str(),
                }
            }
            let lit = parse_number(digits, negative).map_err(|(msg, help)| {
                let e = ConditionError::new(msg, span);
                match help {
                    Some(h) => e.help(h),
                    None => e,
                }
            })?;
            Ok(Expr::new(ExprKind::Literal(lit), span))
        }
        Rule::strings => {
            let mut s = String::new();
            for p in pair.into_inner() {
                s.push_str(&decode_string(p.as_str(), p.as_span().start())?);
            }
            Ok(Expr::new(ExprKind::Literal(Literal::Str(s)), span))
        }
        Rule::name_chain => build_name(pair, span),
        r => unreachable!("unexpected rule {r:?} in a condition"),
    }
}

const PY_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

fn build_name(pair: Pair<'_>, span: Span) -> Result<Expr, ConditionError> {
    let text = pair.as_str().to_string();
    let segs: Vec<(String, Span)> = pair
        .into_inner()
        .map(|p| (p.as_str().to_string(), span_of(&p)))
        .collect();
    let head = segs[0].0.as_str();
    if head != "session" {
        if segs.len() == 1 {
            return Err(unknown_name(head, span));
        }
        let e = ConditionError::new(
            format!("`{text}` is not a memory reference: memory is written `{MEMORY_FORM}`"),
            span,
        );
        return Err(if head.eq_ignore_ascii_case("session") {
            e.help("`session` is written in lower case")
        } else {
            e
        });
    }
    match segs.len() {
        1 | 2 => {
            let e = ConditionError::new(
                format!(
                    "`{text}` is an incomplete memory reference: write `session.<namespace>.<entry>`"
                ),
                span,
            );
            Err(if segs.len() == 2 {
                let entry = &segs[1].0;
                e.help(format!(
                    "name the namespace (a skill id, `project` or `system`), e.g. \
                     `session.project.{entry}` or `session.<skill_id>.{entry}`"
                ))
            } else {
                e.help(format!("memory is written `{MEMORY_FORM}`"))
            })
        }
        3 => {
            for (seg, seg_span) in &segs[1..] {
                if PY_KEYWORDS.contains(&seg.as_str()) {
                    return Err(ConditionError::new(
                        format!(
                            "`{seg}` is a Python keyword and cannot be used as a name in a memory reference"
                        ),
                        *seg_span,
                    )
                    .help("rename the skill or the memory entry"));
                }
            }
            Ok(Expr::new(
                ExprKind::Memory(MemoryRef {
                    namespace: segs[1].0.clone(),
                    entry: segs[2].0.clone(),
                    span,
                    namespace_span: segs[1].1,
                    entry_span: segs[2].1,
                }),
                span,
            ))
        }
        _ => Err(ConditionError::new(
            format!("`{text}` has too many parts: memory is written `session.<namespace>.<entry>`"),
            span,
        )
        .help("conditions cannot read inside a memory value; compare the whole entry")),
    }
}

fn unknown_name(name: &str, span: Span) -> ConditionError {
    let e = ConditionError::new(
        format!("unknown name `{name}`: memory is written `{MEMORY_FORM}`"),
        span,
    );
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "true" => e.help("write `True` (or `true`)"),
        "false" => e.help("write `False` (or `false`)"),
        "none" | "null" | "nil" => e.help("write `None` (or `null`)"),
        "session" => e.help("`session` is written in lower case"),
        _ => e.help(format!(
            "for a memory entry write `session.<skill_id>.{name}` or `session.project.{name}`; \
             for a text, quote it: '{name}'"
        )),
    }
}

type NumError = (String, Option<String>);

/// Parse the unsigned number token `text` (the grammar accepts any
/// number-like run of characters) into a literal.
fn parse_number(text: &str, negative: bool) -> Result<Literal, NumError> {
    let invalid = || (format!("`{text}` is not a valid number"), None);
    let lower = text.to_ascii_lowercase();
    if lower.ends_with('j')
        && lower[..lower.len() - 1]
            .chars()
            .all(|c| c.is_ascii_digit() || "._e+-".contains(c))
    {
        return Err((
            format!("imaginary numbers like `{text}` are not supported in conditions"),
            None,
        ));
    }
    let out_of_range = || {
        (
            format!("the integer `{text}` is too large: conditions use 64-bit integers"),
            None,
        )
    };
    let radix = if lower.starts_with("0x") {
        Some(16)
    } else if lower.starts_with("0o") {
        Some(8)
    } else if lower.starts_with("0b") {
        Some(2)
    } else {
        None
    };
    let magnitude: i128 = if let Some(radix) = radix {
        let rest = &lower[2..];
        let rest = rest.strip_prefix('_').unwrap_or(rest);
        if !valid_digitpart(rest, |c| c.is_digit(radix)) {
            return Err(invalid());
        }
        let clean: String = rest.chars().filter(|&c| c != '_').collect();
        i128::from_str_radix(&clean, radix).map_err(|_| out_of_range())?
    } else if lower.contains(['.', 'e']) {
        if !valid_float(&lower) {
            return Err(invalid());
        }
        let clean: String = lower.chars().filter(|&c| c != '_').collect();
        let f: f64 = clean.parse().map_err(|_| invalid())?;
        return Ok(Literal::Float(if negative { -f } else { f }));
    } else {
        if !valid_digitpart(&lower, |c| c.is_ascii_digit()) {
            return Err(invalid());
        }
        let clean: String = lower.chars().filter(|&c| c != '_').collect();
        if clean.len() > 1 && clean.starts_with('0') && clean.bytes().any(|b| b != b'0') {
            let fixed = clean.trim_start_matches('0');
            return Err((
                format!("leading zeros are not allowed in the integer `{text}`"),
                Some(format!(
                    "write `{fixed}` (or `0o{fixed}` for an octal number)"
                )),
            ));
        }
        clean.parse::<i128>().map_err(|_| out_of_range())?
    };
    let value = if negative { -magnitude } else { magnitude };
    i64::try_from(value)
        .map(Literal::Int)
        .map_err(|_| out_of_range())
}

/// `digit ("_"? digit)*`
fn valid_digitpart(s: &str, is_digit: impl Fn(char) -> bool) -> bool {
    let mut prev_digit = false;
    for c in s.chars() {
        if c == '_' {
            if !prev_digit {
                return false;
            }
            prev_digit = false;
        } else if is_digit(c) {
            prev_digit = true;
        } else {
            return false;
        }
    }
    prev_digit
}

/// Python's float literal (lower-cased): `[digits] . [digits] [exponent]` or
/// `digits exponent`.
fn valid_float(s: &str) -> bool {
    let digits = |p: &str| valid_digitpart(p, |c| c.is_ascii_digit());
    let (mantissa, exponent) = match s.split_once('e') {
        Some((m, e)) => (m, Some(e)),
        None => (s, None),
    };
    if let Some(e) = exponent {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if !digits(e) {
            return false;
        }
    }
    match mantissa.split_once('.') {
        Some((int, frac)) => {
            (int.is_empty() || digits(int))
                && (frac.is_empty() || digits(frac))
                && !(int.is_empty() && frac.is_empty())
        }
        None => exponent.is_some() && digits(mantissa),
    }
}

/// Decode one string token (prefix, quotes and body) starting at byte
/// `start` of the condition text.
fn decode_string(tok: &str, start: usize) -> Result<String, ConditionError> {
    let prefix_len = tok.find(['\'', '"']).unwrap_or(0);
    let prefix = tok[..prefix_len].to_ascii_lowercase();
    let tok_span = Span::new(start, start + tok.len());
    let raw = match prefix.as_str() {
        "" | "u" => false,
        "r" => true,
        "f" | "fr" | "rf" => {
            return Err(
                ConditionError::new("f-strings are not supported in conditions", tok_span)
                    .help("compare with a plain string: remove the `f` prefix"),
            )
        }
        "b" | "br" | "rb" => {
            return Err(ConditionError::new(
                "bytes literals are not supported in conditions",
                tok_span,
            )
            .help("compare with a plain string: remove the `b` prefix"))
        }
        _ => {
            return Err(ConditionError::new(
                format!("`{}` is not a valid string prefix", &tok[..prefix_len]),
                Span::new(start, start + prefix_len),
            )
            .help("use a plain string, or the `r` prefix for a raw string"))
        }
    };
    let rest = &tok[prefix_len..];
    let q = if rest.len() >= 6 && (rest.starts_with("\"\"\"") || rest.starts_with("'''")) {
        3
    } else {
        1
    };
    let body = &rest[q..rest.len() - q];
    if raw {
        return Ok(body.to_string());
    }
    let body_start = start + prefix_len + q;
    let mut out = String::with_capacity(body.len());
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, e)) = chars.next() else {
            out.push('\\');
            break;
        };
        let esc_err = |end: usize, msg: String| {
            ConditionError::new(msg, Span::new(body_start + i, body_start + end))
        };
        match e {
            '\n' => {}
            '\r' => {
                if let Some((_, '\n')) = chars.peek() {
                    chars.next();
                }
            }
            '\\' | '\'' | '"' => out.push(e),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek() {
                        Some(&(_, d)) if d.is_digit(8) => {
                            v = v * 8 + d.to_digit(8).unwrap_or(0);
                            chars.next();
                        }
                        _ => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('\u{FFFD}'));
            }
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut v: u32 = 0;
                let mut end = i + 2;
                for _ in 0..n {
                    match chars.peek() {
                        Some(&(j, d)) if d.is_ascii_hexdigit() => {
                            v = v * 16 + d.to_digit(16).unwrap_or(0);
                            end = j + 1;
                            chars.next();
                        }
                        _ => {
                            return Err(esc_err(
                                end,
                                format!("`\\{e}` must be followed by {n} hexadecimal digits"),
                            ))
                        }
                    }
                }
                match char::from_u32(v) {
                    Some(ch) => out.push(ch),
                    None => {
                        return Err(esc_err(
                            end,
                            format!("`{}` is not a valid character", &body[i..end]),
                        ))
                    }
                }
            }
            'N' => {
                return Err(esc_err(
                    i + 2,
                    "`\\N{…}` escapes are not supported in conditions".to_string(),
                )
                .help("write the character itself, or use `\\u` with its code point"))
            }
            other => {
                // Python keeps unknown escapes as they are.
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Diagnostics for text the grammar rejects

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokKind {
    Ident,
    Number,
    Str { terminated: bool },
    Punct,
    Other,
}

#[derive(Debug, Clone, Copy)]
struct Tok<'a> {
    kind: TokKind,
    span: Span,
    text: &'a str,
}

impl Tok<'_> {
    fn is(&self, s: &str) -> bool {
        matches!(self.kind, TokKind::Punct | TokKind::Ident) && self.text == s
    }
}

const PUNCTS: &[&str] = &[
    "...", "===", "**", "//", "==", "!=", "<=", ">=", "<>", "<<", ">>", "&&", "||", ":=", "->",
    "=", "<", ">", "!", "&", "|", "+", "-", "*", "/", "%", "@", "^", "~", "(", ")", "[", "]", "{",
    "}", ",", ":", ".", ";",
];

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}
fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// A rough Python tokenizer, used only to explain a parse error.
fn lex<'a>(text: &'a str) -> Vec<Tok<'a>> {
    let mut out: Vec<Tok<'a>> = Vec::new();
    let mut i = 0;
    let n = text.len();
    let at = |i: usize| text[i..].chars().next();
    while let Some(c) = at(i) {
        let start = i;
        let push = |out: &mut Vec<Tok<'a>>, kind, end: usize| {
            out.push(Tok {
                kind,
                span: Span::new(start, end),
                text: &text[start..end],
            })
        };
        match c {
            ' ' | '\t' | '\x0c' | '\r' | '\n' => i += 1,
            '\\' if matches!(at(i + 1), Some('\n' | '\r')) => i += 2,
            '#' => {
                while let Some(c) = at(i) {
                    if c == '\n' || c == '\r' {
                        break;
                    }
                    i += c.len_utf8();
                }
            }
            _ => {
                // A string, possibly with a prefix of up to two letters.
                let mut p = i;
                while p - i < 2
                    && matches!(at(p), Some('r' | 'R' | 'u' | 'U' | 'f' | 'F' | 'b' | 'B'))
                {
                    p += 1;
                }
                if let Some(q @ ('\'' | '"')) = at(p) {
                    let (end, terminated) = scan_string(text, p, q);
                    push(&mut out, TokKind::Str { terminated }, end);
                    i = end;
                    continue;
                }
                let after_name = out
                    .last()
                    .is_some_and(|t| t.kind == TokKind::Ident || t.is(")"));
                if c.is_ascii_digit()
                    || (c == '.' && !after_name && at(i + 1).is_some_and(|d| d.is_ascii_digit()))
                {
                    i += 1;
                    while let Some(c) = at(i) {
                        if (c == 'e' || c == 'E') && matches!(at(i + 1), Some('+' | '-')) {
                            i += 2;
                        } else if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    push(&mut out, TokKind::Number, i);
                } else if is_ident_start(c) {
                    i += c.len_utf8();
                    while let Some(c) = at(i).filter(|&c| is_ident_continue(c)) {
                        i += c.len_utf8();
                    }
                    push(&mut out, TokKind::Ident, i);
                } else if let Some(p) = PUNCTS.iter().find(|p| text[i..].starts_with(**p)) {
                    i += p.len();
                    push(&mut out, TokKind::Punct, i);
                } else {
                    i += c.len_utf8();
                    push(&mut out, TokKind::Other, i);
                }
            }
        }
        debug_assert!(i <= n);
    }
    out
}

/// Scan a string literal whose opening quote is at `q_at`; returns the end
/// offset and whether it is terminated.
fn scan_string(text: &str, q_at: usize, q: char) -> (usize, bool) {
    let triple: String = std::iter::repeat_n(q, 3).collect();
    let is_triple = text[q_at..].starts_with(&triple);
    let mut i = q_at + if is_triple { 3 } else { 1 };
    while let Some(c) = text[i..].chars().next() {
        if c == '\\' {
            i += 1;
            if let Some(d) = text[i..].chars().next() {
                i += d.len_utf8();
            }
        } else if is_triple && text[i..].starts_with(&triple) {
            return (i + 3, true);
        } else if !is_triple && c == q {
            return (i + 1, true);
        } else if !is_triple && (c == '\n' || c == '\r') {
            return (i, false);
        } else {
            i += c.len_utf8();
        }
    }
    (text.len(), false)
}

fn check_nesting(toks: &[Tok<'_>]) -> Result<(), ConditionError> {
    let mut depth = 0usize;
    let mut nots = 0usize;
    for t in toks {
        if t.is("(") || t.is("[") || t.is("{") {
            depth += 1;
        } else if t.is(")") || t.is("]") || t.is("}") {
            depth = depth.saturating_sub(1);
        } else if t.is("not") {
            nots += 1;
        }
        if depth + nots > MAX_NESTING {
            return Err(ConditionError::new(
                format!("the condition is nested too deeply (more than {MAX_NESTING} levels)"),
                t.span,
            )
            .help("simplify the condition"));
        }
    }
    Ok(())
}

fn quote_tok(t: &Tok<'_>) -> String {
    let s = t.text;
    if s.chars().count() > 30 {
        let cut: String = s.chars().take(27).collect();
        format!("`{cut}…`")
    } else if t.kind == TokKind::Other {
        format!("`{}`", s.escape_debug())
    } else {
        format!("`{s}`")
    }
}

const VALUE_HELP: &str = "a value is a memory reference `session.<namespace>.<entry>`, a string, \
                          a number, `True`, `False` or `None`";
const OPERATOR_HELP: &str =
    "compare with `==`, `!=`, `<`, `<=`, `>`, `>=`, or join conditions with `and` / `or`";

const UNSUPPORTED_KEYWORDS: &[(&str, &str)] = &[
    (
        "if",
        "conditional expressions (`… if … else …`) are not supported in conditions",
    ),
    (
        "else",
        "conditional expressions (`… if … else …`) are not supported in conditions",
    ),
    ("for", "comprehensions are not supported in conditions"),
    ("lambda", "`lambda` is not supported in conditions"),
    ("await", "`await` is not supported in conditions"),
];

/// Explain why the grammar stopped at byte `pos`.
fn diagnose(text: &str, toks: &[Tok<'_>], pos: usize) -> ConditionError {
    let idx = toks
        .iter()
        .position(|t| t.span.end > pos)
        .unwrap_or(toks.len());
    let cur = toks.get(idx);
    let prev = idx.checked_sub(1).map(|j| &toks[j]);
    let end = Span::at(text.len());
    let mut open: Vec<Span> = Vec::new();
    for t in &toks[..idx] {
        if t.is("(") {
            open.push(t.span);
        } else if t.is(")") {
            open.pop();
        }
    }

    // An unterminated string is the problem wherever it stands.
    if let Some(t) = cur {
        if t.kind == (TokKind::Str { terminated: false }) {
            return ConditionError::new("unterminated string literal", t.span)
                .help("close the string with the quote it starts with");
        }
    }

    enum Want {
        Value,
        Number,
        Name,
        Operator,
    }
    let want = match prev {
        None => Want::Value,
        Some(p) if p.is("(") || p.is("and") || p.is("or") || p.is("not") => Want::Value,
        Some(p) if CmpOp::from_str(p.text).is_some() && p.kind == TokKind::Punct => Want::Value,
        Some(p) if p.is("-") => Want::Number,
        Some(p) if p.is(".") => Want::Name,
        Some(_) => Want::Operator,
    };
    let after = match prev {
        None => "at the start of the condition".to_string(),
        Some(p) => format!("after {}", quote_tok(p)),
    };

    match want {
        Want::Name => {
            let p = prev.expect("a `.` precedes");
            match cur {
                Some(t) if t.kind == TokKind::Number => ConditionError::new(
                    format!(
                        "expected a name after `.`, found {}: names cannot start with a digit",
                        quote_tok(t)
                    ),
                    t.span,
                )
                .help(format!("memory is written `{MEMORY_FORM}`")),
                Some(t) => ConditionError::new(
                    format!("expected a name after `.`, found {}", quote_tok(t)),
                    t.span,
                )
                .help(format!("memory is written `{MEMORY_FORM}`")),
                None => ConditionError::new("expected a name after `.`", p.span)
                    .help(format!("memory is written `{MEMORY_FORM}`")),
            }
        }
        Want::Number => {
            let p = prev.expect("a `-` precedes");
            let span = Span::new(p.span.start, cur.map_or(p.span.end, |t| t.span.end));
            ConditionError::new(
                "`-` is only allowed as the sign of a number, like `-5`",
                span,
            )
            .help("arithmetic is not supported in conditions")
        }
        Want::Value => match cur {
            None if prev.is_none() => {
                ConditionError::new("the condition is empty", Span::new(0, text.len()))
                    .help(VALUE_HELP)
            }
            None => {
                let p = prev.expect("checked");
                ConditionError::new(format!("expected a value after {}", quote_tok(p)), p.span)
                    .help(VALUE_HELP)
            }
            Some(t) => value_error(t, prev, &after, open.is_empty()),
        },
        Want::Operator => {
            let p = prev.expect("an operand precedes");
            let lhs = operand_text(text, toks, idx - 1);
            let Some(t) = cur else {
                if let Some(o) = open.last() {
                    return ConditionError::new("unclosed `(`", *o).help("add the matching `)`");
                }
                return ConditionError::new(format!("unexpected end after `{lhs}`"), end);
            };
            operator_error(t, p, toks.get(idx + 1), &lhs, open.is_empty())
        }
    }
}

/// The text of the operand that ends at token `last`, for messages.
fn operand_text(text: &str, toks: &[Tok<'_>], last: usize) -> String {
    let mut first = last;
    if toks[last].kind == TokKind::Ident {
        while first >= 2 && toks[first - 1].is(".") && toks[first - 2].kind == TokKind::Ident {
            first -= 2;
        }
    } else if toks[last].is(")") {
        let mut depth = 0usize;
        let mut j = last;
        loop {
            if toks[j].is(")") {
                depth += 1;
            } else if toks[j].is("(") {
                depth -= 1;
                if depth == 0 {
                    first = j;
                    break;
                }
            }
            if j == 0 {
                break;
            }
            j -= 1;
        }
    } else if toks[last].kind == TokKind::Number && last >= 1 && toks[last - 1].is("-") {
        first = last - 1;
    }
    let s = &text[toks[first].span.start..toks[last].span.end];
    if s.chars().count() > 40 {
        let cut: String = s.chars().take(37).collect();
        format!("{cut}…")
    } else {
        s.to_string()
    }
}

/// Unicode whitespace that Python does not accept between tokens.
fn other_char(t: &Tok<'_>) -> Option<ConditionError> {
    let c = t.text.chars().next()?;
    c.is_whitespace().then(|| {
        ConditionError::new(
            format!("unexpected whitespace character U+{:04X}", c as u32),
            t.span,
        )
        .help("use a plain space")
    })
}

fn value_error(
    t: &Tok<'_>,
    prev: Option<&Tok<'_>>,
    after: &str,
    no_open_paren: bool,
) -> ConditionError {
    let q = quote_tok(t);
    let e = |msg: String| ConditionError::new(msg, t.span);
    if t.is(")") {
        if prev.is_some_and(|p| p.is("(")) {
            return e("empty parentheses `()`".into()).help(VALUE_HELP);
        }
        if no_open_paren {
            return e("unmatched `)`".into()).help("remove it, or add the matching `(`");
        }
        return e(format!("expected a value before `)`, {after}")).help(VALUE_HELP);
    }
    if t.is("not") {
        if let Some(p) = prev.filter(|p| CmpOp::from_str(p.text).is_some()) {
            return e(format!(
                "`not` cannot directly follow `{}`; wrap it in parentheses",
                p.text
            ))
            .help(format!("write `{} (not …)`", p.text));
        }
    }
    if t.kind == TokKind::Ident {
        if let Some((_, msg)) = UNSUPPORTED_KEYWORDS.iter().find(|(k, _)| *k == t.text) {
            return e(msg.to_string());
        }
        if PY_KEYWORDS.contains(&t.text) {
            return e(format!("expected a value {after}, found the keyword {q}")).help(VALUE_HELP);
        }
    }
    match t.text {
        "+" if t.kind == TokKind::Punct => {
            return e("unary `+` is not supported; write the number without a sign".into())
        }
        "-" if t.kind == TokKind::Punct => {
            return e("`-` is only allowed as the sign of a number, like `-5`".into())
                .help("arithmetic is not supported in conditions")
        }
        "!" if t.kind == TokKind::Punct => return e("`!` is not supported; use `not`".into()),
        "~" if t.kind == TokKind::Punct => return e("`~` is not supported; use `not`".into()),
        "[" if t.kind == TokKind::Punct => {
            return e("lists are not supported in conditions".into())
                .help("compare with each value: `x == 'a' or x == 'b'`")
        }
        "{" if t.kind == TokKind::Punct => {
            return e("dicts and sets are not supported in conditions".into())
        }
        "..." if t.kind == TokKind::Punct => {
            return e("`...` (Ellipsis) is not supported in conditions".into())
        }
        _ => {}
    }
    if t.kind == TokKind::Other {
        return other_char(t)
            .unwrap_or_else(|| e(format!("unexpected character {q}")).help(VALUE_HELP));
    }
    e(format!("expected a value {after}, found {q}")).help(VALUE_HELP)
}

fn operator_error(
    t: &Tok<'_>,
    prev: &Tok<'_>,
    next: Option<&Tok<'_>>,
    lhs: &str,
    no_open_paren: bool,
) -> ConditionError {
    let q = quote_tok(t);
    let e = |msg: String| ConditionError::new(msg, t.span);
    if t.kind == TokKind::Punct {
        let msg = match t.text {
            "=" if next.is_some_and(|n| (n.is("<") || n.is(">")) && n.span.start == t.span.end) => {
                let n = next.expect("checked");
                return ConditionError::new(
                    format!("`={}` is not an operator; use `{}=`", n.text, n.text),
                    Span::new(t.span.start, n.span.end),
                );
            }
            "=" => {
                return e("`=` is assignment; use `==` to compare".into())
                    .help(format!("write `{lhs} == …`"))
            }
            "===" => "`===` is not supported; use `==`",
            "<>" => "`<>` is not supported; use `!=`",
            "&&" => "`&&` is not supported; use `and`",
            "||" => "`||` is not supported; use `or`",
            "&" => "`&` is not supported; use `and`",
            "|" => "`|` is not supported; use `or`",
            "!" => "`!` is not supported; use `!=` to compare or `not` to negate",
            ":=" => "`:=` (assignment expression) is not supported; use `==` to compare",
            "," => "`,` is not allowed: a condition is one expression (tuples are not supported)",
            ")" if no_open_paren => {
                return e("unmatched `)`".into()).help("remove it, or add the matching `(`")
            }
            "(" => {
                return e(format!(
                    "calling `{lhs}` is not supported: conditions have no functions"
                ))
                .help(OPERATOR_HELP)
            }
            "[" => "indexing (`[…]`) is not supported in conditions",
            "." => {
                return e(format!(
                    "attribute access is only allowed in memory references `{MEMORY_FORM}`"
                ))
            }
            "-" if prev.kind == TokKind::Ident
                && prev.span.end == t.span.start
                && next.is_some_and(|n| n.kind == TokKind::Ident && n.span.start == t.span.end) =>
            {
                let n = next.expect("checked");
                let name = format!("{}-{}", prev.text, n.text);
                let fixed = name.replace('-', "_");
                return ConditionError::new(
                    format!(
                        "`{name}` is not a valid name: names in conditions are Python identifiers and cannot contain `-`"
                    ),
                    Span::new(prev.span.start, n.span.end),
                )
                .help(format!(
                    "a skill or entry whose name contains `-` cannot be referenced in a condition; rename it (e.g. `{fixed}`)"
                ));
            }
            "@" | "^" | "<<" | ">>" | "~" => {
                return e(format!("`{}` is not supported in conditions", t.text))
                    .help(OPERATOR_HELP)
            }
            "+" | "-" | "*" | "/" | "//" | "%" | "**" => {
                return e(format!(
                    "arithmetic (`{}`) is not supported in conditions",
                    t.text
                ))
                .help(OPERATOR_HELP)
            }
            _ => "",
        };
        if !msg.is_empty() {
            return e(msg.to_string());
        }
    }
    if prev.kind == TokKind::Ident {
        let lower = prev.text.to_ascii_lowercase();
        if matches!(lower.as_str(), "and" | "or" | "not") && prev.text != lower {
            return ConditionError::new(
                format!(
                    "`{}` is not an operator: keywords are lower-case; use `{lower}`",
                    prev.text
                ),
                prev.span,
            );
        }
    }
    if t.kind == TokKind::Ident {
        match t.text {
            "in" => return e(
                "`in` is not supported: conditions compare with `==`, `!=`, `<`, `<=`, `>`, `>=`"
                    .into(),
            )
            .help("compare with each value: `x == 'a' or x == 'b'`"),
            "is" => {
                if next.is_some_and(|n| n.is("not")) {
                    let n = next.expect("checked");
                    return ConditionError::new(
                        "`is not` is not supported; use `!=`",
                        Span::new(t.span.start, n.span.end),
                    )
                    .help(format!("write `{lhs} != …`"));
                }
                return e("`is` is not supported; use `==`".into())
                    .help(format!("write `{lhs} == …`, e.g. `{lhs} == None`"));
            }
            "not" => {
                if next.is_some_and(|n| n.is("in")) {
                    let n = next.expect("checked");
                    return ConditionError::new(
                        "`not in` is not supported: conditions compare with `==`, `!=`, `<`, `<=`, `>`, `>=`",
                        Span::new(t.span.start, n.span.end),
                    )
                    .help("compare with each value: `x != 'a' and x != 'b'`");
                }
                return e(format!(
                    "`not` cannot follow `{lhs}`; did you mean `and not`?"
                ))
                .help(OPERATOR_HELP);
            }
            _ => {}
        }
        if let Some((_, msg)) = UNSUPPORTED_KEYWORDS.iter().find(|(k, _)| *k == t.text) {
            return e(msg.to_string());
        }
        let lower = t.text.to_ascii_lowercase();
        if matches!(lower.as_str(), "and" | "or" | "not") {
            return e(format!(
                "{q} is not an operator: keywords are lower-case; use `{lower}`"
            ));
        }
    }
    if t.kind == TokKind::Other {
        return other_char(t).unwrap_or_else(|| {
            e(format!("unexpected character {q} after `{lhs}`")).help(OPERATOR_HELP)
        });
    }
    e(format!(
        "expected a comparison operator after `{lhs}`, found {q}"
    ))
    .help(OPERATOR_HELP)
}

// ---------------------------------------------------------------------------
// Printing

/// Canonical text of `expr`: `parse(&print(e))` gives an AST equal to `e`
/// (ignoring spans). Strings use double quotes; floats always show a `.` or
/// an exponent; infinities print as `1e309` / `-1e309`. (NaN has no literal
/// and never comes out of [`parse`]; it prints as `nan`, which does not
/// parse.)
pub fn print(expr: &Expr) -> String {
    let mut out = String::new();
    print_into(expr, &mut out);
    out
}

fn print_into(expr: &Expr, out: &mut String) {
    let child = |e: &Expr, paren: bool, out: &mut String| {
        if paren {
            out.push('(');
            print_into(e, out);
            out.push(')');
        } else {
            print_into(e, out);
        }
    };
    match &expr.kind {
        ExprKind::Or(items) => {
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(" or ");
                }
                child(e, matches!(e.kind, ExprKind::Or(_)), out);
            }
        }
        ExprKind::And(items) => {
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(" and ");
                }
                child(e, matches!(e.kind, ExprKind::Or(_) | ExprKind::And(_)), out);
            }
        }
        ExprKind::Not(e) => {
            out.push_str("not ");
            child(e, matches!(e.kind, ExprKind::Or(_) | ExprKind::And(_)), out);
        }
        ExprKind::Compare { first, rest } => {
            let operand = |e: &Expr| {
                matches!(
                    e.kind,
                    ExprKind::Or(_)
                        | ExprKind::And(_)
                        | ExprKind::Not(_)
                        | ExprKind::Compare { .. }
                )
            };
            child(first, operand(first), out);
            for (op, e) in rest {
                out.push(' ');
                out.push_str(op.as_str());
                out.push(' ');
                child(e, operand(e), out);
            }
        }
        ExprKind::Memory(m) => {
            out.push_str("session.");
            out.push_str(&m.namespace);
            out.push('.');
            out.push_str(&m.entry);
        }
        ExprKind::Literal(l) => print_literal(l, out),
    }
}

fn print_literal(l: &Literal, out: &mut String) {
    match l {
        Literal::Null => out.push_str("None"),
        Literal::Bool(true) => out.push_str("True"),
        Literal::Bool(false) => out.push_str("False"),
        Literal::Int(i) => out.push_str(&i.to_string()),
        Literal::Float(f) => out.push_str(&format_float(*f)),
        Literal::Str(s) => {
            out.push('"');
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '"' => out.push_str("\\\""),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if c.is_control() => {
                        let v = c as u32;
                        if v <= 0xff {
                            out.push_str(&format!("\\x{v:02x}"));
                        } else {
                            out.push_str(&format!("\\u{v:04x}"));
                        }
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
        }
    }
}

fn format_float(f: f64) -> String {
    if f.is_infinite() {
        if f > 0.0 { "1e309" } else { "-1e309" }.to_string()
    } else if f.is_nan() {
        "nan".to_string()
    } else {
        // Debug always shows a `.` or an exponent and round-trips exactly.
        format!("{f:?}")
    }
}

// ---------------------------------------------------------------------------
// Values and evaluation

/// A memory value (JSON-like).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    Map(BTreeMap<String, Value>),
}

impl Value {
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Map(_) => "map",
        }
    }
}

impl From<&serde_json::Value> for Value {
    fn from(v: &serde_json::Value) -> Self {
        use serde_json::Value as J;
        match v {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            J::String(s) => Value::Str(s.clone()),
            J::Array(a) => Value::List(a.iter().map(Value::from).collect()),
            J::Object(o) => Value::Map(o.iter().map(|(k, v)| (k.clone(), v.into())).collect()),
        }
    }
}

impl From<serde_json::Value> for Value {
    fn from(v: serde_json::Value) -> Self {
        Value::from(&v)
    }
}

impl From<&Literal> for Value {
    fn from(l: &Literal) -> Self {
        match l {
            Literal::Null => Value::Null,
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Int(i) => Value::Int(*i),
            Literal::Float(f) => Value::Float(*f),
            Literal::Str(s) => Value::Str(s.clone()),
        }
    }
}

/// A condition that could not be evaluated (e.g. ordering an unset entry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    pub message: String,
    /// The comparison that failed, in the parsed text.
    pub span: Span,
    pub help: Option<String>,
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}

/// Python truthiness: null, false, zero, empty string/list/map are false.
/// NaN is true.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::List(l) => !l.is_empty(),
        Value::Map(m) => !m.is_empty(),
    }
}

/// Evaluate `expr`. `lookup(namespace, entry)` gives a memory value; `None`
/// (unset, undeclared or unreadable) reads as null. `and`, `or`, `not` and
/// comparisons yield booleans.
pub fn evaluate(
    expr: &Expr,
    lookup: &dyn Fn(&str, &str) -> Option<Value>,
) -> Result<Value, EvalError> {
    match &expr.kind {
        ExprKind::Or(items) => {
            for e in items {
                if truthy(&evaluate(e, lookup)?) {
                    return Ok(Value::Bool(true));
                }
            }
            Ok(Value::Bool(false))
        }
        ExprKind::And(items) => {
            for e in items {
                if !truthy(&evaluate(e, lookup)?) {
                    return Ok(Value::Bool(false));
                }
            }
            Ok(Value::Bool(true))
        }
        ExprKind::Not(e) => Ok(Value::Bool(!truthy(&evaluate(e, lookup)?))),
        ExprKind::Compare { first, rest } => {
            let mut left = evaluate(first, lookup)?;
            if rest.is_empty() {
                return Ok(left);
            }
            let mut left_expr: &Expr = first;
            for (op, right_expr) in rest {
                let right = evaluate(right_expr, lookup)?;
                match compare(&left, *op, &right) {
                    Ok(true) => {}
                    Ok(false) => return Ok(Value::Bool(false)),
                    Err(()) => return Err(order_error(left_expr, &left, *op, right_expr, &right)),
                }
                left = right;
                left_expr = right_expr;
            }
            Ok(Value::Bool(true))
        }
        ExprKind::Memory(m) => Ok(lookup(&m.namespace, &m.entry).unwrap_or(Value::Null)),
        ExprKind::Literal(l) => Ok(l.into()),
    }
}

fn order_error(le: &Expr, l: &Value, op: CmpOp, re: &Expr, r: &Value) -> EvalError {
    let unset = [(le, l), (re, r)]
        .into_iter()
        .find_map(|(e, v)| match (&e.kind, v) {
            (ExprKind::Memory(m), Value::Null) => Some(m),
            _ => None,
        });
    let mut message = format!(
        "cannot compare {} with {} using `{}`",
        l.type_name(),
        r.type_name(),
        op
    );
    let help = unset.map(|m| {
        let name = format!("session.{}.{}", m.namespace, m.entry);
        message.push_str(&format!(" (`{name}` is not set)"));
        format!("guard the comparison: `{name} and …`")
    });
    EvalError {
        message,
        span: Span::new(
            le.span.start.min(re.span.start),
            le.span.end.max(re.span.end),
        ),
        help,
    }
}

/// Evaluate `cond` and take its truthiness; any evaluation error counts as
/// false (fail closed).
pub fn holds(cond: &Condition, lookup: &dyn Fn(&str, &str) -> Option<Value>) -> bool {
    evaluate(&cond.expr, lookup).is_ok_and(|v| truthy(&v))
}

#[derive(Debug, Clone, Copy)]
enum Num {
    I(i64),
    F(f64),
}

fn as_num(v: &Value) -> Option<Num> {
    match v {
        Value::Bool(b) => Some(Num::I(*b as i64)),
        Value::Int(i) => Some(Num::I(*i)),
        Value::Float(f) => Some(Num::F(*f)),
        _ => None,
    }
}

/// Exact order of an integer and a float (no rounding through f64).
fn cmp_int_float(i: i64, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f >= TWO_63 {
        return Some(Ordering::Less);
    }
    if f < -TWO_63 {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    match i.cmp(&(t as i64)) {
        Ordering::Equal => (0.0).partial_cmp(&(f - t)),
        o => Some(o),
    }
}

fn cmp_num(a: Num, b: Num) -> Option<Ordering> {
    match (a, b) {
        (Num::I(x), Num::I(y)) => Some(x.cmp(&y)),
        (Num::F(x), Num::F(y)) => x.partial_cmp(&y),
        (Num::I(x), Num::F(y)) => cmp_int_float(x, y),
        (Num::F(x), Num::I(y)) => cmp_int_float(y, x).map(Ordering::reverse),
    }
}

/// `==` of §1.6.
pub fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| values_equal(v, w)))
        }
        _ => match (as_num(a), as_num(b)) {
            (Some(x), Some(y)) => cmp_num(x, y) == Some(Ordering::Equal),
            _ => false,
        },
    }
}

/// Ordering of §1.6: `Err` for types that cannot be ordered, `Ok(None)` for
/// NaN (every ordering comparison is then false).
fn order(a: &Value, b: &Value) -> Result<Option<Ordering>, ()> {
    if let (Some(x), Some(y)) = (as_num(a), as_num(b)) {
        return Ok(cmp_num(x, y));
    }
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Ok(Some(x.cmp(y))),
        (Value::List(x), Value::List(y)) => {
            for (p, q) in x.iter().zip(y) {
                if !values_equal(p, q) {
                    return order(p, q);
                }
            }
            Ok(Some(x.len().cmp(&y.len())))
        }
        _ => Err(()),
    }
}

fn compare(a: &Value, op: CmpOp, b: &Value) -> Result<bool, ()> {
    Ok(match op {
        CmpOp::Eq => values_equal(a, b),
        CmpOp::Ne => !values_equal(a, b),
        _ => match order(a, b)? {
            None => false,
            Some(o) => match op {
                CmpOp::Lt => o == Ordering::Less,
                CmpOp::Le => o != Ordering::Greater,
                CmpOp::Gt => o == Ordering::Greater,
                _ => o != Ordering::Less,
            },
        },
    })
}

#[cfg(test)]
mod tests;
