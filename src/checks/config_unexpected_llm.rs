crate::declare_rule! {
    /// ## What it does
    /// Reports a top-level `llm:` section in integrations.yml.
    ///
    /// ## Why it matters
    /// The LLM is chosen through a model group: `orchestrator.model_group` in
    /// agent.yml names a group of `model_groups`. A top-level `llm` is refused.
    ///
    /// ## Example
    /// ```yaml
    /// llm:
    ///   model: gpt-4.1
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// model_groups:
    ///   - id: default
    ///     models:
    ///       - provider: openai
    ///         model: gpt-4.1
    ///         api_key: ${OPENAI_API_KEY}
    /// ```
    pub static RULE = { code: "config.unexpected_llm", severity: Error };
}
