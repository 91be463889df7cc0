use super::conditions::{is_response, reference_finding, sites};
use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a memory entry read by a `requires:` condition that does not
    /// exist, or that the skill may not read: another skill's private field,
    /// or an entry in the skill's `access.deny_read`.
    ///
    /// ## Why it matters
    /// An unreadable entry reads as null, so the gate never opens (or a
    /// negated gate never closes), and the tool silently stays hidden.
    ///
    /// ## Example
    /// ```yaml
    /// requires: "session.project.authenticted"
    /// ```
    ///
    /// ## Fix
    /// Correct the name (`session.project.authenticated`), declare the
    /// entry, or make the other skill's field public.
    pub static RULE = { code: "tool_constraint.unknown_memory_key", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for site in sites(model).iter().filter(|s| !is_response(s)) {
        let Ok(cond) = site.parse() else { continue };
        for r in cond.references() {
            out.extend(reference_finding(model, &RULE, site, r));
        }
    }
}
