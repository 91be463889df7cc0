use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a `@tool` function defined with `def` instead of `async def`.
    ///
    /// ## Why it matters
    /// The runtime awaits every tool. A plain function runs to completion
    /// (its side effects happen), then awaiting its result fails, so the LLM
    /// gets an error although the work was done. It also cannot be
    /// interrupted by the timeout or by cancellation.
    ///
    /// ## Example
    /// ```python
    /// @tool(description="Lock a card")
    /// def lock_card(card_id: str, context: ToolContext = None) -> ToolResult: ...
    /// ```
    ///
    /// ## Fix
    /// ```python
    /// @tool(description="Lock a card")
    /// async def lock_card(card_id: str, context: ToolContext = None) -> ToolResult: ...
    /// ```
    pub static RULE = { code: "tools.not_async", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for m in &model.modules {
        for t in m.ast.tools.iter().filter(|t| !t.is_async) {
            out.push(
                RULE.finding(format!("tool `{}` is not `async`", t.name))
                    .at(m.file, t.def_span, "defined with `def`")
                    .help(format!("write `async def {}(...)`", t.name)),
            );
        }
    }
}
