use super::memory_writes::sites;
use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Warns about a `context.memory.set(...)` whose name cannot be known
    /// without running the code (a variable, a function call, an f-string of
    /// run-time values).
    ///
    /// ## Why it matters
    /// maestro cannot prove the entry is declared, so an undeclared write
    /// would only surface as a `MemoryWriteError` in a live conversation.
    ///
    /// ## Example
    /// ```python
    /// context.memory.set(f"{kind}_id", value)
    /// ```
    ///
    /// ## Fix
    /// Write each entry with a literal name or a module-level constant:
    /// ```python
    /// CARD_ID = "card_id"
    /// context.memory.set(CARD_ID, value)
    /// ```
    pub static RULE = { code: "tools.dynamic_memory_write", severity: Warning };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for site in sites(model) {
        if site.name().is_some() {
            continue;
        }
        out.push(
            site.finding(
                &RULE,
                "the memory entry written here cannot be known statically".to_string(),
                "computed at run time",
            )
            .help("use a string literal or a module-level constant so the write can be checked against memory.yml"),
        );
    }
}
