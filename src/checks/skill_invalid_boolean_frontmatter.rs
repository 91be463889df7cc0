crate::declare_rule! {
    /// ## What it does
    /// Reports `hidden`, `disabled` or `always_include_in_prompt` with a value
    /// that is not a boolean.
    ///
    /// ## Why it matters
    /// These flags are strict: `hidden: "true"` (quoted) is a string and the
    /// skill fails to load.
    ///
    /// ## Example
    /// `hidden: "true"`
    ///
    /// ## Fix
    /// `hidden: true` (unquoted).
    pub static RULE = { code: "skill.invalid_boolean_frontmatter", severity: Error };
}
