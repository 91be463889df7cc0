//! `maestro train`: check the project and, when no error is found, write
//! the packaged model.
//!
//! The stages: load (with the files the package carries) and check; the
//! import probe (D11); the fingerprint of all inputs, compared with the
//! newest archive in the output folder (nothing is written when it is
//! unchanged, unless forced); the knowledge index; the manifest built from
//! the semantic model; the reproducible archive.

use crate::archive;
use crate::checks;
use crate::diagnostic::{sort_findings, Counts, Finding};
use crate::knowledge::{self, ChunkingConfig, Document};
use crate::manifest::{self, Manifest};
use crate::model::{Model, Scope, HOOK_PREFIX};
use crate::probe::{self, ProbeOutcome};
use crate::python::Description;
use crate::source::Span;
use crate::CheckOutcome;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How to train.
#[derive(Debug, Clone)]
pub struct TrainOptions {
    /// Output folder (default: `<project>/models`).
    pub out_dir: Option<PathBuf>,
    /// Archive name without `.tar.gz` (default: a UTC timestamp).
    pub fixed_name: Option<String>,
    /// Rebuild even when nothing changed.
    pub force: bool,
    /// Run the import probe in Python.
    pub import_check: bool,
    /// The Python interpreter for the probe.
    pub python: String,
    /// Time limit of the import probe.
    pub probe_timeout: Duration,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            out_dir: None,
            fixed_name: None,
            force: false,
            import_check: true,
            python: "python3".into(),
            probe_timeout: Duration::from_secs(60),
        }
    }
}

/// The stages, reported to a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Check,
    ImportProbe,
    Index,
    Write,
}

impl Phase {
    pub fn label(self) -> &'static str {
        match self {
            Phase::Check => "checking the project",
            Phase::ImportProbe => "importing tool modules",
            Phase::Index => "indexing knowledge",
            Phase::Write => "writing the model",
        }
    }
}

/// What train did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// A new archive was written.
    Written { path: PathBuf, bytes: usize },
    /// The newest archive already holds these inputs.
    Unchanged { path: PathBuf },
    /// The project has errors; nothing was written.
    Blocked,
}

/// The result of a training run.
#[derive(Debug)]
pub struct TrainReport {
    pub check: CheckOutcome,
    pub status: Status,
    pub fingerprint: String,
}

/// A failure that is not a finding (exit code 2).
#[derive(Debug)]
pub struct TrainError(pub String);

impl std::fmt::Display for TrainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Train the project at `root`.
pub fn train(
    root: &Path,
    opts: &TrainOptions,
    on_phase: &mut dyn FnMut(Phase),
) -> Result<TrainReport, TrainError> {
    let start = Instant::now();
    on_phase(Phase::Check);
    let mut loaded =
        crate::loader::load_for_package(root).map_err(|e| TrainError(e.to_string()))?;
    let package_files = std::mem::take(&mut loaded.package_files);
    let mut check = crate::check_loaded(loaded, start);

    if opts.import_check {
        on_phase(Phase::ImportProbe);
        let found = import_probe(&check, root, opts);
        check.findings.extend(found);
        sort_findings(&mut check.findings, &check.model.db);
    }
    let fingerprint = fingerprint(&check.model, &package_files);
    if Counts::of(&check.findings).errors > 0 {
        return Ok(TrainReport {
            check,
            status: Status::Blocked,
            fingerprint,
        });
    }

    let out_dir = opts.out_dir.clone().unwrap_or_else(|| root.join("models"));
    if !opts.force {
        if let Some(newest) = newest_archive(&out_dir) {
            if archive_fingerprint(&newest).as_deref() == Some(fingerprint.as_str()) {
                return Ok(TrainReport {
                    check,
                    status: Status::Unchanged { path: newest },
                    fingerprint,
                });
            }
        }
    }

    on_phase(Phase::Index);
    let chunking = chunking(&check.model);
    let docs: Vec<Document> = package_files
        .iter()
        .filter_map(|(path, bytes)| {
            let scope = knowledge::reference_scope(path)?;
            let text = std::str::from_utf8(bytes).ok()?;
            Some(Document { path, scope, text })
        })
        .collect();
    let index = (!docs.is_empty()).then(|| knowledge::build(&docs, chunking));

    on_phase(Phase::Write);
    let manifest = build_manifest(&check.model, &fingerprint, chunking, index.as_ref());
    let mut entries: Vec<(String, Vec<u8>)> = package_files;
    entries.push((
        manifest::MANIFEST_PATH.into(),
        (serde_json::to_string_pretty(&manifest).expect("manifest serializes") + "\n").into_bytes(),
    ));
    if let Some(index) = &index {
        entries.push((
            manifest::KNOWLEDGE_PATH.into(),
            index.to_json().into_bytes(),
        ));
    }
    let bytes = archive::write(entries);
    let name = opts.fixed_name.clone().unwrap_or_else(timestamp_name);
    let path = out_dir.join(format!("{name}.tar.gz"));
    write_atomically(&out_dir, &path, &bytes)
        .map_err(|e| TrainError(format!("cannot write {}: {e}", path.display())))?;
    Ok(TrainReport {
        check,
        status: Status::Written {
            path,
            bytes: bytes.len(),
        },
        fingerprint,
    })
}

/// Import every tool module that checked clean of import problems, and turn
/// each failure into a `tools.import_failed` finding.
fn import_probe(check: &CheckOutcome, root: &Path, opts: &TrainOptions) -> Vec<Finding> {
    let model = &check.model;
    let broken: Vec<&str> = check
        .findings
        .iter()
        .filter(|f| f.code == checks::tools_import_failed::RULE.code)
        .filter_map(|f| f.file_path(&model.db))
        .collect();
    let modules: Vec<String> = model
        .modules
        .iter()
        .map(|m| m.path.clone())
        .filter(|p| !broken.contains(&p.as_str()))
        .collect();
    match probe::probe(&opts.python, root, &modules, opts.probe_timeout) {
        ProbeOutcome::Skipped(why) => vec![checks::train_import_probe_skipped::RULE
            .finding(format!("the import probe was skipped: {why}"))
            .at_path(".")
            .help("install Python 3 or pass `--python PATH`; `--no-import-check` skips the probe on purpose")],
        ProbeOutcome::Ran(results) => results
            .into_iter()
            .filter_map(|r| {
                let error = r.error?;
                let m = model.modules.iter().find(|m| m.path == r.path)?;
                let text = &model.db.get(m.file).text;
                let span = r
                    .line
                    .and_then(|l| line_span(text, l as usize))
                    .unwrap_or(Span::new(0, text.find('\n').unwrap_or(text.len())));
                let owner = match &m.scope {
                    Scope::Skill(id) => format!("none of the tools of skill `{id}` can be loaded"),
                    Scope::Shared => "none of the shared tools can be loaded".into(),
                };
                Some(
                    checks::tools_import_failed::RULE
                        .finding(format!("{} cannot be imported: {error}", m.path))
                        .at(m.file, span, "raised while importing")
                        .help(format!(
                            "fix the module so that `python3` can import it with the project root on sys.path ({owner})"
                        )),
                )
            })
            .collect(),
    }
}

fn line_span(text: &str, line: usize) -> Option<Span> {
    let start = text
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum::<usize>();
    let rest = text.get(start..)?;
    let len = rest.find('\n').unwrap_or(rest.len());
    let trimmed = rest[..len].trim_start();
    Some(Span::new(start + (len - trimmed.len()), start + len))
}

/// SHA-256 over the format version, maestro's version and every input file
/// (path and content), in path order.
pub fn fingerprint(model: &Model, package_files: &[(String, Vec<u8>)]) -> String {
    let mut inputs: Vec<(&str, &[u8])> = model
        .db
        .iter()
        .map(|(_, f)| (f.path.as_str(), f.text.as_bytes()))
        .chain(
            package_files
                .iter()
                .map(|(p, b)| (p.as_str(), b.as_slice())),
        )
        .collect();
    inputs.sort();
    inputs.dedup_by(|a, b| a.0 == b.0);
    let mut h = Sha256::new();
    h.update(format!(
        "maestro {} format {}\n",
        env!("CARGO_PKG_VERSION"),
        manifest::FORMAT_VERSION
    ));
    for (path, bytes) in inputs {
        h.update((path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The newest `*.tar.gz` in `dir` (by modification time, then name).
pub fn newest_archive(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tar.gz"))
        .filter_map(|e| {
            let modified = e.metadata().ok()?.modified().ok()?;
            Some((modified, e.file_name(), e.path()))
        })
        .max()
        .map(|(_, _, p)| p)
}

/// The fingerprint stored in an archive's manifest, if it is readable.
fn archive_fingerprint(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let files = archive::read(&bytes).ok()?;
    let manifest: serde_json::Value =
        serde_json::from_slice(files.get(manifest::MANIFEST_PATH)?).ok()?;
    manifest["fingerprint"].as_str().map(str::to_string)
}

fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".maestro-{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// `YYYYMMDD-HHMMSS` in UTC.
fn timestamp_name() -> String {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn field(f: &crate::memory::Field) -> manifest::Field {
    manifest::Field {
        name: f.name.clone(),
        visibility: match f.visibility {
            crate::memory::Visibility::Public => "public",
            crate::memory::Visibility::Private => "private",
            crate::memory::Visibility::Project => "project",
        }
        .to_string(),
        type_name: f.type_name.clone(),
        description: f.description.clone(),
        llm_settable: f.llm_settable,
        immutable: f.immutable,
        initial_value: f.initial_value.as_ref().map(|v| v.to_json()),
    }
}

fn memory(model: &Model) -> manifest::Memory {
    manifest::Memory {
        project: model.memory.project.iter().map(field).collect(),
        skills: model
            .memory
            .skills
            .iter()
            .map(|(id, m)| {
                (
                    id.clone(),
                    manifest::SkillMemory {
                        fields: m.fields.iter().map(field).collect(),
                        deny_read: m.deny_read.iter().map(|d| d.value.clone()).collect(),
                        deny_write: m.deny_write.iter().map(|d| d.value.clone()).collect(),
                    },
                )
            })
            .collect(),
    }
}

/// The chunking settings of agent.yml (`knowledge`), or the defaults.
pub fn chunking(model: &Model) -> ChunkingConfig {
    let default = ChunkingConfig::default();
    let Some(k) = model.agent.as_ref().map(|a| &a.knowledge) else {
        return default;
    };
    let size = usize::try_from(k.chunk_size).ok().filter(|&n| n > 0);
    let overlap = usize::try_from(k.chunk_overlap).ok();
    ChunkingConfig {
        chunk_size: size.unwrap_or(default.chunk_size),
        chunk_overlap: overlap.unwrap_or(default.chunk_overlap),
    }
    .normalized()
}

fn agent(model: &Model, chunking: ChunkingConfig) -> manifest::Agent {
    let a = model.agent.as_ref();
    let text = |v: Option<&crate::skill_md::Spanned<String>>| v.map(|s| s.value.clone());
    manifest::Agent {
        name: a.and_then(|a| text(a.name.as_ref())),
        persona: a.and_then(|a| text(a.persona.as_ref())),
        model_group: a.and_then(|a| text(a.orchestrator.model_group.as_ref())),
        tool_timeout_secs: a.and_then(|a| a.tool_timeout).unwrap_or(10.0),
        chunking,
        rules: a.map_or_else(Vec::new, |a| {
            a.rules.iter().map(|r| r.value.clone()).collect()
        }),
        builtin_tools: a.map_or_else(Vec::new, |a| {
            a.orchestrator
                .tool_constraints
                .iter()
                .map(|t| manifest::BuiltinTool {
                    tool: t.tool.value.clone(),
                    enabled: t.enabled,
                    invoke_when: t.invoke_when.clone(),
                    confirmation: t.confirmation.as_ref().map(|c| manifest::Confirmation {
                        utter_for_confirmation: text(c.utter_for_confirmation.as_ref()),
                        utter_on_user_denial: text(c.utter_on_user_denial.as_ref()),
                    }),
                })
                .collect()
        }),
    }
}

fn model_groups(model: &Model) -> Vec<manifest::ModelGroup> {
    let Some(i) = model.integrations.as_ref() else {
        return Vec::new();
    };
    i.model_groups
        .iter()
        .map(|g| manifest::ModelGroup {
            id: g.id.value.clone(),
            models: g
                .models
                .iter()
                .map(|m| manifest::ModelConfig {
                    provider: m.provider.clone(),
                    model: m
                        .model
                        .clone()
                        .or_else(|| m.deployment.clone())
                        .unwrap_or_default(),
                    api_key: m.api_key.clone(),
                    api_base: m.api_base.clone(),
                    timeout_secs: m.timeout,
                })
                .collect(),
        })
        .collect()
}

fn responses(model: &Model) -> std::collections::BTreeMap<String, manifest::Response> {
    model
        .responses
        .names()
        .filter_map(|name| {
            let r = model.responses.response(name)?;
            Some((
                name.to_string(),
                manifest::Response {
                    source: model.db.path(r.file).to_string(),
                    variants: r
                        .variants
                        .iter()
                        .map(|v| manifest::Variant {
                            text: v.text.clone(),
                            condition: v
                                .condition
                                .as_ref()
                                .map(|c| manifest::Gate::compile(&c.expr)),
                            buttons: match &v.buttons {
                                crate::responses::Buttons::Static(b) => b
                                    .iter()
                                    .map(|b| manifest::Button {
                                        title: b.title.value.clone(),
                                        payload: b.payload.as_ref().map(|p| p.value.clone()),
                                    })
                                    .collect(),
                                _ => Vec::new(),
                            },
                        })
                        .collect(),
                },
            ))
        })
        .collect()
}

/// Compile the manifest from the semantic model.
pub fn build_manifest(
    model: &Model,
    fingerprint: &str,
    chunking: ChunkingConfig,
    index: Option<&knowledge::KnowledgeIndex>,
) -> Manifest {
    let hook = |r: crate::model::ToolRef| {
        let def = model.def(r);
        manifest::Hook {
            entry: def.name.trim_start_matches(HOOK_PREFIX).to_string(),
            module: model.module(r).path.clone(),
            function: def.name.clone(),
        }
    };
    let skills = model
        .skills
        .iter()
        .filter_map(|s| {
            let doc = s.doc.as_ref()?;
            let tools = s
                .tools
                .iter()
                .map(|t| {
                    let def = model.def(t.def);
                    let constraint = doc
                        .tool_constraints
                        .iter()
                        .rev()
                        .find(|c| c.tool.value == t.name);
                    let confirmation = constraint
                        .and_then(|c| c.confirmation.as_ref())
                        .filter(|c| c.enabled)
                        .map(|c| manifest::Confirmation {
                            utter_for_confirmation: c
                                .utter_for_confirmation
                                .as_ref()
                                .map(|s| s.value.clone()),
                            utter_on_user_denial: c
                                .utter_on_user_denial
                                .as_ref()
                                .map(|s| s.value.clone()),
                        });
                    manifest::Tool {
                        name: t.name.clone(),
                        module: model.module(t.def).path.clone(),
                        function: def.name.clone(),
                        description: match &def.description {
                            Description::Literal { value, .. } if !value.trim().is_empty() => {
                                value.clone()
                            }
                            _ => t.name.clone(),
                        },
                        parameters: crate::python::tool_schema(def),
                        shared: t.shared,
                        gate: constraint
                            .and_then(|c| c.requires.as_ref())
                            .map(|r| manifest::Gate::compile(&r.value)),
                        confirmation,
                        on_success: constraint
                            .and_then(|c| c.on_success.as_ref())
                            .map(|s| s.value.clone()),
                        on_failure: constraint
                            .and_then(|c| c.on_failure.as_ref())
                            .map(|s| s.value.clone()),
                    }
                })
                .collect();
            Some(manifest::Skill {
                id: s.id.clone(),
                name: doc.name.as_ref().map(|n| n.value.clone()),
                description: doc
                    .description
                    .as_ref()
                    .map(|d| d.value.clone())
                    .unwrap_or_default(),
                instructions: doc.body.clone(),
                hidden: doc.hidden,
                disabled: doc.disabled,
                always_include_in_prompt: doc.always_include_in_prompt,
                import_tools: doc.import_tools.iter().map(|i| i.value.clone()).collect(),
                tools,
                hooks: s.hooks.iter().map(|h| hook(h.def)).collect(),
            })
        })
        .collect();
    let shared_hooks = model
        .modules
        .iter()
        .enumerate()
        .filter(|(_, m)| m.scope == Scope::Shared)
        .flat_map(|(mi, m)| {
            m.ast
                .tools
                .iter()
                .enumerate()
                .filter(|(_, t)| t.name.starts_with(HOOK_PREFIX))
                .map(move |(index, _)| crate::model::ToolRef { module: mi, index })
        })
        .map(hook)
        .collect();
    Manifest {
        format_version: manifest::FORMAT_VERSION,
        maestro_version: env!("CARGO_PKG_VERSION").to_string(),
        fingerprint: fingerprint.to_string(),
        agent: agent(model, chunking),
        model_groups: model_groups(model),
        skills,
        memory: memory(model),
        shared_hooks,
        responses: responses(model),
        knowledge: index.map(|i| manifest::Knowledge {
            path: manifest::KNOWLEDGE_PATH.into(),
            stats: i.stats(),
        }),
    }
}
