crate::declare_rule! {
    /// ## What it does
    /// Reports a key that is not allowed: a variant may only have `text`,
    /// `condition`, `metadata` and `buttons`; a button only `title` and
    /// `payload`; a button source only `source`.
    ///
    /// ## Why it matters
    /// The engine refuses the whole file at run time. Keys such as `image`,
    /// `channel`, `custom` or `dynamic_buttons` are not supported in this format.
    ///
    /// ## Example
    /// ```yaml
    /// responses:
    ///   utter_greet:
    ///     - text: Hello!
    ///       image: https://example.com/hi.png
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// responses:
    ///   utter_greet:
    ///     - text: Hello!
    ///       metadata: { image: https://example.com/hi.png }
    /// ```
    pub static RULE = { code: "response.invalid_variant_key", severity: Error };
}
