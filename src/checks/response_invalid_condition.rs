use super::conditions::{is_response, sites, syntax_finding};
use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a response variant whose `condition` is not valid in the
    /// condition language, pointing at the exact character.
    ///
    /// ## Why it matters
    /// A condition that cannot be evaluated is false: the variant is never
    /// chosen.
    ///
    /// ## Example
    /// ```yaml
    /// responses:
    ///   utter_greet:
    ///     - text: Welcome back!
    ///       condition: "session.project.logged_in && True"
    /// ```
    ///
    /// ## Fix
    /// `condition: "session.project.logged_in and True"`
    pub static RULE = { code: "response.invalid_condition", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for site in sites(model).iter().filter(|s| is_response(s)) {
        if let Err(e) = site.parse() {
            out.push(syntax_finding(&RULE, site, &e));
        }
    }
}
