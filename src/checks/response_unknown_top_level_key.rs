crate::declare_rule! {
    /// ## What it does
    /// Warns about a top-level key of responses.yml other than `responses` whose
    /// value is not a list of variants (for example `version:` copied from a
    /// domain file, or a misspelt `response:`).
    ///
    /// ## Why it matters
    /// The key is ignored: whatever it holds has no effect.
    ///
    /// ## Example
    /// ```yaml
    /// version: "3.1"
    /// responses:
    ///   utter_greet:
    ///     - text: Hello!
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// responses:
    ///   utter_greet:
    ///     - text: Hello!
    /// ```
    pub static RULE = { code: "response.unknown_top_level_key", severity: Warning };
}
