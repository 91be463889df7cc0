use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Warns about an import of project code (`lib.…`, `skills.…`, `tools.…`)
    /// inside a function body of a tool module.
    ///
    /// ## Why it matters
    /// The project root is on `sys.path` only while tool modules are loaded.
    /// An import that runs later, when the tool is called, fails with
    /// `ModuleNotFoundError` in the middle of a conversation.
    ///
    /// ## Example
    /// ```python
    /// @tool(description="List wallets")
    /// async def list_wallets(context: ToolContext = None) -> ToolResult:
    ///     from lib.wallet_data import WALLETS
    ///     ...
    /// ```
    ///
    /// ## Fix
    /// Move the import to the top of the module.
    pub static RULE = { code: "tools.deferred_local_import", severity: Warning };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for m in &model.modules {
        for imp in m.ast.imports.iter().filter(|i| !i.top_level && i.level == 0) {
            let first = imp.module.split('.').next().unwrap_or("");
            if !["lib", "skills", "tools"].contains(&first) {
                continue;
            }
            out.push(
                RULE.finding(format!(
                    "`{}` is imported inside a function; the project root is only importable while modules load",
                    imp.module
                ))
                .at(m.file, imp.span, "runs when the tool is called")
                .help("move this import to the top of the module"),
            );
        }
    }
}
