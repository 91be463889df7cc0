use super::hooks::{all_hooks, HookScope};
use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a post-write hook `run_after_setting_<entry>` whose entry is
    /// declared but not `llm_settable: true` (for an agent-root hook: no
    /// declaration of that name is settable).
    ///
    /// ## Why it matters
    /// Hooks run only after the model writes the entry through
    /// `set_fields` or `correct`, and the model can write only settable
    /// fields. Writes from tool code never trigger hooks. The hook is dead
    /// code, and whatever it was meant to check is never checked.
    ///
    /// ## Example
    /// ```yaml
    /// # skills/card_replace/memory.yml
    /// schema:
    ///   private:
    ///     replacement_reason:
    ///       type: text
    /// ```
    /// with `run_after_setting_replacement_reason` in skills/card_replace/tools.py.
    ///
    /// ## Fix
    /// ```yaml
    ///     replacement_reason:
    ///       type: text
    ///       llm_settable: true
    ///       description: Why the card is replaced.
    /// ```
    /// or remove the hook and validate in the tool that writes the field.
    pub static RULE = { code: "hooks.not_settable", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for hook in all_hooks(model) {
        let decls = hook.declarations(model);
        if decls.is_empty() || decls.iter().any(|f| f.llm_settable) {
            continue;
        }
        let entry = hook.entry;
        let name = &hook.def.name;
        let mut f = RULE
            .finding(format!(
                "hook `{name}` never runs: `{entry}` is not `llm_settable`"
            ))
            .at(hook.file, hook.def.name_span, "never runs");
        for d in &decls {
            let label = match d.attr("llm_settable") {
                Some((k, _)) => {
                    f = f.label(d.file, k.span, "set to false here");
                    continue;
                }
                None => format!("`{}` is declared without `llm_settable: true`", d.qualified_name()),
            };
            f = f.label(d.file, d.span, label);
        }
        let first = decls[0];
        let file = match &hook.scope {
            HookScope::Skill(id) => format!("skills/{id}/memory.yml"),
            HookScope::Shared if first.namespace == crate::memory::PROJECT_NAMESPACE => {
                "the project memory.yml".to_string()
            }
            HookScope::Shared => format!("skills/{}/memory.yml", first.namespace),
        };
        out.push(f.help(format!(
            "add `llm_settable: true` and a `description` to `{entry}` in {file}, or remove the hook (writes from tools never trigger hooks)"
        )));
    }
}
