crate::declare_rule! {
    /// ## What it does
    /// Reports a field with `llm_settable: true` and no (or a blank)
    /// `description`, in a skill or the project `memory.yml`.
    ///
    /// ## Why it matters
    /// The model fills settable fields through `set_fields` and `correct`,
    /// and the description is all it knows about what a field holds.
    /// Without one it gets a generic "the value for ..." and guesses.
    ///
    /// ## Example
    /// ```yaml
    /// order_confirmed:
    ///   type: bool
    ///   llm_settable: true
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// order_confirmed:
    ///   type: bool
    ///   llm_settable: true
    ///   description: The customer explicitly approved placing the order.
    /// ```
    pub static RULE = { code: "memory.description_required", severity: Error };
}
