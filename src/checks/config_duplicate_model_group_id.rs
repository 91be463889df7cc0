crate::declare_rule! {
    /// ## What it does
    /// Reports a model group id declared twice in integrations.yml.
    ///
    /// ## Why it matters
    /// References by id are ambiguous; the engine refuses the file.
    ///
    /// ## Example
    /// ```yaml
    /// model_groups:
    ///   - id: default
    ///     models: [...]
    ///   - id: default
    ///     models: [...]
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// model_groups:
    ///   - id: default
    ///     models: [...]
    ///   - id: fast
    ///     models: [...]
    /// ```
    pub static RULE = { code: "config.duplicate_model_group_id", severity: Error };
}
