crate::declare_rule! {
    /// ## What it does
    /// Reports a field attribute whose value has the wrong YAML type: a
    /// flag (`llm_settable`, `immutable`, `seed`, `pii`) that is not an
    /// unquoted `true`/`false`, a `type` or `description` that is not a
    /// string, `enum_values` that is not a list, `privacy_rules` that is
    /// not a list of strings, and `anonymization` settings that are
    /// invalid (`type` other than `redact`/`mask`, a `redaction_char` that
    /// is not one character, `keep_left`/`keep_right` that are not
    /// positive integers, or `anonymization` on a field without
    /// `pii: true`).
    ///
    /// ## Why it matters
    /// `llm_settable: "yes"` is a string, not a boolean. Engines differ in
    /// how they read such values (one accepts `"yes"`, another treats any
    /// non-boolean as false), so the field may not behave as written.
    ///
    /// ## Example
    /// ```yaml
    /// order_confirmed:
    ///   type: bool
    ///   llm_settable: "yes"
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// order_confirmed:
    ///   type: bool
    ///   llm_settable: true
    /// ```
    pub static RULE = { code: "memory.invalid_attribute", severity: Error };
}
