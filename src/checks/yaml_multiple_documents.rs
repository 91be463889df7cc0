crate::declare_rule! {
    /// ## What it does
    /// Reports a YAML file (or frontmatter) that contains more than one
    /// document, separated by `---`.
    ///
    /// ## Why it matters
    /// Only the first document is read; everything after the separator is
    /// silently ignored.
    ///
    /// ## Example
    /// ```yaml
    /// logged_in:
    ///   type: bool
    /// ---
    /// card_id:
    ///   type: text
    /// ```
    ///
    /// ## Fix
    /// Remove the `---` line so that all entries are in one document.
    pub static RULE = { code: "yaml.multiple_documents", severity: Error };
}
