use super::conditions::constraints;
use crate::diagnostic::Finding;
use crate::model::Model;
use crate::suggest::did_you_mean;

crate::declare_rule! {
    /// ## What it does
    /// Reports a `tool_constraints` entry for a tool the skill does not
    /// have: no skill-local tool, imported shared tool or MCP import of that
    /// name. A shared tool that the skill does not list in `import_tools` is
    /// reported too.
    ///
    /// ## Why it matters
    /// The gate protects nothing: a typo in the tool name leaves the real
    /// tool ungated, and a shared tool is only attached through
    /// `import_tools`.
    ///
    /// ## Example
    /// ```yaml
    /// tool_constraints:
    ///   - lock_crd:
    ///       requires: "session.project.selected_card_id"
    /// ```
    ///
    /// ## Fix
    /// Use the tool's function name (`lock_card`); for a shared tool, also
    /// add it to `import_tools`.
    pub static RULE = { code: "tool_constraint.unknown_tool", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for (skill, file, c) in constraints(model) {
        let name = c.tool.value.as_str();
        let mcp = skill.doc.iter().flat_map(|d| d.import_tools.iter()).any(|i| {
            i.value
                .strip_prefix("mcp/")
                .and_then(|r| r.split_once(':'))
                .is_some_and(|(_, t)| t == name)
        });
        if skill.tool(name).is_some() || mcp {
            continue;
        }
        let f = if let Some(&def) = model.shared_tools.get(name) {
            RULE.finding(format!(
                "`{name}` is a shared tool that skill `{}` does not import",
                skill.id
            ))
            .at(file, c.tool.span, "not attached to this skill")
            .label(model.module(def).file, model.def(def).name_span, "the shared tool")
            .help(format!("add `{name}` to `import_tools`"))
        } else {
            let f = RULE
                .finding(format!("skill `{}` has no tool `{name}` to constrain", skill.id))
                .at(file, c.tool.span, "no such tool");
            match did_you_mean(name, skill.tools.iter().map(|t| t.name.as_str())) {
                Some(s) => f.help(format!("did you mean `{s}`?")),
                None => f.help(format!(
                    "define `{name}` in skills/{}/tools.py, import a shared tool, or remove the entry",
                    skill.id
                )),
            }
        };
        out.push(f);
    }
}
