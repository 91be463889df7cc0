crate::declare_rule! {
    /// ## What it does
    /// Warns about a key of agent.yml that is never read: an unknown top-level
    /// key, or an unknown key inside `agent:` (for example `rules:` indented
    /// under `agent:`, where it is ignored).
    ///
    /// ## Why it matters
    /// The engine ignores these keys silently, so the setting has no effect while
    /// it looks configured.
    ///
    /// ## Example
    /// ```yaml
    /// agent:
    ///   persona: You help customers.
    ///   rules:
    ///     - Never quote prices.
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// agent:
    ///   persona: You help customers.
    /// rules:
    ///   - Never quote prices.
    /// ```
    pub static RULE = { code: "config.unknown_agent_key", severity: Warning };
}
