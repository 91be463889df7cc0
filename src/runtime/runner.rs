//! `maestro test`: runs YAML conversation tests (see `testfile`) against a
//! packaged model with the scripted LLM provider and the real Python
//! worker, and turns the outcome into `report::TestResult`s.

use crate::runtime::driver::Session;
use crate::runtime::engine::Engine;
use crate::runtime::llm::Scripted;
use crate::runtime::report::{Failure, TestResult};
use crate::runtime::testfile::{check_assertion, TestCase, TestFile};
use crate::runtime::worker::Worker;

/// Run every test case of one file; `label` names the file in reports and
/// `text` is its content (for line numbers).
pub fn run_file(
    engine: &Engine,
    worker: &mut Worker,
    label: &str,
    text: &str,
    file: &TestFile,
) -> Vec<TestResult> {
    file.tests
        .iter()
        .map(|case| TestResult {
            file: label.to_string(),
            name: case.name.clone(),
            failure: run_case(engine, worker, text, case),
        })
        .collect()
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).map_or(0, |t| t.matches('\n').count()) + 1
}

/// Run one test case in a fresh conversation; `None` when it passed.
pub fn run_case(
    engine: &Engine,
    worker: &mut Worker,
    text: &str,
    case: &TestCase,
) -> Option<Failure> {
    let mut session = Session::new(engine, worker, Scripted::default());
    let fail = |step: usize, message: String| {
        Some(Failure {
            step: Some(step + 1),
            line: case.step_spans.get(step).map(|s| line_of(text, s.start)),
            message,
        })
    };
    for turn in case.turns() {
        let start = session.conv.events.len();
        session.llm.replies = turn.replies.iter().map(|r| (*r).clone()).collect();
        if let (Some(user), Some(step)) = (turn.user, turn.user_step) {
            let mut sink = |_: &str| {};
            session.turn(user, &mut sink, &|| false);
            if let Some(e) = session.last_llm_error.take() {
                return fail(step, format!("the turn needed another LLM reply: {e}"));
            }
            if !session.llm.replies.is_empty() {
                return fail(
                    step,
                    format!(
                        "{} scripted `llm` repl{} of this turn {} not used: the turn ended before",
                        session.llm.replies.len(),
                        if session.llm.replies.len() == 1 {
                            "y"
                        } else {
                            "ies"
                        },
                        if session.llm.replies.len() == 1 {
                            "was"
                        } else {
                            "were"
                        },
                    ),
                );
            }
        }
        let events: Vec<serde_json::Value> = session.events_json().split_off(start);
        let offered = session.llm.last_offered();
        for (step, assertions) in &turn.asserts {
            for a in *assertions {
                if let Err(e) = check_assertion(a, &events, &offered) {
                    return fail(*step, e);
                }
            }
        }
    }
    None
}
