//! The semantic model: one resolved view of the whole project.
//!
//! Built once from the parsed files ([`Model::build`]); every check reads
//! it, never the file system. Tool resolution follows decisions D5/D6:
//! per skill, `tools/*.py` (files in name order), then `tools.py`, then the
//! shared tools the skill lists in `import_tools`; the first definition of a
//! name wins and every later one is recorded as shadowed.

use crate::config::{AgentConfig, Integrations};
use crate::loader::{FileKind, LoadedProject};
use crate::memory::MemoryModel;
use crate::parse::{Parsed, ParsedFile};
use crate::python::{ToolDef, ToolModule};
use crate::responses::ResponseRegistry;
use crate::skill_md::SkillDoc;
use crate::source::{FileId, SourceDb};
use crate::yaml::Node;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Prefix of post-write hooks (`run_after_setting_<entry>`).
pub const HOOK_PREFIX: &str = "run_after_setting_";

/// Where a tool module lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// `skills/<id>/tools.py` or `skills/<id>/tools/*.py`.
    Skill(String),
    /// Agent-root `tools/*.py`.
    Shared,
}

/// One Python tool module.
#[derive(Debug, Clone)]
pub struct PyModule {
    pub file: FileId,
    pub path: String,
    pub scope: Scope,
    pub ast: ToolModule,
}

/// A tool definition: module index and tool index inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolRef {
    pub module: usize,
    pub index: usize,
}

/// A tool in a skill's resolved tool set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedTool {
    pub name: String,
    pub def: ToolRef,
    pub shared: bool,
}

/// A definition hidden by an earlier one in resolution order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shadow {
    pub name: String,
    pub used: ToolRef,
    pub hidden: ToolRef,
}

/// One skill folder.
#[derive(Debug, Clone)]
pub struct Skill {
    /// Folder name, verbatim.
    pub id: String,
    pub skill_md: Option<FileId>,
    /// `skill.md` exists, even if it could not be read as text.
    pub skill_md_present: bool,
    pub doc: Option<SkillDoc>,
    /// The skill's `memory.yml`; its declarations are in
    /// `Model::memory.skills[id]`.
    pub memory_file: Option<FileId>,
    /// Local tool modules in resolution order (`tools/*.py`, then `tools.py`).
    pub local_modules: Vec<usize>,
    /// The LLM tools of this skill after resolution (hooks excluded).
    pub tools: Vec<ResolvedTool>,
    /// Post-write hooks defined in the skill's own modules.
    pub hooks: Vec<ResolvedTool>,
    pub shadowed: Vec<Shadow>,
}

impl Skill {
    pub fn tool(&self, name: &str) -> Option<&ResolvedTool> {
        self.tools.iter().find(|t| t.name == name)
    }
    /// Names listed in `import_tools` (plain, non-MCP entries).
    pub fn imports(&self) -> impl Iterator<Item = &str> {
        self.doc
            .iter()
            .flat_map(|d| d.import_tools.iter())
            .map(|s| s.value.as_str())
            .filter(|s| !s.starts_with("mcp/"))
    }
}

/// The whole project, resolved.
#[derive(Debug)]
pub struct Model {
    pub root: PathBuf,
    pub db: SourceDb,
    pub has_skills_dir: bool,
    /// Skills in sorted folder order.
    pub skills: Vec<Skill>,
    /// Every tool module (skill-local and shared), in path order.
    pub modules: Vec<PyModule>,
    /// Shared tool definitions by name, in resolution order (first wins).
    pub shared_tools: BTreeMap<String, ToolRef>,
    /// Shared definitions hidden by an earlier shared file.
    pub shared_shadowed: Vec<Shadow>,
    pub memory: MemoryModel,
    pub project_memory_file: Option<FileId>,
    /// Dotted names of all Python modules in the project tree.
    pub python_modules: BTreeSet<String>,
    /// `mcp_servers[].name` from integrations.yml.
    pub mcp_servers: Vec<String>,
    /// Every responses.yml, merged: [`ResponseRegistry::response`].
    pub responses: ResponseRegistry,
    /// The typed agent.yml; `None` when the file is missing.
    pub agent: Option<AgentConfig>,
    /// The typed integrations.yml; `None` when the file is missing.
    pub integrations: Option<Integrations>,
    /// Number of files that were read.
    pub files_checked: usize,
}

impl Model {
    pub fn def(&self, r: ToolRef) -> &ToolDef {
        &self.modules[r.module].ast.tools[r.index]
    }
    pub fn module(&self, r: ToolRef) -> &PyModule {
        &self.modules[r.module]
    }
    pub fn skill(&self, id: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.id == id)
    }
    /// The declared memory of a skill (empty when it has no memory.yml).
    pub fn skill_memory(&self, id: &str) -> &crate::memory::SkillMemory {
        self.memory.skill_or_empty(id)
    }
    /// Build the model from the loaded and parsed project.
    pub fn build(loaded: LoadedProject, parsed: Vec<ParsedFile>) -> Model {
        let mut model = Model {
            root: loaded.root,
            files_checked: loaded.db.len(),
            db: loaded.db,
            has_skills_dir: loaded.has_skills_dir,
            skills: loaded
                .skills
                .iter()
                .map(|d| Skill {
                    id: d.id.clone(),
                    skill_md: d.skill_md,
                    skill_md_present: d.skill_md_present,
                    doc: None,
                    memory_file: None,
                    local_modules: Vec::new(),
                    tools: Vec::new(),
                    hooks: Vec::new(),
                    shadowed: Vec::new(),
                })
                .collect(),
            modules: Vec::new(),
            shared_tools: BTreeMap::new(),
            shared_shadowed: Vec::new(),
            memory: MemoryModel {
                project: Vec::new(),
                skills: loaded
                    .skills
                    .iter()
                    .map(|d| (d.id.clone(), Default::default()))
                    .collect(),
            },
            project_memory_file: None,
            python_modules: loaded.python_modules,
            mcp_servers: Vec::new(),
            responses: ResponseRegistry::default(),
            agent: None,
            integrations: None,
        };
        let mut response_files = Vec::new();
        let index: BTreeMap<String, usize> = model
            .skills
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.clone(), i))
            .collect();
        // Local modules: tools/*.py (sorted by path) come before tools.py.
        let mut tools_dir: Vec<(usize, usize)> = Vec::new();
        let mut tools_py: Vec<(usize, usize)> = Vec::new();
        for pf in parsed {
            let path = model.db.path(pf.file).to_string();
            match (pf.value, pf.kind) {
                (Parsed::Skill(doc), FileKind::SkillMd { skill }) => {
                    if let Some(&i) = index.get(&skill) {
                        model.skills[i].doc = Some(*doc);
                    }
                }
                (Parsed::SkillMemory(mem), FileKind::SkillMemory { skill }) => {
                    if let Some(&i) = index.get(&skill) {
                        model.skills[i].memory_file = Some(pf.file);
                        model.memory.skills.insert(skill, mem);
                    }
                }
                (Parsed::ProjectMemory(fields), _) => {
                    model.memory.project = fields;
                    model.project_memory_file = Some(pf.file);
                }
                (Parsed::Python(ast), kind) => {
                    let scope = match &kind {
                        FileKind::SkillToolsPy { skill } | FileKind::SkillToolsDir { skill } => {
                            Scope::Skill(skill.clone())
                        }
                        _ => Scope::Shared,
                    };
                    let m = model.modules.len();
                    model.modules.push(PyModule {
                        file: pf.file,
                        path,
                        scope,
                        ast: *ast,
                    });
                    match kind {
                        FileKind::SkillToolsPy { skill } => {
                            if let Some(&i) = index.get(&skill) {
                                tools_py.push((i, m));
                            }
                        }
                        FileKind::SkillToolsDir { skill } => {
                            if let Some(&i) = index.get(&skill) {
                                tools_dir.push((i, m));
                            }
                        }
                        _ => {}
                    }
                }
                (Parsed::Responses(r), _) => {
                    response_files.push(*r);
                }
                (Parsed::Agent(a), _) => {
                    model.agent = Some(*a);
                }
                (Parsed::Integrations(i), _) => {
                    for span in &i.secrets {
                        model.db.mask(pf.file, *span);
                    }
                    model.mcp_servers = mcp_server_names(i.node.as_ref());
                    model.integrations = Some(*i);
                }
                _ => {}
            }
        }
        model.responses = ResponseRegistry::build(response_files);
        for (i, m) in tools_dir.into_iter().chain(tools_py) {
            model.skills[i].local_modules.push(m);
        }
        model.resolve_shared();
        for i in 0..model.skills.len() {
            model.resolve_skill(i);
        }
        model
    }

    fn resolve_shared(&mut self) {
        let shared: Vec<usize> = (0..self.modules.len())
            .filter(|&m| self.modules[m].scope == Scope::Shared)
            .collect();
        let mut out = BTreeMap::new();
        let mut shadowed = Vec::new();
        for m in shared {
            for (name, r) in module_tools(&self.modules[m].ast, m) {
                if name.starts_with(HOOK_PREFIX) {
                    continue;
                }
                match out.get(&name) {
                    Some(&used) if used != r => shadowed.push(Shadow {
                        name,
                        used,
                        hidden: r,
                    }),
                    Some(_) => {}
                    None => {
                        out.insert(name, r);
                    }
                }
            }
        }
        self.shared_tools = out;
        self.shared_shadowed = shadowed;
    }

    fn resolve_skill(&mut self, i: usize) {
        let mut tools: Vec<ResolvedTool> = Vec::new();
        let mut hooks: Vec<ResolvedTool> = Vec::new();
        let mut shadowed = Vec::new();
        let add = |list: &mut Vec<ResolvedTool>,
                   shadowed: &mut Vec<Shadow>,
                   name: String,
                   r: ToolRef,
                   shared: bool| {
            match list.iter().find(|t| t.name == name) {
                Some(t) if t.def != r => shadowed.push(Shadow {
                    name,
                    used: t.def,
                    hidden: r,
                }),
                Some(_) => {}
                None => list.push(ResolvedTool {
                    name,
                    def: r,
                    shared,
                }),
            }
        };
        for &m in &self.skills[i].local_modules {
            for (name, r) in module_tools(&self.modules[m].ast, m) {
                if name.starts_with(HOOK_PREFIX) {
                    add(&mut hooks, &mut shadowed, name, r, false);
                } else {
                    add(&mut tools, &mut shadowed, name, r, false);
                }
            }
        }
        let imports: Vec<String> = self.skills[i].imports().map(str::to_string).collect();
        for name in imports {
            if let Some(&r) = self.shared_tools.get(&name) {
                add(&mut tools, &mut shadowed, name, r, true);
            }
        }
        let skill = &mut self.skills[i];
        skill.tools = tools;
        skill.hooks = hooks;
        skill.shadowed = shadowed;
    }
}

/// The tools of one module by name; a name defined twice in the module is
/// bound to its last definition, as Python does.
fn module_tools(ast: &ToolModule, m: usize) -> Vec<(String, ToolRef)> {
    let mut out: Vec<(String, ToolRef)> = Vec::new();
    for (index, t) in ast.tools.iter().enumerate() {
        let r = ToolRef { module: m, index };
        match out.iter_mut().find(|(n, _)| *n == t.name) {
            Some(slot) => slot.1 = r,
            None => out.push((t.name.clone(), r)),
        }
    }
    out
}

fn mcp_server_names(root: Option<&Node>) -> Vec<String> {
    root.and_then(|r| r.get("mcp_servers"))
        .and_then(Node::as_seq)
        .map(|servers| {
            servers
                .iter()
                .filter_map(|s| s.get("name").and_then(Node::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
