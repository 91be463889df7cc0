crate::declare_rule! {
    /// ## What it does
    /// Reports a field `type` that is not one of `text`, `int`, `float`,
    /// `bool`, `list`, `json`, `categorical` or `any`, and suggests the
    /// type that was probably meant (`string` → `text`, `number` →
    /// `float`, `boolean` → `bool`, ...).
    ///
    /// ## Why it matters
    /// An unknown type is accepted but behaves as `any`: the model is told
    /// to send a string, `correct` does not convert the value, and
    /// `initial_value` is not checked. It is a warning because the project
    /// still runs.
    ///
    /// ## Example
    /// ```yaml
    /// current_balance:
    ///   type: number
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// current_balance:
    ///   type: float
    /// ```
    pub static RULE = { code: "memory.unknown_type", severity: Warning };
}
