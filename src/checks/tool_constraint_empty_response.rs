use super::conditions::constraints;
use super::tool_constraint_unknown_response::names;
use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a response named in `tool_constraints` (`on_success`,
    /// `on_failure`, or an enabled confirmation's responses) that has a
    /// variant with an empty text.
    ///
    /// ## Why it matters
    /// When that variant is chosen, the user sees nothing at the moment the
    /// tool asked to be confirmed or just ran.
    ///
    /// ## Example
    /// ```yaml
    /// responses:
    ///   utter_replacement_failed:
    ///     - text: "  "
    /// ```
    ///
    /// ## Fix
    /// Write the text, or remove the empty variant.
    pub static RULE = { code: "tool_constraint.empty_response", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for (_, file, c) in constraints(model) {
        for (field, name) in names(c) {
            let Some(resp) = model.responses.response(&name.value) else {
                continue;
            };
            for v in resp.empty_bodies() {
                let which = if resp.variants.len() > 1 {
                    format!(" (variant {})", v.index + 1)
                } else {
                    String::new()
                };
                out.push(
                    RULE.finding(format!(
                        "`{field}` of `{}` names `{}`, whose text is empty{which}",
                        c.tool.value, name.value
                    ))
                    .at(file, name.span, "this response")
                    .label(resp.file, v.span, "empty text")
                    .help("write the text the user should see, or remove the empty variant"),
                );
            }
        }
    }
}
