use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports an `import_tools` entry that names a skill-local tool (one
    /// defined in some `skills/<id>/tools.py` or `skills/<id>/tools/*.py`)
    /// rather than a shared tool.
    ///
    /// ## Why it matters
    /// `import_tools` only reaches the agent-root `tools/` folder. A skill's
    /// own tools are found without declaration, and another skill's tools are
    /// never available: the import grants nothing.
    ///
    /// ## Example
    /// ```yaml
    /// # skills/card_replace/skill.md
    /// import_tools:
    ///   - lock_card   # defined in skills/card_replace/tools.py
    /// ```
    ///
    /// ## Fix
    /// Remove the entry if the tool is the skill's own; to share a tool
    /// between skills, move it to `tools/<file>.py` at the agent root and
    /// import it from each skill.
    pub static RULE = { code: "import_tools.local_tool", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for (skill, file, entry) in super::import_entries(model) {
        let name = entry.value.as_str();
        if name.starts_with("mcp/") || model.shared_tools.contains_key(name) {
            continue;
        }
        let Some((owner, def)) = super::local_owner(model, name) else {
            continue;
        };
        let module = model.module(def);
        let (msg, help) = if owner == skill.id {
            (
                format!("`{name}` is a tool of this skill; `import_tools` is only for shared tools"),
                "remove the entry: the skill's own tools are found automatically".to_string(),
            )
        } else {
            (
                format!("`{name}` is local to skill `{owner}` and cannot be imported"),
                format!("move `{name}` to a file under the agent-root `tools/` folder to share it, or remove the entry"),
            )
        };
        out.push(
            RULE.finding(msg)
                .at(file, entry.span, "not a shared tool")
                .label(module.file, model.def(def).name_span, format!("defined in {}", module.path))
                .help(help),
        );
    }
}
