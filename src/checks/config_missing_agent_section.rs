crate::declare_rule! {
    /// ## What it does
    /// Reports an agent.yml without an `agent:` mapping (missing, or not a
    /// mapping).
    ///
    /// ## Why it matters
    /// `agent.persona` is required: it opens every prompt. Without it the agent
    /// does not load.
    ///
    /// ## Example
    /// ```yaml
    /// persona: You are a helpful assistant.
    /// orchestrator:
    ///   model_group: default
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// agent:
    ///   persona: You are a helpful assistant.
    /// orchestrator:
    ///   model_group: default
    /// ```
    pub static RULE = { code: "config.missing_agent_section", severity: Error };
}
