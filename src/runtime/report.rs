//! Reports of `maestro test`: plain text and JUnit XML.
//!
//! Both are deterministic: results are printed in the order given (the
//! runner gives files in path order and test cases in file order), and no
//! timing is printed.
//!
//! Text:
//!
//! ```text
//! ✓ lock card only after a card is selected
//! ✗ cancel keeps the card
//!     step 4 (tests/card.yml:12): expected skill `card_replace` to be cancelled, but no skill was cancelled in this turn
//! 1 passed, 1 failed
//! ```
//!
//! JUnit: one `<testsuite>` per test file (in order of first appearance),
//! one `<testcase>` per test case, a `<failure>` with the message for a
//! failed one.

use std::fmt::Write as _;

/// The outcome of one test case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestResult {
    /// The test file, relative to where the user ran maestro.
    pub file: String,
    pub name: String,
    /// `None` when the test passed.
    pub failure: Option<Failure>,
}

/// Why a test case failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The failing step, 1-based (`None` when the test could not start).
    pub step: Option<usize>,
    /// The step's line in the file, 1-based.
    pub line: Option<usize>,
    /// What was expected and what happened.
    pub message: String,
}

impl Failure {
    /// Where the failure happened: `step 4 (tests/card.yml:12)`, or "".
    fn location(&self, file: &str) -> String {
        let place = match (file.is_empty(), self.line) {
            (false, Some(l)) => format!("{file}:{l}"),
            (false, None) => file.to_string(),
            (true, Some(l)) => format!("line {l}"),
            (true, None) => String::new(),
        };
        match (self.step, place.is_empty()) {
            (Some(s), false) => format!("step {s} ({place})"),
            (Some(s), true) => format!("step {s}"),
            (None, false) => place,
            (None, true) => String::new(),
        }
    }

    /// The location and the message on one line.
    pub fn describe(&self, file: &str) -> String {
        let loc = self.location(file);
        if loc.is_empty() {
            self.message.clone()
        } else {
            format!("{loc}: {}", self.message)
        }
    }
}

/// How many tests passed and failed.
pub fn counts(results: &[TestResult]) -> (usize, usize) {
    let failed = results.iter().filter(|r| r.failure.is_some()).count();
    (results.len() - failed, failed)
}

/// The summary line: `N passed, N failed`.
pub fn summary(results: &[TestResult]) -> String {
    let (passed, failed) = counts(results);
    format!("{passed} passed, {failed} failed")
}

/// The text report: one line per test, failures with their step and message
/// (indented), then the summary line.
pub fn text(results: &[TestResult]) -> String {
    let mut out = String::new();
    for r in results {
        match &r.failure {
            None => {
                let _ = writeln!(out, "✓ {}", one_line(&r.name));
            }
            Some(f) => {
                let _ = writeln!(out, "✗ {}", one_line(&r.name));
                for line in f.describe(&r.file).lines() {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
    }
    out.push_str(&summary(results));
    out.push('\n');
    out
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// The JUnit XML report.
pub fn junit(results: &[TestResult]) -> String {
    let (_, failed) = counts(results);
    let mut files: Vec<&str> = Vec::new();
    for r in results {
        if !files.contains(&r.file.as_str()) {
            files.push(&r.file);
        }
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"maestro test\" tests=\"{}\" failures=\"{failed}\" errors=\"0\">",
        results.len()
    );
    for file in files {
        let cases: Vec<&TestResult> = results.iter().filter(|r| r.file == file).collect();
        let f = cases.iter().filter(|r| r.failure.is_some()).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"0\">",
            xml_escape(file),
            cases.len()
        );
        for r in cases {
            let head = format!(
                "    <testcase name=\"{}\" classname=\"{}\"",
                xml_escape(&r.name),
                xml_escape(file)
            );
            match &r.failure {
                None => {
                    let _ = writeln!(out, "{head}/>");
                }
                Some(fail) => {
                    let _ = writeln!(out, "{head}>");
                    let _ = writeln!(
                        out,
                        "      <failure message=\"{}\">{}</failure>",
                        xml_escape(&fail.message),
                        xml_escape(&fail.describe(file))
                    );
                    out.push_str("    </testcase>\n");
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Escape text for XML attributes and content. Characters XML 1.0 cannot
/// hold at all (control characters other than tab, newline and carriage
/// return) become U+FFFD.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results() -> Vec<TestResult> {
        vec![
            TestResult {
                file: "tests/card.yml".into(),
                name: "lock card".into(),
                failure: None,
            },
            TestResult {
                file: "tests/card.yml".into(),
                name: "cancel <keeps> \"the\" card & more".into(),
                failure: Some(Failure {
                    step: Some(4),
                    line: Some(12),
                    message: "expected skill `card_replace` to be cancelled, but no skill was cancelled in this turn".into(),
                }),
            },
            TestResult {
                file: "tests/other.yml".into(),
                name: "greets".into(),
                failure: Some(Failure {
                    step: None,
                    line: None,
                    message: "the LLM was asked for reply 1\nbut\u{1} none".into(),
                }),
            },
        ]
    }

    #[test]
    fn text_report() {
        assert_eq!(
            text(&results()),
            "✓ lock card\n\
             ✗ cancel <keeps> \"the\" card & more\n    \
             step 4 (tests/card.yml:12): expected skill `card_replace` to be cancelled, but no skill was cancelled in this turn\n\
             ✗ greets\n    \
             tests/other.yml: the LLM was asked for reply 1\n    \
             but\u{1} none\n\
             1 passed, 2 failed\n"
        );
        assert_eq!(text(&[]), "0 passed, 0 failed\n");
    }

    #[test]
    fn junit_report() {
        assert_eq!(
            junit(&results()),
            r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="maestro test" tests="3" failures="2" errors="0">
  <testsuite name="tests/card.yml" tests="2" failures="1" errors="0">
    <testcase name="lock card" classname="tests/card.yml"/>
    <testcase name="cancel &lt;keeps&gt; &quot;the&quot; card &amp; more" classname="tests/card.yml">
      <failure message="expected skill `card_replace` to be cancelled, but no skill was cancelled in this turn">step 4 (tests/card.yml:12): expected skill `card_replace` to be cancelled, but no skill was cancelled in this turn</failure>
    </testcase>
  </testsuite>
  <testsuite name="tests/other.yml" tests="1" failures="1" errors="0">
    <testcase name="greets" classname="tests/other.yml">
      <failure message="the LLM was asked for reply 1&#10;but� none">tests/other.yml: the LLM was asked for reply 1&#10;but� none</failure>
    </testcase>
  </testsuite>
</testsuites>
"#
        );
    }

    #[test]
    fn locations() {
        let f = |step, line| Failure {
            step,
            line,
            message: "m".into(),
        };
        assert_eq!(f(Some(2), Some(5)).describe(""), "step 2 (line 5): m");
        assert_eq!(f(Some(2), None).describe(""), "step 2: m");
        assert_eq!(f(None, Some(5)).describe("a.yml"), "a.yml:5: m");
        assert_eq!(f(None, None).describe(""), "m");
        assert_eq!(xml_escape("a'b\tc"), "a&apos;b&#9;c");
    }
}
