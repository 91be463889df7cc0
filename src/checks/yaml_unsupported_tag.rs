crate::declare_rule! {
    /// ## What it does
    /// Warns about an explicit YAML tag other than the standard scalar tags
    /// (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`).
    ///
    /// ## Why it matters
    /// The engine's safe loader rejects custom tags such as `!!python/object`;
    /// maestro reads the value as a plain string.
    ///
    /// ## Example
    /// `initial_value: !!python/tuple [1, 2]`
    ///
    /// ## Fix
    /// Remove the tag and write a plain value.
    pub static RULE = { code: "yaml.unsupported_tag", severity: Warning };
}
