use super::memory_writes::sites;
use crate::diagnostic::Finding;
use crate::memory::WriteTarget;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a `context.memory.set("<name>", ...)` whose target is listed
    /// in the skill's `access.deny_write`.
    ///
    /// ## Why it matters
    /// The write raises `MemoryWriteError` at run time: `deny_write` exists
    /// precisely to stop this skill from changing that entry.
    ///
    /// ## Example
    /// ```yaml
    /// # skills/card_replace/memory.yml
    /// access:
    ///   deny_write: [project.authenticated]
    /// ```
    /// ```python
    /// context.memory.set("authenticated", True)
    /// ```
    ///
    /// ## Fix
    /// Remove the write, or remove the entry from `deny_write` if the skill
    /// really owns that decision.
    pub static RULE = { code: "tools.denied_memory_write", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for site in sites(model) {
        let Some(name) = site.name() else { continue };
        for (skill, target) in site.targets(model, name) {
            let WriteTarget::Denied { rule, .. } = target else {
                continue;
            };
            let mem = skill.memory_file.expect("deny_write comes from a memory.yml");
            out.push(
                site.finding(
                    &RULE,
                    format!("`{name}` is written, but skill `{}` denies writing it", skill.id),
                    "write denied",
                )
                .label(mem, rule.span, "listed in `access.deny_write`")
                .help(format!(
                    "remove this write, or remove `{}` from `access.deny_write` in skills/{}/memory.yml",
                    rule.value, skill.id
                )),
            );
        }
    }
}
