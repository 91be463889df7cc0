use crate::diagnostic::Finding;
use crate::model::{Model, Shadow};

crate::declare_rule! {
    /// ## What it does
    /// Warns when two tool definitions available to one skill share a name,
    /// so one of them is never used. Resolution order: the skill's
    /// `tools/*.py` (files in name order), then its `tools.py`, then the
    /// shared tools it imports. The first definition wins.
    ///
    /// ## Why it matters
    /// The hidden definition looks live in the code but never runs; edits to
    /// it have no effect.
    ///
    /// ## Example
    /// `skills/outage/tools/areas.py` and `skills/outage/tools.py` both
    /// define `lookup_area`.
    ///
    /// ## Fix
    /// Rename one of them, or delete the one that is hidden.
    pub static RULE = { code: "tools.shadowed", severity: Warning };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    let all = model
        .skills
        .iter()
        .flat_map(|s| s.shadowed.iter().map(move |sh| (Some(s), sh)))
        .chain(model.shared_shadowed.iter().map(|sh| (None, sh)));
    for (skill, sh) in all {
        out.push(finding(model, skill.map(|s| s.id.as_str()), sh));
    }
}

fn finding(model: &Model, skill: Option<&str>, sh: &Shadow) -> Finding {
    let used = model.module(sh.used);
    let hidden = model.module(sh.hidden);
    let hidden_what = if hidden.scope == crate::model::Scope::Shared && skill.is_some() {
        format!("the shared tool in {}", hidden.path)
    } else {
        format!("the one in {}", hidden.path)
    };
    let scope = skill.map_or(String::new(), |s| format!(" for skill `{s}`"));
    RULE.finding(format!(
        "`{}` in {} shadows {hidden_what}{scope}",
        sh.name, used.path
    ))
    .at(used.file, model.def(sh.used).name_span, "this definition is used")
    .label(hidden.file, model.def(sh.hidden).name_span, "this one is hidden")
    .help(format!(
        "rename one of them, or delete the one in {}",
        hidden.path
    ))
}
