use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports two `@tool` functions with the same name in one file.
    ///
    /// ## Why it matters
    /// Python keeps only the last definition; the first one silently
    /// disappears, with its description and parameters.
    ///
    /// ## Example
    /// ```python
    /// @tool(description="Lock a card")
    /// async def lock_card(card_id: str, context: ToolContext = None) -> ToolResult: ...
    ///
    /// @tool(description="Lock a card temporarily")
    /// async def lock_card(card_id: str, days: int, context: ToolContext = None) -> ToolResult: ...
    /// ```
    ///
    /// ## Fix
    /// Rename or delete one of them.
    pub static RULE = { code: "tools.duplicate_name", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for m in &model.modules {
        for (i, t) in m.ast.tools.iter().enumerate() {
            if let Some(first) = m.ast.tools[..i].iter().find(|o| o.name == t.name) {
                out.push(
                    RULE.finding(format!("tool `{}` is defined twice in {}", t.name, m.path))
                        .at(m.file, t.name_span, "this definition replaces the first")
                        .label(m.file, first.name_span, "first defined here")
                        .help("rename one of them, or delete the one you do not need"),
                );
            }
        }
    }
}
