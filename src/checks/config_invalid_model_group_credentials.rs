crate::declare_rule! {
    /// ## What it does
    /// Reports a credential in a model group that is not exactly one `${VAR}`
    /// placeholder: a literal key (shown elided, never echoed), a non-string
    /// value, or the unsupported `api_key_env`. Checked keys, at any depth:
    /// `api_key`, `aws_access_key_id`, `aws_secret_access_key`,
    /// `aws_session_token`, `public_key`, `private_key`, `client_id`,
    /// `client_secret`, `token_url`, `secret`. A missing `api_key` is fine
    /// (keyless servers).
    ///
    /// ## Why it matters
    /// A key written in a project file ends up in version control and in the
    /// packaged model. Placeholders are read from the environment when the client
    /// is built.
    ///
    /// ## Example
    /// ```yaml
    /// models:
    ///   - provider: openai
    ///     model: gpt-4.1
    ///     api_key: sk-live-...
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// models:
    ///   - provider: openai
    ///     model: gpt-4.1
    ///     api_key: ${OPENAI_API_KEY}
    /// # and: export OPENAI_API_KEY=...
    /// ```
    pub static RULE = { code: "config.invalid_model_group_credentials", severity: Error };
}
