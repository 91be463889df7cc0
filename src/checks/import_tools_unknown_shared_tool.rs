use crate::diagnostic::Finding;
use crate::model::Model;
use crate::suggest::did_you_mean;

crate::declare_rule! {
    /// ## What it does
    /// Reports an `import_tools` entry that names no `@tool` function in the
    /// agent-root `tools/*.py` files (and no skill-local tool either).
    ///
    /// ## Why it matters
    /// The import grants nothing: the skill runs without the tool it expects,
    /// and the model never sees it.
    ///
    /// ## Example
    /// ```yaml
    /// import_tools:
    ///   - get_custmer_info
    /// ```
    ///
    /// ## Fix
    /// Correct the name, or define the tool in a file under `tools/` at the
    /// agent root:
    /// ```python
    /// @tool(description="Fetch the customer's profile")
    /// async def get_customer_info(context: ToolContext = None) -> ToolResult: ...
    /// ```
    pub static RULE = { code: "import_tools.unknown_shared_tool", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for (_, file, entry) in super::import_entries(model) {
        let name = entry.value.as_str();
        if name.starts_with("mcp/")
            || model.shared_tools.contains_key(name)
            || super::local_owner(model, name).is_some()
            || super::is_reserved(name)
        {
            continue;
        }
        let mut f = RULE
            .finding(format!("`import_tools` names `{name}`, but no shared tool has that name"))
            .at(file, entry.span, "not defined in tools/*.py");
        f = match did_you_mean(name, model.shared_tools.keys().map(String::as_str)) {
            Some(s) => {
                let def = model.shared_tools[s];
                f.label(model.module(def).file, model.def(def).name_span, "a shared tool with a similar name")
                    .help(format!("did you mean `{s}`?"))
            }
            None => f.help(format!(
                "define `@tool async def {name}(...)` in a file under the agent-root `tools/` folder, or remove the entry"
            )),
        };
        out.push(f);
    }
}
