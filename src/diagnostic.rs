//! Findings: the one result type of `check`.
//!
//! A [`Finding`] is produced from a [`Rule`] (code, default severity and the
//! user documentation that `maestro explain` prints). It carries a primary
//! location, secondary labels and a `help:` line. Renderers in
//! [`crate::render`] turn a list of findings into text, JSON, SARIF, ...

use crate::source::{FileId, SourceDb, Span};
use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A finding code with its severity and user documentation.
///
/// Declared with [`declare_rule!`] so that the doc comment of the rule is the
/// text `maestro explain CODE` prints.
#[derive(Debug)]
pub struct Rule {
    pub code: &'static str,
    pub severity: Severity,
    /// Markdown: "What it does / Why it matters / Example / Fix".
    pub doc: &'static str,
}

impl Rule {
    /// Start a finding of this rule.
    pub fn finding(&'static self, message: impl Into<String>) -> Finding {
        Finding {
            code: self.code,
            severity: self.severity,
            message: message.into(),
            path: None,
            primary: None,
            labels: Vec::new(),
            help: None,
        }
    }

    /// The documentation with the one leading space of each doc line removed.
    pub fn explain(&self) -> String {
        let mut out = String::new();
        for line in self.doc.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out.trim_end().to_string() + "\n"
    }
}

/// Declares a [`Rule`] whose doc comment becomes its `explain` text.
#[macro_export]
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        $vis:vis static $name:ident = { code: $code:literal, severity: $sev:ident $(,)? };
    ) => {
        $(#[doc = $doc])*
        $vis static $name: $crate::diagnostic::Rule = $crate::diagnostic::Rule {
            code: $code,
            severity: $crate::diagnostic::Severity::$sev,
            doc: concat!($($doc, "\n"),*),
        };
    };
}

/// A place in a loaded file, with a short text shown beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub file: FileId,
    pub span: Span,
    pub message: String,
}

/// One problem found in the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    /// Path (relative to the project root) for findings about a file or
    /// folder that has no loaded text (binary file, missing folder). When
    /// `primary` is set the path comes from its file instead.
    pub path: Option<String>,
    pub primary: Option<Label>,
    pub labels: Vec<Label>,
    pub help: Option<String>,
}

impl Finding {
    /// Set the primary location.
    pub fn at(mut self, file: FileId, span: Span, label: impl Into<String>) -> Self {
        self.primary = Some(Label {
            file,
            span,
            message: label.into(),
        });
        self
    }
    /// Locate the finding at a path that has no loaded text.
    pub fn at_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
    /// Add a secondary label.
    pub fn label(mut self, file: FileId, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            file,
            span,
            message: message.into(),
        });
        self
    }
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Path of the primary location, if any.
    pub fn file_path<'a>(&'a self, db: &'a SourceDb) -> Option<&'a str> {
        match &self.primary {
            Some(l) => Some(db.path(l.file)),
            None => self.path.as_deref(),
        }
    }

    /// The deterministic sort key: file, position, code, message.
    fn sort_key<'a>(&'a self, db: &'a SourceDb) -> (&'a str, usize, usize, &'static str, &'a str) {
        let (start, end) = self
            .primary
            .as_ref()
            .map(|l| (l.span.start, l.span.end))
            .unwrap_or((0, 0));
        (
            self.file_path(db).unwrap_or(""),
            start,
            end,
            self.code,
            &self.message,
        )
    }
}

/// Sort findings by file, position, code (and message, for ties), and drop
/// exact duplicates.
pub fn sort_findings(findings: &mut Vec<Finding>, db: &SourceDb) {
    findings.sort_by(|a, b| a.sort_key(db).cmp(&b.sort_key(db)));
    findings.dedup();
}

/// Counts of findings by severity.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
}

impl Counts {
    pub fn of(findings: &[Finding]) -> Self {
        let mut c = Counts::default();
        for f in findings {
            match f.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
            }
        }
        c
    }
}
