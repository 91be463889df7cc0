//! Shared analysis for the checks on conditions: every `requires:` gate and
//! every response-variant `condition`, parsed with the condition grammar,
//! and the readability of each memory entry they reference.

use crate::condition::{self, Condition, ConditionError, MemoryRef};
use crate::diagnostic::{Finding, Rule};
use crate::memory::Read;
use crate::model::{Model, Skill};
use crate::responses::Layer;
use crate::skill_md::{Text, ToolConstraint};
use crate::source::FileId;
use crate::suggest::did_you_mean;

/// One condition in the project.
pub struct Site<'a> {
    /// The skill whose memory view applies (`None`: any skill may use it).
    pub owner: Option<&'a str>,
    pub file: FileId,
    pub text: Text,
    /// What it is, for messages: "`requires` of `lock_card`".
    pub what: String,
}

impl Site<'_> {
    pub fn parse(&self) -> Result<Condition, ConditionError> {
        condition::parse(&self.text.value)
    }
}

/// Every `tool_constraints` entry with its skill and skill.md.
pub fn constraints(model: &Model) -> impl Iterator<Item = (&Skill, FileId, &ToolConstraint)> {
    model.skills.iter().flat_map(|s| {
        let file = s.skill_md;
        s.doc
            .iter()
            .flat_map(|d| d.tool_constraints.iter())
            .filter_map(move |c| file.map(|f| (s, f, c)))
    })
}

/// Every condition site: gates, then response variants.
pub fn sites(model: &Model) -> Vec<Site<'_>> {
    let mut out: Vec<Site> = constraints(model)
        .filter_map(|(s, file, c)| {
            Some(Site {
                owner: Some(s.id.as_str()),
                file,
                text: c.requires.clone()?,
                what: format!("`requires` of `{}`", c.tool.value),
            })
        })
        .collect();
    for r in model.responses.all() {
        for v in &r.variants {
            let Some(cond) = &v.condition else { continue };
            let text = &model.db.get(r.file).text;
            out.push(Site {
                owner: match &r.layer {
                    Layer::Skill(id) => Some(id.as_str()),
                    Layer::Root => None,
                },
                file: r.file,
                text: Text {
                    exact: text.get(cond.inner.range()) == Some(cond.expr.as_str()),
                    value: cond.expr.clone(),
                    span: cond.span,
                    inner: cond.inner,
                },
                what: format!("the condition of `{}` (variant {})", r.name, v.index + 1),
            });
        }
    }
    out
}

/// Whether a site is a response variant (for choosing the rule).
pub fn is_response(site: &Site) -> bool {
    !site.what.starts_with("`requires`")
}

/// The syntax finding of a site.
pub fn syntax_finding(rule: &'static Rule, site: &Site, err: &ConditionError) -> Finding {
    let f = rule
        .finding(format!(
            "{} is not a valid condition: {}",
            site.what, err.message
        ))
        .at(site.file, site.text.map(err.span), "here");
    f.help(err.help.clone().unwrap_or_else(|| {
        "write memory as `session.<skill_id|project|system>.<entry>`, compare with == != < <= > >=, combine with and / or / not".into()
    }))
}

/// The readability finding of one reference, if it is not readable.
pub fn reference_finding(
    model: &Model,
    rule: &'static Rule,
    site: &Site,
    r: &MemoryRef,
) -> Option<Finding> {
    let read = model
        .memory
        .read_qualified(site.owner, &r.namespace, &r.entry);
    // A response of the agent root may be sent from any skill: only
    // existence can be checked.
    if site.owner.is_none() && matches!(read, Read::Private(_) | Read::Denied { .. }) {
        return None;
    }
    let span = site.text.map(r.span);
    let key = format!("{}.{}", r.namespace, r.entry);
    let suggest = |f: Finding| {
        let names = model.memory.readable_names(site.owner);
        match did_you_mean(&key, names.iter().map(String::as_str)) {
            Some(s) => f.help(format!("did you mean `session.{s}`?")),
            None => f.help(format!(
                "declare `{}` in {}, or correct the name",
                r.entry,
                if r.namespace == "project" {
                    "the project memory.yml".to_string()
                } else {
                    format!("skills/{}/memory.yml", r.namespace)
                }
            )),
        }
    };
    let f = match read {
        Read::Ok(_) => return None,
        Read::UnknownNamespace { namespace } => suggest(
            rule.finding(format!(
                "{} reads `session.{key}`, but `{namespace}` is no skill, `project` nor `system`",
                site.what
            ))
            .at(site.file, span, "unknown namespace"),
        ),
        Read::Undeclared { .. } => suggest(
            rule.finding(format!("{} reads `session.{key}`, which is not declared", site.what))
                .at(site.file, span, format!("no field `{}` in `{}`", r.entry, r.namespace)),
        ),
        Read::Private(field) => rule
            .finding(format!(
                "{} reads `session.{key}`, a private field of skill `{}`",
                site.what, r.namespace
            ))
            .at(site.file, span, "not readable from here")
            .label(field.file, field.span, "declared under `schema.private`")
            .help(format!(
                "move `{}` to `schema.public` in skills/{}/memory.yml, or read a field this skill can see",
                r.entry, r.namespace
            )),
        Read::Denied { rule: deny, .. } => {
            let owner = site.owner.unwrap_or_default();
            let mem = model.skill_memory(owner).file;
            let mut f = rule
                .finding(format!(
                    "{} reads `session.{key}`, which skill `{owner}` may not read",
                    site.what
                ))
                .at(site.file, span, "denied by `access.deny_read`");
            if let Some(mem) = mem {
                f = f.label(mem, deny.span, "listed in `access.deny_read`");
            }
            f.help(format!(
                "remove `{}` from `access.deny_read`, or do not read it here",
                deny.value
            ))
        }
    };
    Some(f)
}
