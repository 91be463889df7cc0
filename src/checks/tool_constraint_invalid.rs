crate::declare_rule! {
    /// ## What it does
    /// Reports a `tool_constraints` value that is not a list, or an item that
    /// is not a mapping with exactly one tool name (a bare string such as
    /// `- lock_card` is rejected).
    ///
    /// ## Why it matters
    /// The skill fails to load; a malformed gate must never silently leave a
    /// tool ungated.
    ///
    /// ## Example
    /// ```yaml
    /// tool_constraints:
    ///   - lock_card
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// tool_constraints:
    ///   - lock_card:
    ///       requires: "session.project.selected_card_id"
    /// ```
    pub static RULE = { code: "tool_constraint.invalid", severity: Error };
}
