crate::declare_rule! {
    /// ## What it does
    /// Warns about a placeholder in a response text or button
    /// (`{session.<namespace>.<entry>}` or a bare `{entry}`) that names memory
    /// declared in no memory.yml, memory that cannot be read from where the
    /// response is defined (another skill's private field), the engine's `system`
    /// namespace, or a `session.` reference without a second dot.
    ///
    /// ## Why it matters
    /// At run time such a placeholder is never filled: the user sees the braces
    /// verbatim, e.g. `Hello {session.project.frist_name}`.
    ///
    /// ## Example
    /// ```yaml
    /// responses:
    ///   utter_greet:
    ///     - text: "Hello {session.project.frist_name}!"
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// responses:
    ///   utter_greet:
    ///     - text: "Hello {session.project.first_name}!"
    /// # memory.yml
    /// first_name:
    ///   type: text
    /// ```
    pub static RULE = { code: "response.unknown_placeholder", severity: Warning };
}

use crate::diagnostic::Finding;
use crate::model::Model;
use crate::responses::{lookup_memory, node_placeholders, Buttons, Layer, MemoryLookup, Placeholder};
use crate::source::{FileId, Span};
use crate::suggest::did_you_mean;

/// The placeholder `utter_set_memory_button_skipped` gets from the engine.
const BUTTON_TITLE: &str = "button_title";

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for r in model.responses.all() {
        let text = &model.db.get(r.file).text;
        for v in &r.variants {
            let mut sites: Vec<(Span, &str)> = Vec::new();
            if let Some(span) = v.text_span {
                sites.push((span, &v.text));
            }
            if let Buttons::Static(buttons) = &v.buttons {
                for b in buttons {
                    sites.push((b.title.span, &b.title.value));
                    if let Some(p) = &b.payload {
                        sites.push((p.span, &p.value));
                    }
                }
            }
            for (span, value) in sites {
                for (p, at) in node_placeholders(text, span, value) {
                    if matches!(&p, Placeholder::Bare { name } if name == BUTTON_TITLE)
                        && r.name == "utter_set_memory_button_skipped"
                    {
                        continue;
                    }
                    let lookup = lookup_memory(model, &r.layer, &p);
                    if let Some(f) = finding(model, r.file, &r.layer, &p, at, lookup) {
                        out.push(f);
                    }
                }
            }
        }
    }
}

fn finding(
    model: &Model,
    file: FileId,
    layer: &Layer,
    p: &Placeholder,
    at: Span,
    lookup: MemoryLookup,
) -> Option<Finding> {
    let w = p.written();
    let (msg, label, help) = match lookup {
        MemoryLookup::Found => return None,
        MemoryLookup::NoDot => {
            let entry = match p {
                Placeholder::Session { reference } => reference.as_str(),
                Placeholder::Bare { name } => name.as_str(),
            };
            let help = if model.memory.project_field(entry).is_some() {
                format!("write `{{session.project.{entry}}}`")
            } else if let Some(s) = model.skills.iter().find(|s| model.skill_memory(&s.id).field(entry).is_some()) {
                format!("write `{{session.{}.{entry}}}`", s.id)
            } else {
                "write `{session.project.<entry>}` or `{session.<skill id>.<entry>}`".to_string()
            };
            (
                format!("placeholder `{w}` is not a memory reference (it needs a namespace)"),
                "needs `session.<namespace>.<entry>`",
                help,
            )
        }
        MemoryLookup::Reserved => (
            format!("placeholder `{w}` reads engine memory (`system`), which responses cannot read"),
            "not readable",
            "use a field of a skill memory.yml or of the project memory.yml".to_string(),
        ),
        MemoryLookup::NotReadable { owner } => {
            let from = match layer {
                Layer::Skill(s) => format!("from skill `{s}`"),
                Layer::Root => "from the agent-root responses.yml (it can be sent from any skill)".to_string(),
            };
            (
                format!("placeholder `{w}` reads a private field of skill `{owner}`, which is not readable {from}"),
                "private field",
                format!("move the field to `schema.public` in skills/{owner}/memory.yml, or move this response into skills/{owner}/responses.yml"),
            )
        }
        MemoryLookup::Undeclared { candidates } => {
            let wanted = match p {
                Placeholder::Session { reference } => reference.as_str(),
                Placeholder::Bare { name } => name.as_str(),
            };
            let help = match did_you_mean(wanted, candidates.iter().map(String::as_str)) {
                Some(s) => match p {
                    Placeholder::Session { .. } => format!("did you mean `{{session.{s}}}`?"),
                    Placeholder::Bare { .. } => format!("did you mean `{{{s}}}`?"),
                },
                None => match (p, layer) {
                    (Placeholder::Bare { .. }, Layer::Skill(s)) => format!(
                        "declare `{wanted}` in skills/{s}/memory.yml or in the project memory.yml; the text is sent with the braces otherwise"
                    ),
                    _ => "declare the field in a memory.yml (skill or project); the text is sent with the braces otherwise".to_string(),
                },
            };
            (
                format!("placeholder `{w}` names memory that is declared nowhere"),
                "not declared",
                help,
            )
        }
    };
    Some(RULE.finding(msg).at(file, at, label).help(help))
}
