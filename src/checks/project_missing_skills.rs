use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Reports a project without a `skills/` folder, or whose `skills/`
    /// folder holds no skill.
    ///
    /// ## Why it matters
    /// An agent without skills can only route to nothing; the engine
    /// refuses to load such a project.
    ///
    /// ## Example
    /// A project root with `agent.yml` and `integrations.yml` only.
    ///
    /// ## Fix
    /// Create `skills/<id>/skill.md`, e.g. `skills/check_balance/skill.md`
    /// with a `description` in its frontmatter. `maestro init` scaffolds one.
    pub static RULE = { code: "project.missing_skills", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    if !model.has_skills_dir {
        out.push(
            RULE.finding("the project has no `skills/` folder")
                .at_path("skills/")
                .help("create `skills/<id>/skill.md` for each skill; the folder name is the skill id"),
        );
    } else if model.skills.is_empty() {
        out.push(
            RULE.finding("`skills/` contains no skill folder")
                .at_path("skills/")
                .help("add a folder `skills/<id>/` with a `skill.md`; folders starting with `_` are skipped"),
        );
    }
}
