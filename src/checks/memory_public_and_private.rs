crate::declare_rule! {
    /// ## What it does
    /// Reports an entry declared both under `schema.public` and under
    /// `schema.private` of the same skill.
    ///
    /// ## Why it matters
    /// Both declarations share one slot (`<skill>.<entry>`): the skill
    /// itself sees the private declaration, other skills the public one,
    /// with possibly different types and flags. Whether the value is
    /// meant to be shared is unclear.
    ///
    /// ## Example
    /// ```yaml
    /// schema:
    ///   public:
    ///     reason:
    ///       type: text
    ///   private:
    ///     reason:
    ///       type: text
    /// ```
    ///
    /// ## Fix
    /// Keep one declaration: `public` when other skills read the value,
    /// else `private`.
    pub static RULE = { code: "memory.public_and_private", severity: Error };
}
