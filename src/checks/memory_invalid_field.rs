crate::declare_rule! {
    /// ## What it does
    /// Reports a memory field whose body is not a mapping of attributes,
    /// such as `size: text`, a list, or (in a skill `memory.yml`) nothing
    /// at all.
    ///
    /// ## Why it matters
    /// Attributes are keys under the field. `size: text` does not declare
    /// a text field: the engine either fails to load the skill or
    /// silently declares an untyped field, and the type you wrote is lost.
    ///
    /// ## Example
    /// ```yaml
    /// schema:
    ///   public:
    ///     size: text
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// schema:
    ///   public:
    ///     size:
    ///       type: text
    /// ```
    pub static RULE = { code: "memory.invalid_field", severity: Error };
}
