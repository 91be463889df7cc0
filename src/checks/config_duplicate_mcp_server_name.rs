crate::declare_rule! {
    /// ## What it does
    /// Reports an MCP server name declared twice under `mcp_servers`.
    ///
    /// ## Why it matters
    /// `import_tools` entries `mcp/<server>:<tool>` could mean either server; the
    /// engine refuses the file.
    ///
    /// ## Example
    /// ```yaml
    /// mcp_servers:
    ///   - name: billing
    ///     url: https://billing.example/mcp/
    ///   - name: billing
    ///     url: https://billing-eu.example/mcp/
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// mcp_servers:
    ///   - name: billing
    ///     url: https://billing.example/mcp/
    ///   - name: billing_eu
    ///     url: https://billing-eu.example/mcp/
    /// ```
    pub static RULE = { code: "config.duplicate_mcp_server_name", severity: Error };
}
