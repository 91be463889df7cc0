//! The parse stage: every loaded file is parsed on its own, in parallel,
//! into a value plus findings. Nothing here fails as a whole.

use crate::checks;
use crate::config::{self, AgentConfig, Integrations};
use crate::diagnostic::Finding;
use crate::loader::{FileKind, LoadedProject};
use crate::memory::{self, Field, SkillMemory};
use crate::python::{self, ToolModule};
use crate::responses::{self, Layer, ResponseFile};
use crate::skill_md::{self, SkillDoc};
use crate::source::FileId;
use crate::yaml::{self, IssueKind, Node, Value};
use rayon::prelude::*;

/// What one file parsed into.
#[derive(Debug, Clone)]
pub enum Parsed {
    Skill(Box<SkillDoc>),
    SkillMemory(SkillMemory),
    ProjectMemory(Vec<Field>),
    Python(Box<ToolModule>),
    /// `responses.yml` (agent root or skill).
    Responses(Box<ResponseFile>),
    /// `agent.yml`.
    Agent(Box<AgentConfig>),
    /// `integrations.yml`.
    Integrations(Box<Integrations>),
    /// Files that are only packaged (references).
    Unparsed,
}

/// One parsed file.
#[derive(Debug, Clone)]
pub struct ParsedFile {
    pub file: FileId,
    pub kind: FileKind,
    pub value: Parsed,
}

/// Parse every loaded file, in parallel. Returns the parsed files in path
/// order and the findings of all of them.
pub fn parse_all(project: &LoadedProject) -> (Vec<ParsedFile>, Vec<Finding>) {
    let results: Vec<(ParsedFile, Vec<Finding>)> = project
        .files
        .par_iter()
        .map(|(id, kind)| {
            let text = &project.db.get(*id).text;
            let (value, findings) = parse_one(*id, kind, text);
            (
                ParsedFile {
                    file: *id,
                    kind: kind.clone(),
                    value,
                },
                findings,
            )
        })
        .collect();
    let mut files = Vec::with_capacity(results.len());
    let mut findings = Vec::new();
    for (f, mut fs) in results {
        files.push(f);
        findings.append(&mut fs);
    }
    (files, findings)
}

fn parse_one(id: FileId, kind: &FileKind, text: &str) -> (Parsed, Vec<Finding>) {
    match kind {
        FileKind::SkillMd { .. } => {
            let (doc, f) = skill_md::parse(id, text);
            (Parsed::Skill(Box::new(doc)), f)
        }
        FileKind::SkillMemory { skill } => {
            let (m, f) = memory::parse_skill(id, skill, text);
            (Parsed::SkillMemory(m), f)
        }
        FileKind::ProjectMemory => {
            let (m, f) = memory::parse_project(id, text);
            (Parsed::ProjectMemory(m), f)
        }
        FileKind::SkillToolsPy { .. } | FileKind::SkillToolsDir { .. } | FileKind::SharedTool => {
            (Parsed::Python(Box::new(python::analyze(text))), Vec::new())
        }
        FileKind::AgentYml
        | FileKind::IntegrationsYml
        | FileKind::ProjectResponses
        | FileKind::SkillResponses { .. } => {
            let parsed = yaml::parse(text);
            let mut findings: Vec<Finding> =
                parsed.issues.iter().map(|i| yaml_issue(id, i, 0)).collect();
            let (value, mut more) = match kind {
                FileKind::AgentYml => {
                    let truncated = parsed.issues.iter().any(|i| i.kind == IssueKind::Syntax);
                    let (c, f) = config::parse_agent(id, text, parsed.root, truncated);
                    (Parsed::Agent(Box::new(c)), f)
                }
                FileKind::IntegrationsYml => {
                    let (c, f) = config::parse_integrations(id, text, parsed.root);
                    (Parsed::Integrations(Box::new(c)), f)
                }
                FileKind::SkillResponses { skill } => {
                    let (r, f) =
                        responses::parse_file(id, Layer::Skill(skill.clone()), text, parsed.root);
                    (Parsed::Responses(Box::new(r)), f)
                }
                _ => {
                    let (r, f) = responses::parse_file(id, Layer::Root, text, parsed.root);
                    (Parsed::Responses(Box::new(r)), f)
                }
            };
            findings.append(&mut more);
            (value, findings)
        }
        FileKind::Reference { .. } => (Parsed::Unparsed, Vec::new()),
    }
}

/// Turn a YAML reader issue into a finding; `offset` maps spans of an
/// embedded YAML text (frontmatter) into the whole file.
pub fn yaml_issue(file: FileId, issue: &yaml::Issue, offset: usize) -> Finding {
    let rule = match issue.kind {
        IssueKind::Syntax => &checks::yaml_syntax::RULE,
        IssueKind::AmbiguousScalar => &checks::yaml_ambiguous_scalar::RULE,
        IssueKind::DuplicateKey => &checks::yaml_duplicate_key::RULE,
        IssueKind::AliasLimit => &checks::yaml_alias_limit::RULE,
        IssueKind::MultipleDocuments => &checks::yaml_multiple_documents::RULE,
        IssueKind::UnsupportedTag => &checks::yaml_unsupported_tag::RULE,
    };
    let label = match issue.kind {
        IssueKind::Syntax => "here",
        IssueKind::AmbiguousScalar => "read differently by YAML 1.1 and 1.2",
        IssueKind::DuplicateKey => "this one wins",
        IssueKind::AliasLimit => "expansion stops here",
        IssueKind::MultipleDocuments => "this document is ignored",
        IssueKind::UnsupportedTag => "unsupported tag",
    };
    let mut f = rule
        .finding(issue.message.clone())
        .at(file, issue.span.shifted(offset), label);
    if let Some(related) = issue.related {
        f = f.label(file, related.shifted(offset), "first defined here");
    }
    if let Some(help) = &issue.help {
        f = f.help(help.clone());
    }
    f
}

/// Shift every span of a YAML tree by `offset` bytes.
pub fn shift_node(node: &mut Node, offset: usize) {
    node.span = node.span.shifted(offset);
    match &mut node.value {
        Value::Seq(items) => items.iter_mut().for_each(|n| shift_node(n, offset)),
        Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
            shift_node(k, offset);
            shift_node(v, offset);
        }),
        _ => {}
    }
}
