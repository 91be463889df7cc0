crate::declare_rule! {
    /// ## What it does
    /// Reports an `import_tools` value that is not a list of tool names, an
    /// entry that is not a non-blank string, or a malformed
    /// `mcp/<server>:<tool>` entry.
    ///
    /// ## Why it matters
    /// The skill fails to load, so none of its tools reach the model.
    ///
    /// ## Example
    /// ```yaml
    /// import_tools: get_customer_info
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// import_tools:
    ///   - get_customer_info
    ///   - mcp/ledger:issue_credit
    /// ```
    pub static RULE = { code: "import_tools.invalid", severity: Error };
}
