crate::declare_rule! {
    /// ## What it does
    /// Reports a responses.yml whose structure cannot be read: a root that is not
    /// a mapping, a `responses:` value that is not a mapping, a response that is
    /// not a non-empty list of variants, a variant that is null or a list, a
    /// `condition` that is not a string, `buttons` that are neither a list nor
    /// `{source: <tool>}`, a button that is not a mapping, or a button source
    /// without a tool name.
    ///
    /// ## Why it matters
    /// The engine drops what it cannot read: the response (or the variant, the
    /// condition, the buttons) is missing at run time, and references to a
    /// response with no valid variant are unknown.
    ///
    /// ## Example
    /// ```yaml
    /// responses:
    ///   utter_greet:
    ///     text: Hello!        # a mapping, not a list of variants
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// responses:
    ///   utter_greet:
    ///     - text: Hello!
    /// ```
    pub static RULE = { code: "response.invalid_variant_shape", severity: Error };
}
