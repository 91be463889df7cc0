use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a skill whose frontmatter has no `description`, or an empty
    /// one.
    ///
    /// ## Why it matters
    /// The orchestrator routes on descriptions: a skill without one cannot
    /// be chosen. Hidden skills need one too (it is still validated and used
    /// for prompts).
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// name: Card Replace
    /// ---
    /// ```
    ///
    /// ## Fix
    /// ```markdown
    /// ---
    /// name: Card Replace
    /// description: Replace a credit card -- lost, stolen, damaged, or not received
    /// ---
    /// ```
    pub static RULE = { code: "skill.missing_description", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for skill in &model.skills {
        let (Some(doc), Some(file)) = (&skill.doc, skill.skill_md) else {
            continue;
        };
        if doc.malformed {
            // The frontmatter could not be read; that is reported already.
            continue;
        }
        let hidden_note = if doc.hidden {
            " (hidden skills need one too)"
        } else {
            ""
        };
        let finding = match &doc.description {
            Some(d) if !d.value.trim().is_empty() => continue,
            Some(d) => RULE
                .finding(format!("skill `{}` has an empty description{hidden_note}", skill.id))
                .at(file, d.span, "empty"),
            None => RULE
                .finding(format!("skill `{}` has no description{hidden_note}", skill.id))
                .at(file, doc.header_span, "frontmatter without `description`"),
        };
        out.push(finding.help(
            "add `description: <what the skill does and when to use it>`; the orchestrator routes on it",
        ));
    }
}
