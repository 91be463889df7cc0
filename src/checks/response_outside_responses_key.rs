crate::declare_rule! {
    /// ## What it does
    /// Reports a response written at the top level of responses.yml instead of
    /// under the `responses:` key.
    ///
    /// ## Why it matters
    /// Only the `responses:` mapping is read: everything else in the file is
    /// silently ignored by the engine, so these responses do not exist at run
    /// time and every reference to them fails.
    ///
    /// ## Example
    /// ```yaml
    /// utter_greet:
    ///   - text: Hello!
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// responses:
    ///   utter_greet:
    ///     - text: Hello!
    /// ```
    pub static RULE = { code: "response.outside_responses_key", severity: Error };
}
