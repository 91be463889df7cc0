//! Shared analysis for the `hooks.*` checks: every post-write hook
//! (`run_after_setting_<entry>`, seeds "Post-write hooks", D5, D7) with the
//! declarations it serves.

use crate::memory::Field;
use crate::model::{Model, Scope, HOOK_PREFIX};
use crate::python::ToolDef;
use crate::source::FileId;

/// Where a hook is defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookScope {
    /// In a skill's own modules: serves that skill's fields.
    Skill(String),
    /// In the agent-root `tools/`: available to every skill (no
    /// `import_tools` needed), serves project fields and any skill's.
    Shared,
}

/// One hook definition.
pub struct Hook<'a> {
    pub def: &'a ToolDef,
    pub file: FileId,
    pub scope: HookScope,
    /// The entry after the prefix (may be empty).
    pub entry: &'a str,
}

impl Hook<'_> {
    /// The declarations the hook would run after: for a skill hook, the
    /// skill's own field; for a shared hook, the project field and every
    /// skill field of that name.
    pub fn declarations<'m>(&self, model: &'m Model) -> Vec<&'m Field> {
        if self.entry.is_empty() {
            return Vec::new();
        }
        match &self.scope {
            HookScope::Skill(id) => model
                .skill_memory(id)
                .field(self.entry)
                .into_iter()
                .collect(),
            HookScope::Shared => model
                .memory
                .project_field(self.entry)
                .into_iter()
                .chain(
                    model
                        .memory
                        .skills
                        .values()
                        .filter_map(|m| m.field(self.entry)),
                )
                .collect(),
        }
    }
}

/// Every hook definition of every module (shadowed ones included: each
/// definition is code someone wrote), in module order.
pub fn all_hooks(model: &Model) -> Vec<Hook<'_>> {
    let mut out = Vec::new();
    for m in &model.modules {
        let scope = match &m.scope {
            Scope::Skill(id) => HookScope::Skill(id.clone()),
            Scope::Shared => HookScope::Shared,
        };
        for t in &m.ast.tools {
            if let Some(entry) = t.name.strip_prefix(HOOK_PREFIX) {
                out.push(Hook {
                    def: t,
                    file: m.file,
                    scope: scope.clone(),
                    entry,
                });
            }
        }
    }
    out
}
