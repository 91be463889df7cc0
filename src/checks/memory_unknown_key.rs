crate::declare_rule! {
    /// ## What it does
    /// Reports a key that `memory.yml` does not define: a top-level key of
    /// a skill file other than `schema` and `access`, a key under `schema`
    /// other than `public` and `private`, under `access` other than
    /// `deny_read` and `deny_write`, an unknown field attribute, or an
    /// unknown `anonymization` key. The accepted field attributes are
    /// `type`, `description`, `llm_settable`, `immutable`,
    /// `initial_value`, `enum_values`, `seed`, `pii`, `anonymization` and
    /// `privacy_rules`.
    ///
    /// ## Why it matters
    /// Unknown keys are ignored by the engine, so a typo silently changes
    /// behaviour: `llm_setable: true` leaves the field unsettable, and
    /// `memory:` instead of `schema:` declares nothing.
    ///
    /// ## Example
    /// ```yaml
    /// schema:
    ///   public:
    ///     order_confirmed:
    ///       type: bool
    ///       llm_setable: true
    /// ```
    ///
    /// ## Fix
    /// Correct the key (`llm_settable: true`) or remove it.
    pub static RULE = { code: "memory.unknown_key", severity: Error };
}
