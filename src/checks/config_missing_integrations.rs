crate::declare_rule! {
    /// ## What it does
    /// Reports a project without an `integrations.yml` at its root.
    ///
    /// ## Why it matters
    /// integrations.yml declares the model groups: without it the agent has no
    /// LLM to call.
    ///
    /// ## Example
    /// ```text
    /// my_agent/
    ///   agent.yml
    ///   skills/
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// # integrations.yml
    /// model_groups:
    ///   - id: default
    ///     models:
    ///       - provider: openai
    ///         model: gpt-4.1
    ///         api_key: ${OPENAI_API_KEY}
    /// ```
    pub static RULE = { code: "config.missing_integrations", severity: Error };
}

use crate::diagnostic::Finding;
use crate::model::Model;

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    if model.integrations.is_none() {
        out.push(
            RULE.finding("the project has no integrations.yml (or it could not be read)")
                .at_path("integrations.yml")
                .help("create integrations.yml with `model_groups:` → `- id: default`, `models:` → `- provider: openai`, `model: gpt-4.1`, `api_key: ${OPENAI_API_KEY}`"),
        );
    }
}
