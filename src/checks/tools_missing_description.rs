use crate::diagnostic::Finding;
use crate::model::Model;
use crate::python::{Description, MissingDescription};

crate::declare_rule! {
    /// ## What it does
    /// Reports a `@tool` decorator without the `description=` keyword:
    /// bare `@tool`, `@tool()`, or `@tool("...")` with a positional argument.
    ///
    /// ## Why it matters
    /// `tool` takes `description` as a keyword argument only; any other form
    /// raises `TypeError` when the module is imported, and the model fails to
    /// load. The description is also what the LLM reads to decide when to
    /// call the tool.
    ///
    /// ## Example
    /// ```python
    /// @tool
    /// async def check_balance(account_id: str, context: ToolContext = None) -> ToolResult: ...
    /// ```
    ///
    /// ## Fix
    /// ```python
    /// @tool(description="Look up the customer's account balance")
    /// async def check_balance(account_id: str, context: ToolContext = None) -> ToolResult: ...
    /// ```
    pub static RULE = { code: "tools.missing_description", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for m in &model.modules {
        for t in &m.ast.tools {
            let Description::Missing { reason } = &t.description else {
                continue;
            };
            let (msg, label) = match reason {
                MissingDescription::Bare => ("is used bare", "`@tool` without arguments"),
                MissingDescription::EmptyCall => ("has no `description=`", "no arguments"),
                MissingDescription::Positional => (
                    "passes the description positionally",
                    "`description` must be passed by keyword",
                ),
            };
            out.push(
                RULE.finding(format!("the `@tool` decorator of `{}` {msg}", t.name))
                    .at(m.file, t.decorator_span, label)
                    .label(m.file, t.name_span, "this tool")
                    .help(format!(
                        "write `@tool(description=\"<what {} does, for the LLM>\")`",
                        t.name
                    )),
            );
        }
    }
}
