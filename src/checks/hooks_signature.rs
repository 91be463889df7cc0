use super::hooks::all_hooks;
use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a post-write hook `run_after_setting_<entry>` that declares
    /// parameters besides `context`. (A hook that is not `async` or has no
    /// `context` parameter is reported by `tools.not_async` and
    /// `tools.context_parameter`, like every tool.)
    ///
    /// ## Why it matters
    /// A hook is not an LLM tool: the runtime calls it with `context` only.
    /// A required parameter makes every call fail (and the triggering
    /// write is rolled back); an optional one is never filled.
    ///
    /// ## Example
    /// ```python
    /// @tool(description="Resolve the chosen card label to an id")
    /// async def run_after_setting_selected_card_label(
    ///     label: str, context: ToolContext = None
    /// ) -> ToolResult: ...
    /// ```
    ///
    /// ## Fix
    /// Read the value from memory instead:
    /// ```python
    /// @tool(description="Resolve the chosen card label to an id")
    /// async def run_after_setting_selected_card_label(context: ToolContext = None) -> ToolResult:
    ///     label = context.memory.get("selected_card_label")
    /// ```
    pub static RULE = { code: "hooks.signature", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for hook in all_hooks(model) {
        for p in &hook.def.params {
            let entry = hook.entry;
            out.push(
                RULE.finding(format!(
                    "hook `{}` takes the parameter `{}`; hooks are called with `context` only",
                    hook.def.name, p.name
                ))
                .at(hook.file, p.span, "never passed")
                .help(format!(
                    "remove `{}` and read the value with `context.memory.get(\"{entry}\")`",
                    p.name
                )),
            );
        }
    }
}
