crate::declare_rule! {
    /// ## What it does
    /// Reports a `model_groups` section that is not a list, and a group that is
    /// not a mapping, has no `id`, has no `models`, or has a model that is not
    /// valid for its provider: `openai` needs `model`; `azure` (also when
    /// `deployment` is set without `provider`) needs `deployment`; `self-hosted`
    /// and `rasa` need `model` and `api_base`; other providers need `provider`
    /// and `model`; `stream` and `n` are not allowed; `api_type` must be `openai`
    /// for `openai` and `self-hosted`.
    ///
    /// ## Why it matters
    /// The engine refuses to build an LLM client from the group. References to
    /// model groups are not checked while a group is invalid.
    ///
    /// ## Example
    /// ```yaml
    /// model_groups:
    ///   - id: local
    ///     models:
    ///       - provider: self-hosted
    ///         model: llama-3.1-8b
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// model_groups:
    ///   - id: local
    ///     models:
    ///       - provider: self-hosted
    ///         model: llama-3.1-8b
    ///         api_base: http://127.0.0.1:8000/v1
    /// ```
    pub static RULE = { code: "config.invalid_model_group", severity: Error };
}
