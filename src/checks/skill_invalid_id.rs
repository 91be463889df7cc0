use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a skill folder whose name (the skill id) contains a `.`.
    ///
    /// ## Why it matters
    /// Skill ids are memory namespaces: `session.card.replace.reason` could
    /// not tell the skill from the entry.
    ///
    /// ## Example
    /// `skills/card.replace/skill.md`
    ///
    /// ## Fix
    /// Rename the folder, e.g. `skills/card_replace/`.
    pub static RULE = { code: "skill.invalid_id", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for skill in model.skills.iter().filter(|s| s.id.contains('.')) {
        out.push(super::at_skill(skill,
            RULE.finding(format!("skill id `{}` contains a `.`", skill.id)),
            "the folder name is the skill id",
        )
        .help(format!(
            "rename the folder to `skills/{}/`",
            skill.id.replace('.', "_")
        )));
    }
}
