crate::declare_rule! {
    /// ## What it does
    /// Reports a frontmatter key that `skill.md` does not define. The
    /// accepted keys are `name`, `description`, `precondition`, `hidden`,
    /// `disabled`, `always_include_in_prompt`, `complete_when`,
    /// `import_tools`, `tool_constraints`, `utter`, `knowledge_answering`
    /// and `routing`.
    ///
    /// ## Why it matters
    /// The engine rejects unknown keys and the skill fails to load. A typo
    /// such as `tool_constraint:` would otherwise silently drop a gate.
    ///
    /// ## Example
    /// ```yaml
    /// descripton: Replace a credit card
    /// ```
    ///
    /// ## Fix
    /// Correct the key (`description:`) or remove it. The skill id comes
    /// from the folder name, so `id:` is never needed.
    pub static RULE = { code: "skill.unknown_frontmatter_key", severity: Error };
}
