use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Warns when `tool_constraints` lists the same tool twice.
    ///
    /// ## Why it matters
    /// Only the last entry counts; the gate, confirmation and responses of
    /// the earlier one are silently dropped.
    ///
    /// ## Example
    /// ```yaml
    /// tool_constraints:
    ///   - lock_card:
    ///       requires: "session.project.selected_card_id"
    ///   - lock_card:
    ///       requires_confirmation: {enabled: true}
    /// ```
    ///
    /// ## Fix
    /// Merge the two entries into one.
    pub static RULE = { code: "tool_constraint.duplicate", severity: Warning };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for skill in &model.skills {
        let (Some(doc), Some(file)) = (&skill.doc, skill.skill_md) else {
            continue;
        };
        let list = &doc.tool_constraints;
        for (i, c) in list.iter().enumerate() {
            if let Some(first) = list[..i].iter().find(|o| o.tool.value == c.tool.value) {
                out.push(
                    RULE.finding(format!(
                        "`{}` is constrained twice; only this entry counts",
                        c.tool.value
                    ))
                    .at(file, c.tool.span, "this entry wins")
                    .label(file, first.tool.span, "this one is ignored")
                    .help("merge both entries into one"),
                );
            }
        }
    }
}
