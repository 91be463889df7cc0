crate::declare_rule! {
    /// ## What it does
    /// Warns when a mapping has the same key twice.
    ///
    /// ## Why it matters
    /// The engine silently keeps the last value and drops the first one, so
    /// half of what was written has no effect.
    ///
    /// ## Example
    /// ```yaml
    /// description: Replace a card
    /// description: Order a new card
    /// ```
    ///
    /// ## Fix
    /// Keep one of the two keys.
    pub static RULE = { code: "yaml.duplicate_key", severity: Warning };
}
