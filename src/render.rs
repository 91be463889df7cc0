//! Output formats for findings.
//!
//! [`render`] turns an already sorted list of [`Finding`]s into one of the
//! [`Format`]s: the human readable graphical report (drawn by `miette`), a
//! JSON array, one line per finding, GitHub Actions workflow commands or a
//! SARIF 2.1.0 log for GitHub code scanning. Same input, same bytes: nothing
//! here looks at the environment, the terminal or the clock.

use crate::diagnostic::{Counts, Finding, Label, Rule, Severity};
use crate::source::{FileId, SourceDb, SourceFile, Span};
use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::{self, Write as _};
use std::time::Duration;

/// An output format of `maestro check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Human readable reports with source snippets (the default).
    #[default]
    Graphical,
    /// A JSON array of findings.
    Json,
    /// One `path:line:col: severity[code] message` line per finding.
    Short,
    /// GitHub Actions workflow commands (`::error file=...::message`).
    Github,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
}

impl Format {
    /// Every format, in the order of their names in [`Format::NAMES`].
    pub const ALL: [Format; 5] = [
        Format::Graphical,
        Format::Json,
        Format::Short,
        Format::Github,
        Format::Sarif,
    ];
    /// The names accepted by [`Format::from_name`].
    pub const NAMES: [&'static str; 5] = ["graphical", "json", "short", "github", "sarif"];

    /// The command-line name of the format.
    pub fn name(self) -> &'static str {
        match self {
            Format::Graphical => "graphical",
            Format::Json => "json",
            Format::Short => "short",
            Format::Github => "github",
            Format::Sarif => "sarif",
        }
    }

    /// The format with this command-line name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// How to draw the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions {
    /// Use ANSI colors (graphical format only). The caller decides, from
    /// `NO_COLOR`, `--color` and whether stdout is a terminal.
    pub color: bool,
    /// Terminal width used to wrap the graphical report.
    pub width: usize,
    /// Version reported in SARIF.
    pub tool_version: &'static str,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            color: false,
            width: 100,
            tool_version: env!("CARGO_PKG_VERSION"),
        }
    }
}

/// Facts about the whole run, for the last line of the graphical report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    pub files_checked: usize,
    /// Wall time of the check; `Duration::ZERO` leaves the time out (used by
    /// snapshot tests).
    pub elapsed: Duration,
}

/// Render `findings` (already sorted) in `format`.
///
/// `rules` is the registry of every rule; SARIF lists them all.
pub fn render(
    format: Format,
    findings: &[Finding],
    db: &SourceDb,
    rules: &[&'static Rule],
    summary: &Summary,
    opts: &RenderOptions,
) -> String {
    match format {
        Format::Graphical => render_graphical(findings, db, summary, opts),
        Format::Json => render_json(findings, db),
        Format::Short => render_short(findings, db),
        Format::Github => render_github(findings, db),
        Format::Sarif => render_sarif(findings, db, rules, opts),
    }
}

// ---------------------------------------------------------------------------
// Positions

/// 1-based start and end of a span, columns in characters; the end column
/// points just after the last character (equal to `column` when empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pos {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
}

fn position(file: &SourceFile, span: Span) -> Pos {
    let (line, column) = file.line_col(span.start);
    let (end_line, end_column) = file.line_col(span.end.max(span.start));
    Pos {
        line,
        column,
        end_line,
        end_column,
    }
}

/// The span clamped to the text and widened to character boundaries.
fn clamp_span(text: &str, span: Span) -> Span {
    let mut start = span.start.min(text.len());
    let mut end = span.end.max(span.start).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    Span::new(start, end)
}

/// The text of the line that contains `offset`, without its line break.
fn line_text(file: &SourceFile, offset: usize) -> &str {
    let offset = clamp_span(&file.text, Span::at(offset)).start;
    let start = file.text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = file.text[offset..]
        .find('\n')
        .map_or(file.text.len(), |i| offset + i);
    file.text[start..end].trim_end_matches('\r')
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

// ---------------------------------------------------------------------------
// Graphical

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const BOLD_RED: &str = "\x1b[1;31m";
const BOLD_YELLOW: &str = "\x1b[1;33m";
const BOLD_BLUE: &str = "\x1b[1;34m";

/// `text` wrapped in an ANSI style when `color` is on.
fn paint(text: &str, style: &str, color: bool) -> String {
    if color {
        format!("{style}{text}{RESET}")
    } else {
        text.to_string()
    }
}

/// A [`SourceFile`] as miette source code. Unlike `NamedSource<String>` it
/// reports columns in characters (miette counts bytes), so the
/// `[path:line:col]` header agrees with the other formats.
struct FileSource<'a>(&'a SourceFile);

impl SourceCode for FileSource<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text: &'a str = &self.0.text;
        let inner = text.read_span(span, context_lines_before, context_lines_after)?;
        let (_, column) = self.0.line_col(span.offset());
        Ok(Box::new(MietteSpanContents::new_named(
            self.0.path.clone(),
            inner.data(),
            *inner.span(),
            inner.line(),
            column - 1,
            inner.line_count(),
        )))
    }
}

/// The snippets of one file of a finding, as a `miette` diagnostic.
///
/// miette draws the source snippets and the help line, but neither the
/// header nor the other files: its header puts the code on a line of its own
/// and a `×` before the message, and it prints `related()` diagnostics after
/// the help line, prefixed with `Error:` (or nested under `╰─▶`). Instead
/// [`render_finding`] writes a rustc-style `error[code]: message` line and
/// then one headless snippet (no code, empty message) per file, the help
/// going with the last one.
struct Snippet<'a> {
    severity: Severity,
    source: Option<FileSource<'a>>,
    labels: Vec<LabeledSpan>,
    help: Option<&'a str>,
}

impl fmt::Debug for Snippet<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snippet")
            .field("file", &self.source.as_ref().map(|s| &s.0.path))
            .field("labels", &self.labels)
            .field("help", &self.help)
            .finish()
    }
}

/// Empty: the message is in the header written by [`render_finding`].
impl fmt::Display for Snippet<'_> {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        Ok(())
    }
}

impl std::error::Error for Snippet<'_> {}

impl Diagnostic for Snippet<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help.map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            None
        } else {
            Some(Box::new(self.labels.iter().cloned()))
        }
    }
}

fn labeled_span(file: &SourceFile, label: &Label, primary: bool) -> LabeledSpan {
    let mut span = clamp_span(&file.text, label.span);
    // miette draws no marker for an empty span after the final line break
    // (there is no line to draw it on): show it at the end of the last line.
    if span.is_empty() && span.start == file.text.len() {
        let text: &str = &file.text;
        if let Some(rest) = text.strip_suffix("\r\n").or(text.strip_suffix('\n')) {
            span = Span::at(rest.len());
        }
    }
    let text = (!label.message.is_empty()).then(|| label.message.clone());
    let span = SourceSpan::from((span.start, span.len()));
    if primary {
        LabeledSpan::new_primary_with_span(text, span)
    } else {
        LabeledSpan::new_with_span(text, span)
    }
}

/// One snippet per file: the primary file first (with the primary label), then
/// the other files in the order their labels appear.
fn file_snippets<'a>(finding: &'a Finding, db: &'a SourceDb) -> Vec<Snippet<'a>> {
    let mut groups: Vec<(FileId, Vec<LabeledSpan>)> = Vec::new();
    let mut add = |label: &Label, primary: bool| {
        let file = db.get(label.file);
        let span = labeled_span(file, label, primary);
        match groups.iter_mut().find(|(id, _)| *id == label.file) {
            Some((_, spans)) => spans.push(span),
            None => groups.push((label.file, vec![span])),
        }
    };
    if let Some(primary) = &finding.primary {
        add(primary, true);
    }
    for label in &finding.labels {
        add(label, false);
    }
    groups
        .into_iter()
        .map(|(id, labels)| Snippet {
            severity: finding.severity,
            source: Some(FileSource(db.get(id))),
            labels,
            help: None,
        })
        .collect()
}

/// Render a snippet and drop the (empty, as the message is) `  × ` line
/// miette starts every report with.
fn render_headless(handler: &GraphicalReportHandler, snippet: &Snippet<'_>) -> String {
    let mut out = String::new();
    if handler.render_report(&mut out, snippet).is_err() {
        return String::new();
    }
    // Drop the first line and the trailing spaces miette leaves on lines
    // such as an empty source line (` 2 │ `).
    let mut body = String::with_capacity(out.len());
    for line in out.split_inclusive('\n').skip(1) {
        let (text, newline) = match line.strip_suffix('\n') {
            Some(text) => (text, "\n"),
            None => (line, ""),
        };
        body.push_str(text.trim_end_matches(' '));
        body.push_str(newline);
    }
    body
}

fn render_finding(
    out: &mut String,
    finding: &Finding,
    db: &SourceDb,
    handler: &GraphicalReportHandler,
    color: bool,
) {
    let style = match finding.severity {
        Severity::Error => BOLD_RED,
        Severity::Warning => BOLD_YELLOW,
    };
    let head = format!("{}[{}]", finding.severity, finding.code);
    let _ = writeln!(
        out,
        "{}{}",
        paint(&head, style, color),
        paint(&format!(": {}", finding.message), BOLD, color)
    );
    if finding.primary.is_none() {
        if let Some(path) = &finding.path {
            let _ = writeln!(out, " {} {path}", paint("-->", BOLD_BLUE, color));
        }
    }
    let mut snippets = file_snippets(finding, db);
    if snippets.is_empty() && finding.help.is_some() {
        snippets.push(Snippet {
            severity: finding.severity,
            source: None,
            labels: Vec::new(),
            help: None,
        });
    }
    if let Some(last) = snippets.last_mut() {
        last.help = finding.help.as_deref();
    }
    for snippet in &snippets {
        out.push_str(&render_headless(handler, snippet));
    }
}

fn render_graphical(
    findings: &[Finding],
    db: &SourceDb,
    summary: &Summary,
    opts: &RenderOptions,
) -> String {
    let theme = if opts.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(opts.width)
        .with_links(false)
        .with_urls(false)
        .without_syntax_highlighting();
    let mut out = String::new();
    for finding in findings {
        render_finding(&mut out, finding, db, &handler, opts.color);
        out.push('\n');
    }
    out.push_str(&summary_line(findings, db, summary, opts.color));
    out.push('\n');
    out
}

/// `2 errors, 1 warning in 3 files (checked 41 files in 12 ms)`.
fn summary_line(findings: &[Finding], db: &SourceDb, summary: &Summary, color: bool) -> String {
    let mut checked = format!("checked {}", plural(summary.files_checked, "file"));
    if !summary.elapsed.is_zero() {
        let _ = write!(checked, " in {} ms", summary.elapsed.as_millis());
    }
    let counts = Counts::of(findings);
    if counts.errors == 0 && counts.warnings == 0 {
        return format!("{} ({checked})", paint("No problems found", BOLD, color));
    }
    let mut parts = Vec::new();
    if counts.errors > 0 {
        parts.push(paint(&plural(counts.errors, "error"), BOLD_RED, color));
    }
    if counts.warnings > 0 {
        parts.push(paint(
            &plural(counts.warnings, "warning"),
            BOLD_YELLOW,
            color,
        ));
    }
    let mut line = parts.join(", ");
    let files: BTreeSet<&str> = findings.iter().filter_map(|f| f.file_path(db)).collect();
    if !files.is_empty() {
        let _ = write!(line, " in {}", plural(files.len(), "file"));
    }
    let _ = write!(line, " ({checked})");
    line
}

// ---------------------------------------------------------------------------
// JSON

#[derive(Serialize)]
struct JsonFinding<'a> {
    code: &'a str,
    severity: Severity,
    message: &'a str,
    file: Option<&'a str>,
    line: Option<usize>,
    column: Option<usize>,
    end_line: Option<usize>,
    end_column: Option<usize>,
    help: Option<&'a str>,
    labels: Vec<JsonLabel<'a>>,
}

#[derive(Serialize)]
struct JsonLabel<'a> {
    file: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: &'a str,
}

fn render_json(findings: &[Finding], db: &SourceDb) -> String {
    let items: Vec<JsonFinding<'_>> = findings
        .iter()
        .map(|f| {
            let pos = f.primary.as_ref().map(|l| position(db.get(l.file), l.span));
            JsonFinding {
                code: f.code,
                severity: f.severity,
                message: &f.message,
                file: f.file_path(db),
                line: pos.map(|p| p.line),
                column: pos.map(|p| p.column),
                end_line: pos.map(|p| p.end_line),
                end_column: pos.map(|p| p.end_column),
                help: f.help.as_deref(),
                labels: f
                    .labels
                    .iter()
                    .map(|l| {
                        let p = position(db.get(l.file), l.span);
                        JsonLabel {
                            file: db.path(l.file),
                            line: p.line,
                            column: p.column,
                            end_line: p.end_line,
                            end_column: p.end_column,
                            message: &l.message,
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    to_json(&items)
}

fn to_json<T: Serialize>(value: &T) -> String {
    let mut out = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_string());
    out.push('\n');
    out
}

// ---------------------------------------------------------------------------
// Short

fn render_short(findings: &[Finding], db: &SourceDb) -> String {
    let mut out = String::new();
    for f in findings {
        match (&f.primary, f.file_path(db)) {
            (Some(l), _) => {
                let file = db.get(l.file);
                let p = position(file, l.span);
                let _ = write!(out, "{}:{}:{}: ", file.path, p.line, p.column);
            }
            (None, Some(path)) => {
                let _ = write!(out, "{path}: ");
            }
            (None, None) => {}
        }
        let _ = writeln!(out, "{}[{}] {}", f.severity, f.code, f.message);
    }
    out
}

// ---------------------------------------------------------------------------
// GitHub Actions

/// Escape the data (message) part of a workflow command.
fn gh_escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value of a workflow command.
fn gh_escape_property(s: &str) -> String {
    gh_escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn render_github(findings: &[Finding], db: &SourceDb) -> String {
    let mut out = String::new();
    for f in findings {
        let mut props = Vec::new();
        if let Some(path) = f.file_path(db) {
            props.push(format!("file={}", gh_escape_property(path)));
        }
        if let Some(l) = &f.primary {
            let p = position(db.get(l.file), l.span);
            props.push(format!("line={}", p.line));
            props.push(format!("col={}", p.column));
            props.push(format!("endLine={}", p.end_line));
            props.push(format!("endColumn={}", p.end_column));
        }
        props.push(format!("title={}", gh_escape_property(f.code)));
        let mut message = f.message.clone();
        if let Some(help) = &f.help {
            let _ = write!(message, "\nhelp: {help}");
        }
        let _ = writeln!(
            out,
            "::{} {}::{}",
            f.severity,
            props.join(","),
            gh_escape_data(&message)
        );
    }
    out
}

// ---------------------------------------------------------------------------
// SARIF

const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const SRCROOT: &str = "%SRCROOT%";

#[derive(Serialize)]
struct SarifLog<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<SarifRun<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRun<'a> {
    tool: SarifTool<'a>,
    /// Our columns count characters (SARIF's default is UTF-16 code units).
    column_kind: &'static str,
    results: Vec<SarifResult<'a>>,
}

#[derive(Serialize)]
struct SarifTool<'a> {
    driver: SarifDriver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifDriver<'a> {
    name: &'static str,
    version: &'static str,
    rules: Vec<SarifRule<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRule<'a> {
    id: &'a str,
    name: String,
    short_description: SarifText,
    full_description: SarifText,
    help: SarifHelp,
    default_configuration: SarifConfiguration,
    properties: SarifProperties,
}

#[derive(Serialize)]
struct SarifText {
    text: String,
}

#[derive(Serialize)]
struct SarifHelp {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct SarifConfiguration {
    level: Severity,
}

#[derive(Serialize)]
struct SarifProperties {
    tags: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: Severity,
    message: SarifText,
    locations: Vec<SarifLocation<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<SarifLocation<'a>>,
    partial_fingerprints: SarifFingerprints,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: SarifPhysicalLocation<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<SarifText>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifPhysicalLocation<'a> {
    artifact_location: SarifArtifactLocation<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<SarifRegion>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifArtifactLocation<'a> {
    uri: &'a str,
    uri_base_id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifFingerprints {
    primary_location_line_hash: String,
}

/// `tools.undeclared_memory_write` -> `ToolsUndeclaredMemoryWrite`.
fn camel_case(code: &str) -> String {
    code.split(['.', '_', '-'])
        .flat_map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
        })
        .collect()
}

fn is_heading(line: &str) -> bool {
    line.trim_start().starts_with('#')
}

/// The paragraphs under the "What it does" heading (each joined into one
/// line), or the doc's first paragraph when it has no such heading. The
/// first one is the rule's SARIF `shortDescription`, all of them its
/// `fullDescription`.
fn what_it_does(doc: &str) -> Vec<String> {
    let lines: Vec<&str> = doc.lines().map(str::trim).collect();
    let body: &[&str] = match lines
        .iter()
        .position(|l| is_heading(l) && l.to_ascii_lowercase().contains("what it does"))
    {
        Some(i) => {
            let rest = &lines[i + 1..];
            let end = rest
                .iter()
                .position(|l| is_heading(l))
                .unwrap_or(rest.len());
            &rest[..end]
        }
        None => {
            let start = lines
                .iter()
                .position(|l| !l.is_empty() && !is_heading(l))
                .unwrap_or(lines.len());
            let rest = &lines[start..];
            let end = rest
                .iter()
                .position(|l| l.is_empty() || is_heading(l))
                .unwrap_or(rest.len());
            &rest[..end]
        }
    };
    body.split(|l| l.is_empty())
        .filter(|p| !p.is_empty())
        .map(|p| p.join(" "))
        .collect()
}

fn sarif_rule(rule: &Rule) -> SarifRule<'_> {
    let doc = rule.explain();
    let paragraphs = what_it_does(&doc);
    let short = paragraphs
        .first()
        .cloned()
        .unwrap_or_else(|| rule.code.to_string());
    let full = if paragraphs.is_empty() {
        short.clone()
    } else {
        paragraphs.join("\n\n")
    };
    let mut tags = vec!["maestro".to_string()];
    if let Some((namespace, _)) = rule.code.split_once('.') {
        tags.push(namespace.to_string());
    }
    SarifRule {
        id: rule.code,
        name: camel_case(rule.code),
        short_description: SarifText { text: short },
        full_description: SarifText { text: full },
        help: SarifHelp {
            text: doc.clone(),
            markdown: doc,
        },
        default_configuration: SarifConfiguration {
            level: rule.severity,
        },
        properties: SarifProperties { tags },
    }
}

/// 64-bit FNV-1a.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn sarif_location<'a>(db: &'a SourceDb, label: &Label) -> SarifPhysicalLocation<'a> {
    let file = db.get(label.file);
    let p = position(file, label.span);
    SarifPhysicalLocation {
        artifact_location: SarifArtifactLocation {
            uri: &file.path,
            uri_base_id: SRCROOT,
        },
        region: Some(SarifRegion {
            start_line: p.line,
            start_column: p.column,
            end_line: p.end_line,
            end_column: p.end_column,
        }),
    }
}

fn render_sarif(
    findings: &[Finding],
    db: &SourceDb,
    rules: &[&'static Rule],
    opts: &RenderOptions,
) -> String {
    let mut sorted: Vec<&'static Rule> = rules.to_vec();
    sorted.sort_by_key(|r| r.code);
    sorted.dedup_by_key(|r| r.code);

    // Occurrences of each fingerprint so far, to tell identical lines apart.
    let mut seen: Vec<(u64, usize)> = Vec::new();
    let results = findings
        .iter()
        .map(|f| {
            let path = f.file_path(db);
            let physical = match &f.primary {
                Some(l) => sarif_location(db, l),
                None => SarifPhysicalLocation {
                    artifact_location: SarifArtifactLocation {
                        uri: path.unwrap_or("."),
                        uri_base_id: SRCROOT,
                    },
                    region: None,
                },
            };
            let located_text = match &f.primary {
                Some(l) => line_text(db.get(l.file), l.span.start).trim(),
                None => f.message.as_str(),
            };
            let mut key = Vec::new();
            for part in [f.code, path.unwrap_or(""), located_text] {
                key.extend_from_slice(part.as_bytes());
                key.push(0);
            }
            let hash = fnv1a64(&key);
            let count = match seen.iter_mut().find(|(h, _)| *h == hash) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    seen.push((hash, 1));
                    1
                }
            };
            let mut text = f.message.clone();
            if let Some(help) = &f.help {
                let _ = write!(text, "\nhelp: {help}");
            }
            SarifResult {
                rule_id: f.code,
                rule_index: sorted.iter().position(|r| r.code == f.code),
                level: f.severity,
                message: SarifText { text },
                locations: vec![SarifLocation {
                    id: None,
                    physical_location: physical,
                    message: f
                        .primary
                        .as_ref()
                        .filter(|l| !l.message.is_empty())
                        .map(|l| SarifText {
                            text: l.message.clone(),
                        }),
                }],
                related_locations: f
                    .labels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| SarifLocation {
                        id: Some(i + 1),
                        physical_location: sarif_location(db, l),
                        message: Some(SarifText {
                            text: l.message.clone(),
                        }),
                    })
                    .collect(),
                partial_fingerprints: SarifFingerprints {
                    primary_location_line_hash: format!("{hash:016x}:{count}"),
                },
            }
        })
        .collect();

    let log = SarifLog {
        schema: SARIF_SCHEMA,
        version: "2.1.0",
        runs: vec![SarifRun {
            tool: SarifTool {
                driver: SarifDriver {
                    name: "maestro",
                    version: opts.tool_version,
                    rules: sorted.iter().map(|r| sarif_rule(r)).collect(),
                },
            },
            column_kind: "unicodeCodePoints",
            results,
        }],
    };
    to_json(&log)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declare_rule;
    use crate::diagnostic::sort_findings;
    use crate::source::SourceFile;
    use insta::assert_snapshot;

    declare_rule! {
        /// ## What it does
        /// Checks that every memory key a tool writes is declared in a
        /// `memory.yml`.
        ///
        /// ## Why it matters
        /// Undeclared keys are invisible to the planner.
        pub static UNDECLARED_WRITE = { code: "tools.undeclared_memory_write", severity: Error };
    }

    declare_rule! {
        /// Flags skills whose name differs from their folder.
        ///
        /// ## Fix
        /// Rename one of them.
        pub static NAME_MISMATCH = { code: "skill.name_mismatch", severity: Warning };
    }

    declare_rule! {
        /// ## What it does
        /// Reports files that are not UTF-8.
        pub static NOT_UTF8 = { code: "project.not_utf8", severity: Error };
    }

    const TOOLS: &str = "\
REF_KEY = \"transfer_ref\"


def transfer(context):
    ref = new_reference()
    context.memory.set(REF_KEY, ref)
    return ref
";

    const SKILL: &str = "---\nname: überweisung\ndescription: Geld senden\n---\n";

    fn fixture() -> (SourceDb, Vec<Finding>) {
        let mut db = SourceDb::default();
        let skill = db.add(SourceFile::new("skills/transfer/SKILL.md", SKILL));
        let tools = db.add(SourceFile::new("skills/transfer/tools.py", TOOLS));
        let set = TOOLS.find("REF_KEY, ref").unwrap();
        let decl = TOOLS.find("REF_KEY").unwrap();
        let name = SKILL.find("überweisung").unwrap();
        let findings = vec![
            NOT_UTF8.finding("cannot decode `logo.bin` as UTF-8"),
            NOT_UTF8
                .finding("`assets/logo.png` is not UTF-8")
                .at_path("assets/logo.png")
                .help("binary files belong outside skills/"),
            NAME_MISMATCH
                .finding("skill name `überweisung` differs from its folder `transfer`")
                .at(skill, Span::new(name, name + "überweisung".len()), "")
                .label(tools, Span::new(decl, decl + 7), "folder used here"),
            UNDECLARED_WRITE
                .finding("`transfer_ref` is written but declared in no memory.yml")
                .at(
                    tools,
                    Span::new(set, set + 7),
                    "resolves to \"transfer_ref\" (REF_KEY, line 1)",
                )
                .label(tools, Span::at(decl), "defined here")
                .help("declare it under `schema.private` in skills/transfer/memory.yml"),
        ];
        let mut findings = findings;
        sort_findings(&mut findings, &db);
        (db, findings)
    }

    fn rules() -> Vec<&'static Rule> {
        vec![&UNDECLARED_WRITE, &NAME_MISMATCH, &NOT_UTF8]
    }

    pub(super) fn run(format: Format, color: bool) -> String {
        let (db, findings) = fixture();
        let summary = Summary {
            files_checked: 41,
            elapsed: Duration::ZERO,
        };
        let opts = RenderOptions {
            color,
            width: 100,
            tool_version: "0.0.0-test",
        };
        render(format, &findings, &db, &rules(), &summary, &opts)
    }

    #[test]
    fn graphical() {
        assert_snapshot!(run(Format::Graphical, false), @r#"
        error[project.not_utf8]: cannot decode `logo.bin` as UTF-8

        error[project.not_utf8]: `assets/logo.png` is not UTF-8
         --> assets/logo.png
          help: binary files belong outside skills/

        warning[skill.name_mismatch]: skill name `überweisung` differs from its folder `transfer`
           ╭─[skills/transfer/SKILL.md:2:7]
         1 │ ---
         2 │ name: überweisung
           ·       ───────────
         3 │ description: Geld senden
           ╰────
           ╭─[skills/transfer/tools.py:1:1]
         1 │ REF_KEY = "transfer_ref"
           · ───┬───
           ·    ╰── folder used here
         2 │
           ╰────

        error[tools.undeclared_memory_write]: `transfer_ref` is written but declared in no memory.yml
           ╭─[skills/transfer/tools.py:1:1]
         1 │ REF_KEY = "transfer_ref"
           · ▲
           · ╰── defined here
         2 │
           ╰────
           ╭─[skills/transfer/tools.py:6:24]
         5 │     ref = new_reference()
         6 │     context.memory.set(REF_KEY, ref)
           ·                        ───┬───
           ·                           ╰── resolves to "transfer_ref" (REF_KEY, line 1)
         7 │     return ref
           ╰────
          help: declare it under `schema.private` in skills/transfer/memory.yml

        3 errors, 1 warning in 3 files (checked 41 files)
        "#);
    }

    #[test]
    fn graphical_color() {
        let out = run(Format::Graphical, true);
        assert!(out.starts_with("\x1b[1;31merror[project.not_utf8]\x1b[0m\x1b[1m: "));
        assert!(out.contains("\x1b[1;33mwarning[skill.name_mismatch]\x1b[0m"));
        assert!(!run(Format::Graphical, false).contains('\x1b'));
    }

    #[test]
    fn graphical_summary() {
        let db = SourceDb::default();
        let opts = RenderOptions::default();
        let mut summary = Summary {
            files_checked: 1,
            elapsed: Duration::from_millis(12),
        };
        let out = render(Format::Graphical, &[], &db, &[], &summary, &opts);
        assert_eq!(out, "No problems found (checked 1 file in 12 ms)\n");
        summary.elapsed = Duration::ZERO;
        let findings = [NAME_MISMATCH.finding("pathless")];
        let out = render(Format::Graphical, &findings, &db, &[], &summary, &opts);
        assert_snapshot!(out, @r#"
        warning[skill.name_mismatch]: pathless

        1 warning (checked 1 file)
        "#);
    }

    #[test]
    fn json() {
        let out = run(Format::Json, false);
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed.as_array().unwrap().len(), 4);
        assert_snapshot!(out, @r#"
        [
          {
            "code": "project.not_utf8",
            "severity": "error",
            "message": "cannot decode `logo.bin` as UTF-8",
            "file": null,
            "line": null,
            "column": null,
            "end_line": null,
            "end_column": null,
            "help": null,
            "labels": []
          },
          {
            "code": "project.not_utf8",
            "severity": "error",
            "message": "`assets/logo.png` is not UTF-8",
            "file": "assets/logo.png",
            "line": null,
            "column": null,
            "end_line": null,
            "end_column": null,
            "help": "binary files belong outside skills/",
            "labels": []
          },
          {
            "code": "skill.name_mismatch",
            "severity": "warning",
            "message": "skill name `überweisung` differs from its folder `transfer`",
            "file": "skills/transfer/SKILL.md",
            "line": 2,
            "column": 7,
            "end_line": 2,
            "end_column": 18,
            "help": null,
            "labels": [
              {
                "file": "skills/transfer/tools.py",
                "line": 1,
                "column": 1,
                "end_line": 1,
                "end_column": 8,
                "message": "folder used here"
              }
            ]
          },
          {
            "code": "tools.undeclared_memory_write",
            "severity": "error",
            "message": "`transfer_ref` is written but declared in no memory.yml",
            "file": "skills/transfer/tools.py",
            "line": 6,
            "column": 24,
            "end_line": 6,
            "end_column": 31,
            "help": "declare it under `schema.private` in skills/transfer/memory.yml",
            "labels": [
              {
                "file": "skills/transfer/tools.py",
                "line": 1,
                "column": 1,
                "end_line": 1,
                "end_column": 1,
                "message": "defined here"
              }
            ]
          }
        ]
        "#);
    }

    #[test]
    fn json_empty() {
        let out = render(
            Format::Json,
            &[],
            &SourceDb::default(),
            &[],
            &Summary::default(),
            &RenderOptions::default(),
        );
        assert_eq!(out, "[]\n");
    }

    #[test]
    fn short() {
        assert_snapshot!(run(Format::Short, false), @r#"
        error[project.not_utf8] cannot decode `logo.bin` as UTF-8
        assets/logo.png: error[project.not_utf8] `assets/logo.png` is not UTF-8
        skills/transfer/SKILL.md:2:7: warning[skill.name_mismatch] skill name `überweisung` differs from its folder `transfer`
        skills/transfer/tools.py:6:24: error[tools.undeclared_memory_write] `transfer_ref` is written but declared in no memory.yml
        "#);
    }

    #[test]
    fn github() {
        assert_snapshot!(run(Format::Github, false), @r#"
        ::error title=project.not_utf8::cannot decode `logo.bin` as UTF-8
        ::error file=assets/logo.png,title=project.not_utf8::`assets/logo.png` is not UTF-8%0Ahelp: binary files belong outside skills/
        ::warning file=skills/transfer/SKILL.md,line=2,col=7,endLine=2,endColumn=18,title=skill.name_mismatch::skill name `überweisung` differs from its folder `transfer`
        ::error file=skills/transfer/tools.py,line=6,col=24,endLine=6,endColumn=31,title=tools.undeclared_memory_write::`transfer_ref` is written but declared in no memory.yml%0Ahelp: declare it under `schema.private` in skills/transfer/memory.yml
        "#);
    }

    #[test]
    fn github_escaping() {
        assert_eq!(gh_escape_data("100%\r\na:b,c"), "100%25%0D%0Aa:b,c");
        assert_eq!(gh_escape_property("100%\na:b,c"), "100%25%0Aa%3Ab%2Cc");
        let db = SourceDb::default();
        let findings = [NOT_UTF8
            .finding("50% done\nnext")
            .at_path("dir,with:odd%name")];
        let out = render(
            Format::Github,
            &findings,
            &db,
            &[],
            &Summary::default(),
            &RenderOptions::default(),
        );
        assert_eq!(
            out,
            "::error file=dir%2Cwith%3Aodd%25name,title=project.not_utf8::50%25 done%0Anext\n"
        );
    }

    #[test]
    fn sarif() {
        let out = run(Format::Sarif, false);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let run = &v["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            [
                "project.not_utf8",
                "skill.name_mismatch",
                "tools.undeclared_memory_write"
            ]
        );
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), 4);
        for r in results {
            let index = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], r["ruleId"]);
            assert_eq!(r["locations"].as_array().unwrap().len(), 1);
        }
        let loc = |i: usize| &results[i]["locations"][0]["physicalLocation"];
        assert_eq!(loc(0)["artifactLocation"]["uri"], ".");
        assert!(loc(0).get("region").is_none());
        assert_eq!(loc(1)["artifactLocation"]["uri"], "assets/logo.png");
        assert!(loc(1).get("region").is_none());
        let hashes: BTreeSet<&str> = results
            .iter()
            .map(|r| {
                r["partialFingerprints"]["primaryLocationLineHash"]
                    .as_str()
                    .unwrap()
            })
            .collect();
        assert_eq!(hashes.len(), 4);
        assert_eq!(
            rules[2]["shortDescription"]["text"],
            "Checks that every memory key a tool writes is declared in a `memory.yml`."
        );
        assert_eq!(
            rules[1]["shortDescription"]["text"],
            "Flags skills whose name differs from their folder."
        );
    }

    #[test]
    fn sarif_one_finding() {
        let (db, findings) = fixture();
        let out = render(
            Format::Sarif,
            &findings[3..],
            &db,
            &[&UNDECLARED_WRITE],
            &Summary::default(),
            &RenderOptions {
                tool_version: "0.0.0-test",
                ..RenderOptions::default()
            },
        );
        assert_snapshot!(out, @r###"
        {
          "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
          "version": "2.1.0",
          "runs": [
            {
              "tool": {
                "driver": {
                  "name": "maestro",
                  "version": "0.0.0-test",
                  "rules": [
                    {
                      "id": "tools.undeclared_memory_write",
                      "name": "ToolsUndeclaredMemoryWrite",
                      "shortDescription": {
                        "text": "Checks that every memory key a tool writes is declared in a `memory.yml`."
                      },
                      "fullDescription": {
                        "text": "Checks that every memory key a tool writes is declared in a `memory.yml`."
                      },
                      "help": {
                        "text": "## What it does\nChecks that every memory key a tool writes is declared in a\n`memory.yml`.\n\n## Why it matters\nUndeclared keys are invisible to the planner.\n",
                        "markdown": "## What it does\nChecks that every memory key a tool writes is declared in a\n`memory.yml`.\n\n## Why it matters\nUndeclared keys are invisible to the planner.\n"
                      },
                      "defaultConfiguration": {
                        "level": "error"
                      },
                      "properties": {
                        "tags": [
                          "maestro",
                          "tools"
                        ]
                      }
                    }
                  ]
                }
              },
              "columnKind": "unicodeCodePoints",
              "results": [
                {
                  "ruleId": "tools.undeclared_memory_write",
                  "ruleIndex": 0,
                  "level": "error",
                  "message": {
                    "text": "`transfer_ref` is written but declared in no memory.yml\nhelp: declare it under `schema.private` in skills/transfer/memory.yml"
                  },
                  "locations": [
                    {
                      "physicalLocation": {
                        "artifactLocation": {
                          "uri": "skills/transfer/tools.py",
                          "uriBaseId": "%SRCROOT%"
                        },
                        "region": {
                          "startLine": 6,
                          "startColumn": 24,
                          "endLine": 6,
                          "endColumn": 31
                        }
                      },
                      "message": {
                        "text": "resolves to \"transfer_ref\" (REF_KEY, line 1)"
                      }
                    }
                  ],
                  "relatedLocations": [
                    {
                      "id": 1,
                      "physicalLocation": {
                        "artifactLocation": {
                          "uri": "skills/transfer/tools.py",
                          "uriBaseId": "%SRCROOT%"
                        },
                        "region": {
                          "startLine": 1,
                          "startColumn": 1,
                          "endLine": 1,
                          "endColumn": 1
                        }
                      },
                      "message": {
                        "text": "defined here"
                      }
                    }
                  ],
                  "partialFingerprints": {
                    "primaryLocationLineHash": "9e702fcaccbfa425:1"
                  }
                }
              ]
            }
          ]
        }
        "###);
    }

    #[test]
    fn sarif_fingerprints_count_repeats() {
        let mut db = SourceDb::default();
        let a = db.add(SourceFile::new("a.py", "x = 1\nx = 1\n"));
        let findings = [
            NOT_UTF8.finding("m").at(a, Span::new(0, 1), ""),
            NOT_UTF8.finding("m").at(a, Span::new(6, 7), ""),
        ];
        let out = render(
            Format::Sarif,
            &findings,
            &db,
            &[],
            &Summary::default(),
            &RenderOptions::default(),
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let hash = |i: usize| {
            v["runs"][0]["results"][i]["partialFingerprints"]["primaryLocationLineHash"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let (h0, h1) = (hash(0), hash(1));
        assert_eq!(h0.split_once(':').unwrap().0, h1.split_once(':').unwrap().0);
        assert!(h0.ends_with(":1") && h1.ends_with(":2"));
        // Unknown rules get no ruleIndex.
        assert!(v["runs"][0]["results"][0].get("ruleIndex").is_none());
    }

    #[test]
    fn deterministic() {
        for format in Format::ALL {
            assert_eq!(run(format, true), run(format, true));
        }
    }

    #[test]
    fn odd_spans() {
        // Empty spans, spans ending at a newline, spans past the end of the
        // text and spans inside a multi-byte character.
        let text = "ä\nb\n";
        let mut db = SourceDb::default();
        let f = db.add(SourceFile::new("f.txt", text));
        let findings = [
            NOT_UTF8.finding("eof").at(f, Span::at(text.len()), "here"),
            NOT_UTF8.finding("newline").at(f, Span::new(3, 5), "line"),
            NOT_UTF8.finding("past").at(f, Span::new(2, 99), "past"),
            NOT_UTF8.finding("mid").at(f, Span::new(1, 2), "mid"),
        ];
        let summary = Summary::default();
        let opts = RenderOptions::default();
        assert_snapshot!(render(Format::Short, &findings, &db, &[], &summary, &opts), @r#"
        f.txt:3:1: error[project.not_utf8] eof
        f.txt:2:1: error[project.not_utf8] newline
        f.txt:1:2: error[project.not_utf8] past
        f.txt:1:1: error[project.not_utf8] mid
        "#);
        assert_snapshot!(render(Format::Graphical, &findings, &db, &[], &summary, &opts), @r#"
        error[project.not_utf8]: eof
           ╭─[f.txt:2:2]
         1 │ ä
         2 │ b
           ·  ▲
           ·  ╰── here
           ╰────

        error[project.not_utf8]: newline
           ╭─[f.txt:2:1]
         1 │ ä
         2 │ b
           · ─┬
           ·  ╰── line
           ╰────

        error[project.not_utf8]: past
           ╭─[f.txt:1:2]
         1 │ ╭─▶ ä
         2 │ ├─▶ b
           · ╰──── past
           ╰────

        error[project.not_utf8]: mid
           ╭─[f.txt:1:1]
         1 │ ä
           · ┬
           · ╰── mid
         2 │ b
           ╰────

        4 errors in 1 file (checked 0 files)
        "#);
    }

    #[test]
    fn helpers() {
        assert_eq!(
            camel_case("tools.undeclared_memory_write"),
            "ToolsUndeclaredMemoryWrite"
        );
        // Reference values of 64-bit FNV-1a.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
        }
        assert_eq!(Format::from_name("xml"), None);
        assert_eq!(
            Format::NAMES.map(Format::from_name).map(Option::unwrap),
            Format::ALL
        );
    }
}
