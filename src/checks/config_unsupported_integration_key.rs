crate::declare_rule! {
    /// ## What it does
    /// Reports the sections of older Rasa projects that this format replaces:
    /// `nlg`, `action_endpoint`, `vector_store`, `nlu` and
    /// `interaction_handling`. The help names the replacement.
    ///
    /// ## Why it matters
    /// The engine refuses the file; the feature is configured elsewhere.
    ///
    /// ## Example
    /// ```yaml
    /// action_endpoint:
    ///   url: http://localhost:5055/webhook
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// # write tools as @tool functions in skills/<id>/tools.py, or connect
    /// mcp_servers:
    ///   - name: backend
    ///     url: https://backend.example/mcp/
    /// ```
    pub static RULE = { code: "config.unsupported_integration_key", severity: Error };
}
