use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a folder under `skills/` that has no `skill.md` file.
    ///
    /// ## Why it matters
    /// Every folder under `skills/` (except those starting with `_`) is a
    /// skill; without `skill.md` it fails to load, and the engine refuses
    /// the whole model.
    ///
    /// ## Example
    /// `skills/card_replace/` containing only `tools.py`.
    ///
    /// ## Fix
    /// Add `skills/card_replace/skill.md`, or rename the folder to start
    /// with `_` (e.g. `_drafts`) to keep it out of the catalog.
    pub static RULE = { code: "skill.missing_skill_md", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for skill in model.skills.iter().filter(|s| !s.skill_md_present) {
        out.push(
            RULE.finding(format!("skill folder `skills/{}/` has no skill.md", skill.id))
                .at_path(format!("skills/{}/", skill.id))
                .help(format!(
                    "create `skills/{}/skill.md` with a frontmatter `description`, or rename the folder to `_{}` to skip it",
                    skill.id, skill.id
                )),
        );
    }
}
