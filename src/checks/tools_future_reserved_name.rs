use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Warns about a tool or `import_tools` entry named `complete`, `cancel`,
    /// `listen` or `hangup`.
    ///
    /// ## Why it matters
    /// The later version of the engine reserves these names for its own
    /// framework tools; a project using them will fail to load after an
    /// upgrade.
    ///
    /// ## Example
    /// ```python
    /// @tool(description="Cancel the customer's order")
    /// async def cancel(order_id: str, context: ToolContext = None) -> ToolResult: ...
    /// ```
    ///
    /// ## Fix
    /// Use a specific name: `cancel_order`.
    pub static RULE = { code: "tools.future_reserved_name", severity: Warning };
}

/// Names the later engine reserves in addition to the seeds' eight.
pub const FUTURE_RESERVED: &[&str] = &["complete", "cancel", "listen", "hangup"];

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    super::reserved_names(
        model,
        FUTURE_RESERVED,
        &RULE,
        "reserved by later versions of the engine",
        out,
    );
}
