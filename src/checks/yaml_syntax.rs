crate::declare_rule! {
    /// ## What it does
    /// Reports a YAML syntax error in `skill.md` frontmatter or any `.yml`
    /// file, at the position where the parser stopped.
    ///
    /// ## Why it matters
    /// A file that does not parse fails to load; everything after the error
    /// is lost.
    ///
    /// ## Example
    /// ```yaml
    /// description: Replace a card: lost or stolen
    /// ```
    /// (a second `: ` inside an unquoted value)
    ///
    /// ## Fix
    /// Quote values that contain `: ` or start with a special character:
    /// `description: "Replace a card: lost or stolen"`.
    pub static RULE = { code: "yaml.syntax", severity: Error };
}
