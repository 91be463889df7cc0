use super::conditions::{is_response, reference_finding, sites};
use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a memory entry read by a response variant's `condition` that
    /// does not exist or, for a skill's own `responses.yml`, that the skill
    /// may not read.
    ///
    /// ## Why it matters
    /// An unreadable entry reads as null, so the variant's condition is
    /// decided by a value that is never there.
    ///
    /// ## Example
    /// ```yaml
    ///     - text: Welcome back!
    ///       condition: "session.project.loged_in"
    /// ```
    ///
    /// ## Fix
    /// Correct the name, or declare the entry in memory.yml.
    pub static RULE = { code: "response.unknown_memory_key", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for site in sites(model).iter().filter(|s| is_response(s)) {
        let Ok(cond) = site.parse() else { continue };
        for r in cond.references() {
            out.extend(reference_finding(model, &RULE, site, r));
        }
    }
}
