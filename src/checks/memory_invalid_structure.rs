crate::declare_rule! {
    /// ## What it does
    /// Reports a `memory.yml` whose shape is not the one the engine reads:
    /// a file, `schema`, `schema.public` or `schema.private` that is not a
    /// mapping; a field written at the top level of a skill file (outside
    /// `schema`); a skill-style `schema:` / `access:` section in the flat
    /// project file; a field name that is not a string (`yes:`, `5:`) or is
    /// blank.
    ///
    /// ## Why it matters
    /// The engine either refuses to load such a file or reads it as
    /// something else: a flat skill file declares nothing (every write
    /// then fails as undeclared), and `schema:` in the project file
    /// declares one project field named `schema`.
    ///
    /// ## Example
    /// ```yaml
    /// # skills/card_replace/memory.yml
    /// order_confirmed:
    ///   type: bool
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// # skills/card_replace/memory.yml
    /// schema:
    ///   public:
    ///     order_confirmed:
    ///       type: bool
    /// ```
    /// Project fields stay flat in the root `memory.yml`.
    pub static RULE = { code: "memory.invalid_structure", severity: Error };
}
