crate::declare_rule! {
    /// ## What it does
    /// Reports a static button whose `title` is missing, blank or not a string
    /// (an unquoted `Yes` is read as a boolean, `42` as a number), or whose
    /// `payload` is present but null, blank or not a string. (The reference
    /// engine reports this as `responses.registry.invalid_variant`.)
    ///
    /// ## Why it matters
    /// The button is dropped: the user never sees it.
    ///
    /// ## Example
    /// ```yaml
    /// responses:
    ///   utter_ask_confirm:
    ///     - text: Shall I go ahead?
    ///       buttons:
    ///         - title: Yes
    ///           payload: "yes"
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// responses:
    ///   utter_ask_confirm:
    ///     - text: Shall I go ahead?
    ///       buttons:
    ///         - title: "Yes"
    ///           payload: "yes"
    /// ```
    pub static RULE = { code: "response.invalid_button", severity: Error };
}
