crate::declare_rule! {
    /// ## What it does
    /// Reports a response variant whose text is missing, empty or only
    /// whitespace. Variants that only carry buttons need a text too.
    ///
    /// ## Why it matters
    /// Training refuses it, and at run time an empty message would be sent (or
    /// skipped) where the author expected words.
    ///
    /// ## Example
    /// ```yaml
    /// responses:
    ///   utter_pick_slot:
    ///     - buttons:
    ///         - title: "Morning"
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// responses:
    ///   utter_pick_slot:
    ///     - text: Which time suits you?
    ///       buttons:
    ///         - title: "Morning"
    /// ```
    pub static RULE = { code: "response.empty_body", severity: Error };
}

use crate::diagnostic::Finding;
use crate::model::Model;

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for r in model.responses.all() {
        let several = r.variants.len() > 1;
        for v in r.empty_bodies() {
            let which = if several {
                format!("variant {} of response `{}`", v.index + 1, r.name)
            } else {
                format!("response `{}`", r.name)
            };
            let f = match v.text_span {
                Some(span) => RULE
                    .finding(format!("{which} has an empty text"))
                    .at(r.file, span, "empty text"),
                None => RULE
                    .finding(format!("{which} has no `text`"))
                    .at(r.file, first_line(model, r.file, v.span), "no `text` in this variant"),
            };
            out.push(f.help(
                "write what the bot says, e.g. `text: \"Which time suits you?\"`; variants with buttons need a text too",
            ));
        }
    }
}

/// The first line of a span (a variant mapping can be long).
fn first_line(model: &Model, file: crate::source::FileId, span: crate::source::Span) -> crate::source::Span {
    let text = &model.db.get(file).text;
    let src = text.get(span.range()).unwrap_or("");
    let end = src.find('\n').map_or(span.end, |i| span.start + i);
    crate::source::Span::new(span.start, end)
}
