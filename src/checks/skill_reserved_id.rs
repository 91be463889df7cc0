use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a skill whose folder is named `project` or `system`.
    ///
    /// ## Why it matters
    /// `project` and `system` are reserved memory namespaces
    /// (`session.project.*`, `session.system.*`); a skill with such an id
    /// would collide with them.
    ///
    /// ## Example
    /// `skills/project/skill.md`
    ///
    /// ## Fix
    /// Rename the folder (ids are case-sensitive: `Project` is allowed, but a
    /// descriptive verb-first name such as `manage_project` is better).
    pub static RULE = { code: "skill.reserved_id", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for skill in model
        .skills
        .iter()
        .filter(|s| s.id == "project" || s.id == "system")
    {
        out.push(super::at_skill(skill,
            RULE.finding(format!(
                "skill id `{}` is a reserved memory namespace",
                skill.id
            )),
            "the folder name is the skill id",
        )
        .help(format!(
            "rename the folder, e.g. `skills/manage_{}/`",
            skill.id
        )));
    }
}
