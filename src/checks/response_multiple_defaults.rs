crate::declare_rule! {
    /// ## What it does
    /// Reports a response that has conditioned variants and two or more variants
    /// without a `condition`.
    ///
    /// ## Why it matters
    /// Only the first unconditioned variant is ever used as the fallback; the
    /// others are dead text. (Several unconditioned variants with no conditioned
    /// one are allowed: the first is always used.)
    ///
    /// ## Example
    /// ```yaml
    /// responses:
    ///   utter_eta:
    ///     - text: Within 3 working days.
    ///     - text: Soon.
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
    pub static RULE = { code: "response.multiple_defaults", severity: Error };
}

use crate::diagnostic::Finding;
use crate::model::Model;

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for r in model.responses.all() {
        if r.variants.iter().all(|v| v.is_default()) {
            continue;
        }
        let defaults: Vec<_> = r.variants.iter().filter(|v| v.is_default()).collect();
        let Some((first, rest)) = defaults.split_first() else {
            continue;
        };
        for v in rest {
            out.push(
                RULE.finding(format!(
                    "response `{}` has more than one variant without `condition`; variant {} is never used",
                    r.name,
                    v.index + 1
                ))
                .at(r.file, v.text_span.unwrap_or(v.span), "never used")
                .label(
                    r.file,
                    first.text_span.unwrap_or(first.span),
                    "this fallback is always used",
                )
                .help("keep exactly one variant without `condition`, or give this one a `condition`"),
            );
        }
    }
}
