use super::conditions::{is_response, sites, syntax_finding};
use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a `requires:` condition in `tool_constraints` that is not
    /// valid in the condition language, pointing at the exact character.
    ///
    /// ## Why it matters
    /// A condition that cannot be evaluated fails closed: the tool is hidden
    /// from the model for the whole conversation, with no error anywhere.
    ///
    /// ## Example
    /// ```yaml
    /// tool_constraints:
    ///   - lock_card:
    ///       requires: "session.project.selected_card_id = 'x'"
    /// ```
    ///
    /// ## Fix
    /// Use the condition language: memory as
    /// `session.<skill_id|project|system>.<entry>`, comparisons
    /// `== != < <= > >=`, `and` / `or` / `not`, parentheses, literals:
    /// `requires: "session.project.selected_card_id == 'x'"`.
    pub static RULE = { code: "tool_constraint.invalid_condition", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for site in sites(model).iter().filter(|s| !is_response(s)) {
        if let Err(e) = site.parse() {
            out.push(syntax_finding(&RULE, site, &e));
        }
    }
}
