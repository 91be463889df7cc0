crate::declare_rule! {
    /// ## What it does
    /// Reports a top-level key of integrations.yml that the engine does not
    /// accept. The accepted keys are `a2a_server`, `channels`, `event_broker`,
    /// `knowledge_stores`, `lock_store`, `mcp_servers`, `metrics`,
    /// `model_groups`, `rasa_model_server`, `recordings`, `secrets_manager`,
    /// `timer_store`, `tracing` and `tracker_store`.
    ///
    /// ## Why it matters
    /// The engine refuses the file; a misspelt key (`model_group:`) also means
    /// the intended section is missing.
    ///
    /// ## Example
    /// ```yaml
    /// model_group:
    ///   - id: default
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// model_groups:
    ///   - id: default
    /// ```
    pub static RULE = { code: "config.unknown_integration_key", severity: Error };
}
