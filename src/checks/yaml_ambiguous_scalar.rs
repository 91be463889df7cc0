crate::declare_rule! {
    /// ## What it does
    /// Warns about an unquoted value that YAML 1.1 (what the engine uses) and
    /// YAML 1.2 (most editors and linters) read differently: `yes`, `no`,
    /// `on`, `off` in any case, octal-looking numbers (`012`), sexagesimal
    /// numbers (`1:30`), dates (`2024-01-01`) and numbers with `_`.
    ///
    /// ## Why it matters
    /// The engine reads `hidden: yes` as the boolean `true` and
    /// `code: 012` as the number 10. Other tools read the same text
    /// differently, so what you see is not what runs.
    ///
    /// ## Example
    /// ```yaml
    /// hidden: yes
    /// opening_hours: 9:30
    /// ```
    ///
    /// ## Fix
    /// Write what you mean without ambiguity: `hidden: true`, or quote text:
    /// `opening_hours: "9:30"`.
    pub static RULE = { code: "yaml.ambiguous_scalar", severity: Warning };
}
