crate::declare_rule! {
    /// ## What it does
    /// Warns about a model group with more than one model and no `router`.
    ///
    /// ## Why it matters
    /// Without a router only the first model is used; the others are never
    /// called.
    ///
    /// ## Example
    /// ```yaml
    /// - id: default
    ///   models:
    ///     - { provider: openai, model: gpt-4.1, api_key: ${OPENAI_API_KEY} }
    ///     - { provider: openai, model: gpt-4.1-mini, api_key: ${OPENAI_API_KEY} }
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// - id: default
    ///   router: { routing_strategy: simple-shuffle }
    ///   models:
    ///     - { provider: openai, model: gpt-4.1, api_key: ${OPENAI_API_KEY} }
    ///     - { provider: openai, model: gpt-4.1-mini, api_key: ${OPENAI_API_KEY} }
    /// ```
    pub static RULE = { code: "config.unused_model_group_models", severity: Warning };
}
