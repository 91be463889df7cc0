crate::declare_rule! {
    /// ## What it does
    /// Reports a button payload that starts with `set:` (a set-memory button) but
    /// does not follow `set:session.<owner>.<entry>=<value>`: no `=`, an empty
    /// value, a reference that does not start with `session.`, not exactly two
    /// names after `session.`, or an empty name.
    ///
    /// ## Why it matters
    /// A tap on the button cannot set memory; the engine answers with
    /// `utter_set_memory_button_skipped` instead.
    ///
    /// ## Example
    /// ```yaml
    /// buttons:
    ///   - title: "Morning"
    ///     payload: "set:project.delivery_slot=am"
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// buttons:
    ///   - title: "Morning"
    ///     payload: "set:session.project.delivery_slot=am"
    /// ```
    pub static RULE = { code: "response.invalid_button_payload", severity: Error };
}
