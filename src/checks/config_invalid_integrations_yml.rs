crate::declare_rule! {
    /// ## What it does
    /// Reports an integrations.yml whose root is not a mapping (a list or a
    /// scalar). The reference engine ignores such a file silently.
    ///
    /// ## Why it matters
    /// Nothing in the file is read: there are no model groups, so every model-
    /// group reference fails.
    ///
    /// ## Example
    /// ```yaml
    /// - id: default
    ///   models:
    ///     - provider: openai
    ///       model: gpt-4.1
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
    pub static RULE = { code: "config.invalid_integrations_yml", severity: Error };
}
