//! Drivers: the I/O around the engine. A [`Session`] runs whole turns:
//! it calls the LLM provider, runs Python tools in the worker (answering
//! their memory and send requests through the engine), and delivers bot
//! messages as soon as they are sent.

use crate::runtime::engine::{Conversation, Engine, Input, Next};
use crate::runtime::llm::LlmProvider;
use crate::runtime::types::{ChatRequest, ToolOutcome};
use crate::runtime::worker::Worker;
use std::time::Duration;

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnEnd {
    /// The turn ran to its end and waits for the user.
    Finished,
    /// The turn was cancelled (D13): a tool was cancelled, or the turn
    /// stopped before or right after an LLM call.
    Interrupted,
}

/// One conversation with a packaged model.
pub struct Session<'a, L: LlmProvider> {
    pub engine: &'a Engine,
    pub conv: Conversation,
    pub worker: &'a mut Worker,
    pub llm: L,
    /// The last request sent to the LLM (its tools are "the tools offered").
    pub last_request: Option<ChatRequest>,
    /// The last LLM failure (the user heard the fallback message).
    pub last_llm_error: Option<String>,
}

impl<'a, L: LlmProvider> Session<'a, L> {
    pub fn new(engine: &'a Engine, worker: &'a mut Worker, llm: L) -> Self {
        Session {
            engine,
            conv: Conversation::default(),
            worker,
            llm,
            last_request: None,
            last_llm_error: None,
        }
    }

    /// Run one user turn to its end. `deliver` gets each bot message as it
    /// is sent; `cancelled` is asked before every LLM call and tool run and
    /// polled while a tool runs (barge-in, D13).
    ///
    /// Once `cancelled` reports true the turn ends: a running tool gets
    /// `CancelledError` (the engine records `tool_cancelled`, keeps the
    /// memory it wrote and answers the calls left with an error), no further
    /// LLM call is made, and an LLM answer that arrives after the
    /// cancellation is dropped unseen, so no tool it asked for runs and no
    /// text of it is shown: it answered a conversation the user has moved
    /// on from. Dropping it needs nothing from the engine: the engine is
    /// left waiting for an LLM answer, and the next [`Input::User`] starts
    /// a fresh turn (the history then holds the interrupted user message
    /// followed by the new one). An LLM request already on the wire is not
    /// aborted; the turn ends when it returns.
    pub fn turn(
        &mut self,
        user: &str,
        deliver: &mut dyn FnMut(&str),
        cancelled: &dyn Fn() -> bool,
    ) -> TurnEnd {
        let timeout =
            Duration::from_secs_f64(self.engine.manifest.agent.tool_timeout_secs.max(0.001));
        let mut end = TurnEnd::Finished;
        let mut out = self
            .engine
            .step(&mut self.conv, Input::User(user.to_string()));
        loop {
            for text in std::mem::take(&mut out.say) {
                deliver(&text);
            }
            let input = match out.next {
                Next::WaitForUser => return end,
                Next::CallLlm(req) => {
                    if cancelled() {
                        return TurnEnd::Interrupted;
                    }
                    let result = self.llm.complete(&req);
                    self.last_request = Some(req);
                    if cancelled() {
                        return TurnEnd::Interrupted;
                    }
                    match result {
                        Ok(resp) => Input::Llm(resp),
                        Err(e) => {
                            self.last_llm_error = Some(e.to_string());
                            Input::LlmFailed(e.to_string())
                        }
                    }
                }
                Next::RunTool(run) => {
                    let outcome = if cancelled() {
                        ToolOutcome::Cancelled
                    } else {
                        let mut host = self.engine.host(&mut self.conv, deliver, cancelled);
                        self.worker.call(
                            &run.module,
                            &run.function,
                            &run.arguments,
                            &run.context,
                            timeout,
                            &mut host,
                        )
                    };
                    if outcome == ToolOutcome::Cancelled {
                        end = TurnEnd::Interrupted;
                    }
                    Input::Tool(outcome)
                }
            };
            out = self.engine.step(&mut self.conv, input);
        }
    }

    /// The events so far, as JSON objects (`{"type": ..., ...}`).
    pub fn events_json(&self) -> Vec<serde_json::Value> {
        self.conv
            .events
            .iter()
            .filter_map(|e| serde_json::to_value(e).ok())
            .collect()
    }
}
