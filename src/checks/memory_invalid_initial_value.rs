crate::declare_rule! {
    /// ## What it does
    /// Reports an `initial_value` that does not fit the field's `type`: a
    /// number for a `text` field, a quoted `"false"` for a `bool` field, a
    /// fraction for an `int` field, a value outside `enum_values` for a
    /// `categorical` field, and so on. `null` fits every type; fields of
    /// type `any` (or an unknown type) accept anything.
    ///
    /// ## Why it matters
    /// The initial value is written as is each time the skill starts a new
    /// run; conditions such as `session.pizza.price_checked == False` then
    /// compare against a value of the wrong type and never hold.
    ///
    /// ## Example
    /// ```yaml
    /// price_checked:
    ///   type: bool
    ///   initial_value: "false"
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// price_checked:
    ///   type: bool
    ///   initial_value: false
    /// ```
    pub static RULE = { code: "memory.invalid_initial_value", severity: Error };
}
