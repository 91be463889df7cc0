crate::declare_rule! {
    /// ## What it does
    /// Reports an agent.yml whose root is not a mapping (a list or a scalar).
    ///
    /// ## Why it matters
    /// Nothing in the file can be read: the agent has no persona and no model
    /// group.
    ///
    /// ## Example
    /// ```yaml
    /// - agent:
    ///     persona: You are a helpful assistant.
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// agent:
    ///   persona: You are a helpful assistant.
    /// orchestrator:
    ///   model_group: default
    /// ```
    pub static RULE = { code: "config.invalid_agent_yml", severity: Error };
}
