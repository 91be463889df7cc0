crate::declare_rule! {
    /// ## What it does
    /// Reports a top-level `requires:` key in a skill's frontmatter.
    ///
    /// ## Why it matters
    /// Skill-level `requires` was removed from the format; the engine
    /// rejects it and the skill fails to load.
    ///
    /// ## Example
    /// ```yaml
    /// requires: session.project.logged_in
    /// ```
    ///
    /// ## Fix
    /// Use `precondition:` to park the skill until a resolver runs, or
    /// `hidden: true` to keep it out of routing. `requires` inside
    /// `tool_constraints` still gates individual tools.
    pub static RULE = { code: "skill.requires_removed", severity: Error };
}
