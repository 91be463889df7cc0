crate::declare_rule! {
    /// ## What it does
    /// Reports an `access` section of a skill `memory.yml` that is not a
    /// mapping, or an `access.deny_read` / `access.deny_write` that is not
    /// a list of memory names.
    ///
    /// ## Why it matters
    /// Deny lists restrict what the skill may read or write. A list that
    /// cannot be read restricts nothing, so the skill gets more access
    /// than you meant to give it.
    ///
    /// ## Example
    /// ```yaml
    /// access:
    ///   deny_write: project.authenticated
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// access:
    ///   deny_write:
    ///     - project.authenticated
    /// ```
    pub static RULE = { code: "memory.invalid_access", severity: Error };
}
