use super::memory_writes::sites;
use crate::diagnostic::Finding;
use crate::memory::WriteTarget;
use crate::model::{Model, Scope};
use crate::suggest::did_you_mean;

crate::declare_rule! {
    /// ## What it does
    /// Reports a `context.memory.set("<name>", ...)` in a tool module whose
    /// name is declared neither in the skill's `memory.yml` nor in the
    /// project `memory.yml`. The name is followed through module-level
    /// constants, f-strings and concatenations, aliases of `context.memory`
    /// and helper functions that receive `context`.
    ///
    /// ## Why it matters
    /// Every key a tool writes must be declared: at run time the write raises
    /// `MemoryWriteError` and the tool fails. This is the most common
    /// authoring mistake.
    ///
    /// ## Example
    /// ```python
    /// context.memory.set("current_balance", balance)
    /// ```
    /// with no `current_balance` in any memory.yml.
    ///
    /// ## Fix
    /// Declare it in `skills/<id>/memory.yml`:
    /// ```yaml
    /// schema:
    ///   private:
    ///     current_balance:
    ///       type: float
    /// ```
    /// or in the project `memory.yml` if other skills need it.
    pub static RULE = { code: "tools.undeclared_memory_write", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for site in sites(model) {
        let Some(name) = site.name() else { continue };
        if name.contains('.') || name == "system" {
            continue; // reserved / qualified writes have their own checks
        }
        let targets = site.targets(model, name);
        let undeclared: Vec<&str> = if targets.is_empty() {
            // A shared module no skill imports: declared anywhere is enough.
            let anywhere = model.memory.project_field(name).is_some()
                || model.memory.skills.values().any(|m| m.field(name).is_some());
            if anywhere {
                continue;
            }
            Vec::new()
        } else {
            targets
                .iter()
                .filter(|(_, t)| *t == WriteTarget::Undeclared)
                .map(|(s, _)| s.id.as_str())
                .collect()
        };
        if !targets.is_empty() && undeclared.is_empty() {
            continue;
        }
        let message = match (&site.module.scope, undeclared.as_slice()) {
            (Scope::Shared, owners) if !owners.is_empty() && owners.len() < targets.len() => format!(
                "`{name}` is written by a shared tool but not declared for skill{} {}",
                if owners.len() > 1 { "s" } else { "" },
                owners.iter().map(|o| format!("`{o}`")).collect::<Vec<_>>().join(", ")
            ),
            _ => format!("`{name}` is written but declared in no memory.yml"),
        };
        let mut f = site.finding(&RULE, message, "not declared");
        let candidates: Vec<&str> = match site.owners.first() {
            Some(s) => model.memory.writable_names(&s.id).collect(),
            None => model.memory.project.iter().map(|f| f.name.as_str()).collect(),
        };
        let help = match did_you_mean(name, candidates) {
            Some(s) => format!("did you mean `{s}`?"),
            None => match (&site.module.scope, undeclared.first()) {
                (Scope::Skill(id), _) => format!(
                    "declare it under `schema.private` in skills/{id}/memory.yml, or in the project memory.yml if other skills need it"
                ),
                (Scope::Shared, Some(id)) => format!(
                    "declare it under `schema.private` in skills/{id}/memory.yml, or in the project memory.yml if other skills need it"
                ),
                _ => "declare it in the project memory.yml".to_string(),
            },
        };
        f = f.help(help);
        out.push(f);
    }
}
