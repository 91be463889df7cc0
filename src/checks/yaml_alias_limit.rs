crate::declare_rule! {
    /// ## What it does
    /// Reports YAML anchors and aliases (`&a` / `*a`) that expand into more
    /// than 10,000 nodes.
    ///
    /// ## Why it matters
    /// Nested aliases grow exponentially ("billion laughs"); a small file can
    /// expand into gigabytes. maestro stops expanding and reports it.
    ///
    /// ## Example
    /// ```yaml
    /// a: &a [x, x, x, x, x, x, x, x, x, x]
    /// b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
    /// c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
    /// ```
    ///
    /// ## Fix
    /// Write the data out, or reduce the nesting of aliases.
    pub static RULE = { code: "yaml.alias_limit", severity: Error };
}
