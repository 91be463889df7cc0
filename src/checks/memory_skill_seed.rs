crate::declare_rule! {
    /// ## What it does
    /// Reports `seed: true` on a field of a skill `memory.yml`.
    ///
    /// ## Why it matters
    /// Seeding copies a value from the channel's session-start metadata
    /// into memory. Only project fields are seeded; on a skill field the
    /// flag does nothing, and the field stays empty.
    ///
    /// ## Example
    /// ```yaml
    /// # skills/check_balance/memory.yml
    /// schema:
    ///   private:
    ///     caller_number:
    ///       type: text
    ///       seed: true
    /// ```
    ///
    /// ## Fix
    /// Move the field to the project `memory.yml`:
    /// ```yaml
    /// # memory.yml
    /// caller_number:
    ///   type: text
    ///   seed: true
    /// ```
    pub static RULE = { code: "memory.skill_seed", severity: Error };
}
