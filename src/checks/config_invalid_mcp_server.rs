crate::declare_rule! {
    /// ## What it does
    /// Reports an `mcp_servers` section that is not a list and every invalid
    /// entry: not a mapping, a missing or invalid `name` (letters, digits, `_`,
    /// `.`, `-`, starting with a letter or digit), a missing or blank `url` or
    /// one that is not http(s), a `type` other than `http`/`https`, a
    /// `tool_timeout` that is not a number above zero, `meta_map.from_slots`, the
    /// unsupported keys `auth`, `token_env`, `pre_call_hook`, `protocol_version`,
    /// more than one of `token`/`api_key`/`oauth`/`module`, and a `token`,
    /// `api_key` or `client_secret` that does not start with a `${VAR}`
    /// placeholder (a literal secret is never echoed).
    ///
    /// ## Why it matters
    /// The engine refuses the server, and skills that import its tools
    /// (`mcp/<server>:<tool>`) cannot start.
    ///
    /// ## Example
    /// ```yaml
    /// mcp_servers:
    ///   - name: billing
    ///     url: https://billing.example/mcp/
    ///     token: tok_live_...
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// mcp_servers:
    ///   - name: billing
    ///     url: https://billing.example/mcp/
    ///     token: ${BILLING_TOKEN}
    /// ```
    pub static RULE = { code: "config.invalid_mcp_server", severity: Error };
}
