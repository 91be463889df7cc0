use super::conditions::constraints;
use crate::diagnostic::Finding;
use crate::model::Model;
use crate::skill_md::{Spanned, ToolConstraint};
use crate::suggest::did_you_mean;

crate::declare_rule! {
    /// ## What it does
    /// Reports a response name in `tool_constraints` (`on_success`,
    /// `on_failure`, and, when the confirmation is enabled,
    /// `utter_for_confirmation` and `utter_on_user_denial`) that no
    /// `responses.yml` defines.
    ///
    /// ## Why it matters
    /// The runtime has nothing to say at that moment: the confirmation
    /// question or the outcome message is silently missing.
    ///
    /// ## Example
    /// ```yaml
    ///       on_success: utter_replacement_disclaimr
    /// ```
    ///
    /// ## Fix
    /// Correct the name, or add the response to `responses.yml`:
    /// ```yaml
    /// responses:
    ///   utter_replacement_disclaimer:
    ///     - text: Your new card will arrive within 5 business days.
    /// ```
    pub static RULE = { code: "tool_constraint.unknown_response", severity: Error };
}

/// The response names a constraint uses, with the field they are in.
pub(crate) fn names(c: &ToolConstraint) -> Vec<(&'static str, &Spanned<String>)> {
    let mut out = Vec::new();
    if let Some(conf) = c.confirmation.as_ref().filter(|c| c.enabled) {
        out.extend(
            conf.utter_for_confirmation
                .iter()
                .map(|n| ("requires_confirmation.utter_for_confirmation", n)),
        );
        out.extend(
            conf.utter_on_user_denial
                .iter()
                .map(|n| ("requires_confirmation.utter_on_user_denial", n)),
        );
    }
    out.extend(c.on_success.iter().map(|n| ("on_success", n)));
    out.extend(c.on_failure.iter().map(|n| ("on_failure", n)));
    out
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for (_, file, c) in constraints(model) {
        for (field, name) in names(c) {
            if model.responses.response(&name.value).is_some() {
                continue;
            }
            let f = RULE
                .finding(format!(
                    "`{field}` of `{}` names the response `{}`, which no responses.yml defines",
                    c.tool.value, name.value
                ))
                .at(file, name.span, "unknown response");
            let f = match did_you_mean(&name.value, model.responses.names()) {
                Some(s) => f.help(format!("did you mean `{s}`?")),
                None => f.help(format!(
                    "add `{}:` with a `- text: ...` variant under `responses:` in responses.yml",
                    name.value
                )),
            };
            out.push(f);
        }
    }
}
