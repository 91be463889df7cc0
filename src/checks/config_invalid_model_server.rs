crate::declare_rule! {
    /// ## What it does
    /// Reports a top-level `models:` key in integrations.yml. The remote model
    /// server is configured under `rasa_model_server:`; LLMs are listed in a
    /// model group's `models`.
    ///
    /// ## Why it matters
    /// The engine refuses the file.
    ///
    /// ## Example
    /// ```yaml
    /// models:
    ///   url: https://models.example/latest.tar.gz
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// rasa_model_server:
    ///   url: https://models.example/latest.tar.gz
    /// ```
    pub static RULE = { code: "config.invalid_model_server", severity: Error };
}
