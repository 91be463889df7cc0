//! Shared analysis for the `tools.*_memory_write` checks: every statically
//! found `context.memory.set(...)` with the skills it may run for.

use crate::diagnostic::Finding;
use crate::memory::WriteTarget;
use crate::model::{Model, PyModule, Scope, Skill};
use crate::python::{MemoryAccess, MemoryName};

/// One `memory.set` call site.
pub struct Site<'a> {
    pub module: &'a PyModule,
    pub access: &'a MemoryAccess,
    /// The skills the write can run for: the owning skill of a skill-local
    /// module, or the skills importing a tool of a shared module (empty
    /// when no skill imports one).
    pub owners: Vec<&'a Skill>,
}

pub fn sites(model: &Model) -> Vec<Site<'_>> {
    let mut out = Vec::new();
    for (mi, m) in model.modules.iter().enumerate() {
        let owners: Vec<&Skill> = match &m.scope {
            Scope::Skill(id) => model.skill(id).into_iter().collect(),
            Scope::Shared => model
                .skills
                .iter()
                .filter(|s| s.tools.iter().any(|t| t.shared && t.def.module == mi))
                .collect(),
        };
        for access in &m.ast.memory_writes {
            out.push(Site {
                module: m,
                access,
                owners: owners.clone(),
            });
        }
    }
    out
}

impl Site<'_> {
    pub fn name(&self) -> Option<&str> {
        match &self.access.name {
            MemoryName::Known { value, .. } => Some(value),
            MemoryName::Dynamic => None,
        }
    }

    /// The finding located at the name argument, with the constant the
    /// name came from labelled.
    pub fn finding(
        &self,
        rule: &'static crate::diagnostic::Rule,
        message: String,
        label: &str,
    ) -> Finding {
        let file = self.module.file;
        match &self.access.name {
            MemoryName::Known {
                value,
                via: Some((constant, span)),
            } => rule
                .finding(message)
                .at(
                    file,
                    self.access.arg_span,
                    format!("resolves to \"{value}\" ({constant}); {label}"),
                )
                .label(file, *span, format!("`{constant}` is defined here")),
            _ => rule.finding(message).at(file, self.access.arg_span, label),
        }
    }

    /// Resolve the write for each owner.
    pub fn targets<'m>(&self, model: &'m Model, name: &str) -> Vec<(&'m Skill, WriteTarget<'m>)>
    where
        Self: 'm,
    {
        self.owners
            .iter()
            .filter_map(|o| model.skill(&o.id))
            .map(|s| (s, model.memory.write_target(Some(&s.id), name)))
            .collect()
    }
}
