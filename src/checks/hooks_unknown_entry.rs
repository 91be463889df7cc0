use super::hooks::{all_hooks, Hook, HookScope};
use crate::diagnostic::Finding;
use crate::model::{Model, HOOK_PREFIX};
use crate::suggest::did_you_mean;

crate::declare_rule! {
    /// ## What it does
    /// Reports a post-write hook `run_after_setting_<entry>` whose entry is
    /// not declared where the hook can serve it. A hook in a skill's
    /// `tools.py` / `tools/*.py` serves that skill's own fields; a hook in
    /// the agent-root `tools/` folder serves project fields (and fields of
    /// any skill).
    ///
    /// ## Why it matters
    /// The runtime calls `run_after_setting_<entry>` after a `set_fields`
    /// or `correct` write to exactly that entry. A hook for an entry that
    /// does not exist there (a typo, a renamed field, a project field
    /// handled inside one skill) never runs, and the validation it holds
    /// silently never happens.
    ///
    /// ## Example
    /// ```python
    /// # skills/card_replace/tools.py, no field `replacement_reasn`
    /// @tool(description="Check the reason")
    /// async def run_after_setting_replacement_reasn(context: ToolContext = None) -> ToolResult: ...
    /// ```
    ///
    /// ## Fix
    /// Name the hook after a declared entry (`run_after_setting_replacement_reason`),
    /// or move it next to the declaration: project-field hooks go in the
    /// agent-root `tools/` folder.
    pub static RULE = { code: "hooks.unknown_entry", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for hook in all_hooks(model) {
        if !hook.declarations(model).is_empty() {
            continue;
        }
        out.push(finding(model, &hook));
    }
}

fn finding(model: &Model, hook: &Hook<'_>) -> Finding {
    let entry = hook.entry;
    let name = &hook.def.name;
    let f = RULE.finding(match &hook.scope {
        HookScope::Skill(id) => {
            format!("hook `{name}` runs after writes to `{entry}`, but skill `{id}` declares no `{entry}`")
        }
        HookScope::Shared => format!(
            "hook `{name}` runs after writes to `{entry}`, but no memory.yml declares `{entry}`"
        ),
    });
    let mut f = f.at(hook.file, hook.def.name_span, "never runs");
    if entry.is_empty() {
        return f.help(format!(
            "name the hook `{HOOK_PREFIX}<entry>` after the field it validates"
        ));
    }
    if let HookScope::Skill(id) = &hook.scope {
        // Declared elsewhere: say where the hook belongs.
        if let Some(p) = model.memory.project_field(entry) {
            if let Some(file) = model.project_memory_file {
                f = f.label(file, p.span, "a project field");
            }
            return f.help(format!(
                "`{entry}` is a project field: move the hook to a module in the agent-root `tools/` folder, which serves every skill"
            ));
        }
        let owners: Vec<&str> = model
            .memory
            .skills
            .iter()
            .filter(|(_, m)| m.field(entry).is_some())
            .map(|(o, _)| o.as_str())
            .collect();
        if let Some(owner) = owners.first() {
            let field = model.skill_memory(owner).field(entry).expect("owner");
            f = f.label(field.file, field.span, format!("declared by skill `{owner}`"));
            return f.help(format!(
                "move the hook to skills/{owner}/tools.py, or declare `{entry}` in skills/{id}/memory.yml"
            ));
        }
        let mem = model.skill_memory(id);
        return match did_you_mean(entry, mem.names()) {
            Some(s) => f.help(format!("did you mean `{HOOK_PREFIX}{s}`?")),
            None => f.help(format!(
                "declare `{entry}` in skills/{id}/memory.yml with `llm_settable: true`, or rename or remove the hook"
            )),
        };
    }
    let candidates = model
        .memory
        .project
        .iter()
        .map(|p| p.name.as_str())
        .chain(model.memory.skills.values().flat_map(|m| m.names()));
    match did_you_mean(entry, candidates) {
        Some(s) => f.help(format!("did you mean `{HOOK_PREFIX}{s}`?")),
        None => f.help(format!(
            "declare `{entry}` in the project memory.yml with `llm_settable: true`, or rename or remove the hook"
        )),
    }
}
