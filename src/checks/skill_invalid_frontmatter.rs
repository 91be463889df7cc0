crate::declare_rule! {
    /// ## What it does
    /// Reports frontmatter that is not a mapping, or a `name`,
    /// `description` or `precondition` whose value is not a (non-blank)
    /// string.
    ///
    /// ## Why it matters
    /// Types are strict: `description: 2024` is a number, not text, and the
    /// skill fails to load.
    ///
    /// ## Example
    /// ```yaml
    /// name: 2024
    /// ```
    ///
    /// ## Fix
    /// Quote the value: `name: "2024"`.
    pub static RULE = { code: "skill.invalid_frontmatter", severity: Error };
}
