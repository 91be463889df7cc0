use crate::diagnostic::Finding;
use crate::model::Model;
use crate::python::ContextParam;

crate::declare_rule! {
    /// ## What it does
    /// Reports a `@tool` function whose injected parameter is not named
    /// `context` (e.g. `ctx: ToolContext`), or that has no parameter that
    /// can receive `context` at all.
    ///
    /// ## Why it matters
    /// The runtime always passes the tool context as the keyword argument
    /// `context=`. Under any other name the call fails with "unexpected
    /// keyword argument 'context'", and a misnamed parameter also leaks into
    /// the schema the LLM sees.
    ///
    /// ## Example
    /// ```python
    /// @tool(description="Lock a card")
    /// async def lock_card(card_id: str, ctx: ToolContext = None) -> ToolResult: ...
    /// ```
    ///
    /// ## Fix
    /// ```python
    /// @tool(description="Lock a card")
    /// async def lock_card(card_id: str, context: ToolContext = None) -> ToolResult: ...
    /// ```
    pub static RULE = { code: "tools.context_parameter", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for m in &model.modules {
        for t in &m.ast.tools {
            match &t.context {
                ContextParam::Misnamed { name, span } => out.push(
                    RULE.finding(format!(
                        "the context parameter of `{}` is named `{name}`, not `context`",
                        t.name
                    ))
                    .at(m.file, *span, "the runtime passes `context=`")
                    .help(format!("rename `{name}` to `context`: `context: ToolContext = None`")),
                ),
                ContextParam::Missing => out.push(
                    RULE.finding(format!("tool `{}` has no `context` parameter", t.name))
                        .at(m.file, t.name_span, "every call passes `context=`")
                        .help("add `context: ToolContext = None` as the last parameter"),
                ),
                ContextParam::Named { .. } | ContextParam::KwArgs { .. } => {}
            }
        }
    }
}
