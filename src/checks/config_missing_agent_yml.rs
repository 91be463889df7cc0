crate::declare_rule! {
    /// ## What it does
    /// Reports a project without an `agent.yml` at its root.
    ///
    /// ## Why it matters
    /// The agent has no persona and no model group: it cannot be trained or run.
    ///
    /// ## Example
    /// ```text
    /// my_agent/
    ///   skills/
    ///   integrations.yml
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// # agent.yml
    /// agent:
    ///   persona: You are the assistant of Example Bank. Keep answers short.
    /// orchestrator:
    ///   model_group: default
    /// ```
    pub static RULE = { code: "config.missing_agent_yml", severity: Error };
}

use crate::diagnostic::Finding;
use crate::model::Model;

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    if model.agent.is_none() {
        out.push(
            RULE.finding("the project has no agent.yml (or it could not be read)")
                .at_path("agent.yml")
                .help("create agent.yml with `agent:` → `persona: ...` and `orchestrator:` → `model_group: <id from integrations.yml>`"),
        );
    }
}
