use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a tool (skill-local or shared) or an `import_tools` entry that
    /// uses the name of a built-in framework tool: `activate`,
    /// `complete_skill`, `cancel_skill`, `set_fields`, `correct`,
    /// `resolve_tool_confirmation`, `search_knowledge` or `cannot_help`.
    ///
    /// ## Why it matters
    /// These names are reserved: the engine refuses to load a model that
    /// defines one, and the model would not know which tool it calls.
    ///
    /// ## Example
    /// ```python
    /// @tool(description="Activate the customer's new card")
    /// async def activate(card_id: str, context: ToolContext = None) -> ToolResult: ...
    /// ```
    ///
    /// ## Fix
    /// Rename the function to say what it does: `activate_card`.
    pub static RULE = { code: "tools.reserved_name", severity: Error };
}

/// The framework tools of the seeds (decision D1).
pub const RESERVED: &[&str] = crate::manifest::FRAMEWORK_TOOLS;

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    super::reserved_names(model, RESERVED, &RULE, "a built-in framework tool", out);
}
