use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a `@tool` function whose return annotation is not
    /// `ToolResult`.
    ///
    /// ## Why it matters
    /// The runtime requires a `ToolResult`; returning anything else gives the
    /// LLM an error ("must return a ToolResult") instead of your data. An
    /// annotation such as `-> dict` usually means the body returns the wrong
    /// thing.
    ///
    /// ## Example
    /// ```python
    /// @tool(description="Look up the balance")
    /// async def check_balance(account_id: str, context: ToolContext = None) -> dict:
    ///     return {"balance": 10}
    /// ```
    ///
    /// ## Fix
    /// ```python
    /// @tool(description="Look up the balance")
    /// async def check_balance(account_id: str, context: ToolContext = None) -> ToolResult:
    ///     return ToolResult(llm_response={"balance": 10})
    /// ```
    pub static RULE = { code: "tools.return_annotation", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for m in &model.modules {
        for t in &m.ast.tools {
            let Some(ann) = &t.returns else { continue };
            if t.returns_tool_result {
                continue;
            }
            out.push(
                RULE.finding(format!(
                    "tool `{}` is annotated to return `{}`, not `ToolResult`",
                    t.name, ann.text
                ))
                .at(m.file, ann.span, "expected `ToolResult`")
                .help("return `ToolResult(llm_response=...)` and annotate `-> ToolResult` (from rasa.calm_v2.tools.result)"),
            );
        }
    }
}
