crate::declare_rule! {
    /// ## What it does
    /// Reports a response whose every variant has a `condition`, so no variant is
    /// used when none of the conditions holds. `condition: ""` counts as a
    /// condition here.
    ///
    /// ## Why it matters
    /// When no condition is true the engine finds no variant and sends the
    /// response *name* (`utter_...`) to the user as text.
    ///
    /// ## Example
    /// ```yaml
    /// responses:
    ///   utter_eta:
    ///     - text: Tomorrow.
    ///       condition: 'session.parcel.service == "express"'
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// responses:
    ///   utter_eta:
    ///     - text: Within 3 working days.
    ///     - text: Tomorrow.
    ///       condition: 'session.parcel.service == "express"'
    /// ```
    pub static RULE = { code: "response.default_required", severity: Error };
}

use crate::diagnostic::Finding;
use crate::model::Model;

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for r in model.responses.all() {
        if r.variants.iter().any(|v| v.is_default()) {
            continue;
        }
        let mut f = RULE
            .finding(format!(
                "every variant of response `{}` has a `condition`: nothing is sent when none holds",
                r.name
            ))
            .at(r.file, r.name_span, "no variant without `condition`");
        for v in &r.variants {
            if let Some(c) = &v.condition {
                f = f.label(r.file, c.span, format!("condition of variant {}", v.index + 1));
            }
        }
        out.push(f.help(
            "add a variant without `condition` (the fallback), e.g. `- text: \"...\"`; the engine would otherwise send the response name as text",
        ));
    }
}
