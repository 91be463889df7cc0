use crate::diagnostic::Finding;
use crate::memory::{qualified_name, Name, SYSTEM_ENTRIES, SYSTEM_NAMESPACE};
use crate::model::Model;
use crate::suggest::did_you_mean;

crate::declare_rule! {
    /// ## What it does
    /// Reports an item of `access.deny_read` or `access.deny_write` that
    /// names no declared entry. A bare item (`card_id`) is resolved like a
    /// bare read: the skill's own field, else the project's. A qualified
    /// item (`project.card_id`, `<skill_id>.<entry>`, `system.<entry>`)
    /// must name a declared field of that namespace or a registered
    /// `system` entry.
    ///
    /// ## Why it matters
    /// A deny rule that matches nothing denies nothing: after a typo or a
    /// rename the skill silently gets the access the rule was written to
    /// take away.
    ///
    /// ## Example
    /// ```yaml
    /// access:
    ///   deny_write:
    ///     - project.authenticted
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// access:
    ///   deny_write:
    ///     - project.authenticated
    /// ```
    pub static RULE = { code: "memory.unknown_access_entry", severity: Error };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    let mem = &model.memory;
    // Every name a deny item could use, for suggestions.
    let mut all: Vec<String> = Vec::new();
    for (id, m) in &mem.skills {
        all.extend(m.names().map(|n| qualified_name(id, n)));
    }
    all.extend(mem.project.iter().map(|f| f.qualified_name()));
    all.extend(
        SYSTEM_ENTRIES
            .iter()
            .map(|e| qualified_name(SYSTEM_NAMESPACE, e)),
    );
    for (id, m) in &mem.skills {
        let Some(file) = m.file else { continue };
        let bare: Vec<&str> = mem.writable_names(id).collect();
        for (list, rules) in [("deny_read", &m.deny_read), ("deny_write", &m.deny_write)] {
            for rule in rules {
                if mem.rule_slot(id, &rule.value).is_some() {
                    continue;
                }
                let name = rule.value.as_str();
                let (message, label) = match mem.split(name) {
                    Name::Qualified { namespace, entry } => (
                        format!("`access.{list}` names `{name}`, but `{namespace}` declares no entry `{entry}`"),
                        "not declared",
                    ),
                    Name::Bare(b) if b.contains('.') => (
                        format!(
                            "`access.{list}` names `{name}`, but `{}` is not a skill id, `project` or `system`",
                            b.split_once('.').map_or(b, |(ns, _)| ns)
                        ),
                        "unknown namespace",
                    ),
                    Name::Bare(_) => (
                        format!("`access.{list}` names `{name}`, which is declared neither in skill `{id}` nor in the project"),
                        "not declared",
                    ),
                };
                let help = if let Some(rest) = name.strip_prefix("session.") {
                    format!("drop the `session.` prefix (that form is for conditions): `{rest}`")
                } else {
                    let candidates = all
                        .iter()
                        .map(String::as_str)
                        .chain(bare.iter().copied());
                    match did_you_mean(name, candidates) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!(
                            "remove `{name}` from `access.{list}`, or declare the entry it should deny"
                        ),
                    }
                };
                out.push(RULE.finding(message).at(file, rule.span, label).help(help));
            }
        }
    }
}
