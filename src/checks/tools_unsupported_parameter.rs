use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports positional-only parameters (those before a `/`) in a `@tool`
    /// function.
    ///
    /// ## Why it matters
    /// The runtime passes every argument by keyword, so a positional-only
    /// parameter can never be filled and every call fails.
    ///
    /// ## Example
    /// ```python
    /// async def lock_card(card_id: str, /, context: ToolContext = None) -> ToolResult: ...
    /// ```
    ///
    /// ## Fix
    /// Remove the `/`.
    pub static RULE = { code: "tools.unsupported_parameter", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for m in &model.modules {
        for t in &m.ast.tools {
            for span in &t.positional_only {
                out.push(
                    RULE.finding(format!(
                        "tool `{}` has a positional-only parameter",
                        t.name
                    ))
                    .at(m.file, *span, "arguments are passed by keyword")
                    .help("remove the `/` from the parameter list"),
                );
            }
        }
    }
}
