use crate::diagnostic::Finding;
use crate::model::Model;
use crate::suggest::did_you_mean;

crate::declare_rule! {
    /// ## What it does
    /// Reports an `import_tools` entry `mcp/<server>:<tool>` whose server is
    /// not configured under `mcp_servers` in `integrations.yml`.
    ///
    /// ## Why it matters
    /// The model cannot connect to a server it does not know, and fails to
    /// start.
    ///
    /// ## Example
    /// ```yaml
    /// import_tools:
    ///   - mcp/billing:refund
    /// ```
    /// with no server named `billing` in integrations.yml.
    ///
    /// ## Fix
    /// Add the server to integrations.yml:
    /// ```yaml
    /// mcp_servers:
    ///   - name: billing
    ///     url: https://billing.example/mcp/
    /// ```
    pub static RULE = { code: "import_tools.unknown_mcp_server", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for (_, file, entry) in super::import_entries(model) {
        let Some(rest) = entry.value.strip_prefix("mcp/") else {
            continue;
        };
        let Ok((server, _)) = crate::skill_md::parse_mcp(rest) else {
            continue;
        };
        if model.mcp_servers.iter().any(|s| s == server) {
            continue;
        }
        let help = match did_you_mean(server, model.mcp_servers.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `mcp/{s}:...`?"),
            None => format!("add `- name: {server}` with its `url` under `mcp_servers` in integrations.yml"),
        };
        out.push(
            RULE.finding(format!(
                "MCP server `{server}` is not configured under `mcp_servers` in integrations.yml"
            ))
            .at(file, entry.span, "unknown server")
            .help(help),
        );
    }
}
