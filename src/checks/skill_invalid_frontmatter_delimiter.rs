crate::declare_rule! {
    /// ## What it does
    /// Reports a `skill.md` whose first line is not `---`, or whose
    /// frontmatter is never closed by a second `---` line.
    ///
    /// ## Why it matters
    /// Without the delimiters the engine cannot find the frontmatter and the
    /// skill fails to load.
    ///
    /// ## Example
    /// ```markdown
    /// description: Replace a credit card
    /// ---
    /// Help the customer replace a card.
    /// ```
    ///
    /// ## Fix
    /// ```markdown
    /// ---
    /// description: Replace a credit card
    /// ---
    /// Help the customer replace a card.
    /// ```
    pub static RULE = { code: "skill.invalid_frontmatter_delimiter", severity: Error };
}
