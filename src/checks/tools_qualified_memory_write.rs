use super::memory_writes::sites;
use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a `context.memory.set(...)` with a qualified name such as
    /// `project.card_id` or `other_skill.card_id`, or with a `session.`
    /// prefix.
    ///
    /// ## Why it matters
    /// `set` takes bare names only: the active skill's fields first, then the
    /// project's. Cross-skill writes are not allowed, and the `session.`
    /// form is for conditions. The write raises `MemoryWriteError`.
    ///
    /// ## Example
    /// ```python
    /// context.memory.set("project.selected_card_id", card.id)
    /// ```
    ///
    /// ## Fix
    /// ```python
    /// context.memory.set("selected_card_id", card.id)
    /// ```
    pub static RULE = { code: "tools.qualified_memory_write", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for site in sites(model) {
        let Some(name) = site.name() else { continue };
        let Some((ns, entry)) = name.split_once('.') else {
            continue;
        };
        if ns == "system" {
            continue;
        }
        let bare = entry.rsplit('.').next().unwrap_or(entry);
        let own = site.owners.iter().any(|s| s.id == ns);
        let message = if ns == "project" || own {
            format!("`{name}` is a qualified name; `memory.set` takes bare names")
        } else if ns == "session" {
            format!("`{name}` uses the `session.` form of conditions; `memory.set` takes bare names")
        } else {
            format!("`{name}` writes another skill's memory; tools may write only their own skill's and project fields")
        };
        out.push(
            site.finding(&RULE, message, "qualified name")
                .help(format!("write the bare name: `context.memory.set(\"{bare}\", ...)`")),
        );
    }
}
