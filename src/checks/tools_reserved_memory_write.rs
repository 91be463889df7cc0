use super::memory_writes::sites;
use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a `context.memory.set(...)` whose name is in the reserved
    /// `system.*` namespace.
    ///
    /// ## Why it matters
    /// `system.*` belongs to the engine; a write raises `MemoryWriteError`.
    ///
    /// ## Example
    /// ```python
    /// context.memory.set("system.language", "de")
    /// ```
    ///
    /// ## Fix
    /// Declare your own field (in the skill's or the project's memory.yml)
    /// and write that instead.
    pub static RULE = { code: "tools.reserved_memory_write", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for site in sites(model) {
        let Some(name) = site.name() else { continue };
        if name != "system" && !name.starts_with("system.") {
            continue;
        }
        out.push(
            site.finding(
                &RULE,
                format!("`{name}` is in the reserved `system` namespace"),
                "reserved for the engine",
            )
            .help("declare a field of your own in memory.yml and write it by its bare name"),
        );
    }
}
