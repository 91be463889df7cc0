//! Loading: the only file I/O of `check`.
//!
//! [`load`] walks the project tree as the skill format lays it out, reads
//! every file the later stages need into a [`SourceDb`] and classifies it
//! with a [`FileKind`]. Files it cannot use (binary, not UTF-8, too large,
//! unreadable, symlink loops) become findings; the load itself never fails
//! unless the root folder cannot be read at all.

use crate::checks::{
    files_binary, files_not_utf8, files_symlink_loop, files_too_large, files_unreadable,
};
use crate::diagnostic::Finding;
use crate::source::{FileId, SourceDb, SourceFile, Span};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Files larger than this are not read.
pub const MAX_FILE_SIZE: u64 = 8 * 1024 * 1024;

/// Folder names never descended into.
const IGNORED_DIRS: &[&str] = &[
    ".git",
    "__pycache__",
    "models",
    ".venv",
    "venv",
    "node_modules",
    ".rasa",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
];

/// What a loaded file is, by its place in the project tree.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileKind {
    AgentYml,
    IntegrationsYml,
    ProjectMemory,
    ProjectResponses,
    /// `skills/<id>/skill.md`
    SkillMd {
        skill: String,
    },
    /// `skills/<id>/memory.yml`
    SkillMemory {
        skill: String,
    },
    /// `skills/<id>/responses.yml`
    SkillResponses {
        skill: String,
    },
    /// `skills/<id>/tools.py`
    SkillToolsPy {
        skill: String,
    },
    /// `skills/<id>/tools/<name>.py`
    SkillToolsDir {
        skill: String,
    },
    /// `tools/<name>.py` at the agent root
    SharedTool,
    /// `references/**/*.md` (skill = None) or `skills/<id>/references/**/*.md`
    Reference {
        skill: Option<String>,
    },
}

/// One folder under `skills/` that is treated as a skill.
#[derive(Debug, Clone)]
pub struct SkillDir {
    /// The folder name, verbatim: the skill id.
    pub id: String,
    /// `skills/<id>/skill.md` when it is a regular file.
    pub skill_md: Option<FileId>,
    /// Whether `skills/<id>/skill.md` exists as a file, even when it could
    /// not be decoded.
    pub skill_md_present: bool,
}

/// Everything `check` knows about the files of a project.
#[derive(Debug, Default)]
pub struct LoadedProject {
    pub root: PathBuf,
    pub db: SourceDb,
    /// Every loaded file with its kind, sorted by path.
    pub files: Vec<(FileId, FileKind)>,
    /// Skill folders in sorted order (`_`-prefixed folders excluded).
    pub skills: Vec<SkillDir>,
    /// Whether `skills/` exists as a folder.
    pub has_skills_dir: bool,
    /// Dotted names of every Python module and package in the project
    /// (`lib.wallet_data`, `lib`, `skills.x.tools.helpers`, ...).
    pub python_modules: BTreeSet<String>,
    /// Problems found while loading.
    pub findings: Vec<Finding>,
    /// The files a packaged model carries ([`is_packaged`]), as bytes, in
    /// path order; only filled by [`load_for_package`].
    pub package_files: Vec<(String, Vec<u8>)>,
}

impl LoadedProject {
    pub fn files_of<'a>(
        &'a self,
        pred: impl Fn(&FileKind) -> bool + 'a,
    ) -> impl Iterator<Item = (FileId, &'a FileKind)> + 'a {
        self.files
            .iter()
            .filter(move |(_, k)| pred(k))
            .map(|(id, k)| (*id, k))
    }
}

/// A failure to load the project at all (exit code 2).
#[derive(Debug)]
pub struct LoadError(pub String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Load the project rooted at `root`.
pub fn load(root: &Path) -> Result<LoadedProject, LoadError> {
    load_with(root, false)
}

/// Load the project and also read every file a packaged model carries
/// (`train`).
pub fn load_for_package(root: &Path) -> Result<LoadedProject, LoadError> {
    load_with(root, true)
}

/// Whether the file at `rel` (relative, `/`-separated) goes into the
/// packaged model: Python sources of skills, shared tools and `lib/`, other
/// files under `lib/`, and reference documents. Hidden files and folders
/// (`.env`, `.git`), caches, compiled files and files that usually hold
/// secrets are never packaged.
pub fn is_packaged(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let name = parts.last().copied().unwrap_or("");
    let secret = name.ends_with(".pem")
        || name.ends_with(".key")
        || name.ends_with(".p12")
        || name.starts_with("id_rsa")
        || name.starts_with("credentials")
        || name.starts_with("secrets");
    if secret
        || name.ends_with(".pyc")
        || parts
            .iter()
            .any(|p| p.starts_with('.') || IGNORED_DIRS.contains(p))
    {
        return false;
    }
    match parts.as_slice() {
        ["lib", ..] => true,
        ["tools", .., _] => name.ends_with(".py"),
        ["references", .., _] => name.ends_with(".md"),
        ["skills", id, "references", .., _] => !id.starts_with('_') && name.ends_with(".md"),
        ["skills", id, _, ..] => !id.starts_with('_') && name.ends_with(".py"),
        _ => false,
    }
}

fn load_with(root: &Path, package: bool) -> Result<LoadedProject, LoadError> {
    let meta = std::fs::metadata(root).map_err(|e| {
        LoadError(format!(
            "cannot read project folder {}: {e}",
            root.display()
        ))
    })?;
    if !meta.is_dir() {
        return Err(LoadError(format!("{} is not a folder", root.display())));
    }
    let mut walk = Walk {
        root: root.to_path_buf(),
        wanted: Vec::new(),
        findings: Vec::new(),
        python_modules: BTreeSet::new(),
        skills: Vec::new(),
        has_skills_dir: false,
        all_files: Vec::new(),
    };
    walk.collect();
    let package_files = if package {
        read_package_files(root, &walk.all_files, &mut walk.findings)
    } else {
        Vec::new()
    };

    // Read and decode in parallel, then register in path order.
    walk.wanted.sort();
    walk.wanted.dedup();
    let read: Vec<(String, FileKind, Result<String, Decode>)> = walk
        .wanted
        .par_iter()
        .map(|(rel, kind)| {
            let text = read_text(&root.join(rel), rel);
            (rel.clone(), kind.clone(), text)
        })
        .collect();

    let mut project = LoadedProject {
        root: root.to_path_buf(),
        has_skills_dir: walk.has_skills_dir,
        python_modules: walk.python_modules,
        findings: walk.findings,
        package_files,
        ..Default::default()
    };
    for (rel, kind, text) in read {
        match text {
            Ok(text) => {
                let id = project.db.add(SourceFile::new(rel, text));
                project.files.push((id, kind));
            }
            Err(Decode::Finding(f)) => project.findings.push(*f),
            Err(Decode::Lossy(text, f)) => {
                let id = project.db.add(SourceFile::new(rel, text));
                project.findings.push(f.in_file(id));
            }
        }
    }
    for (dir, skill_md_present) in walk.skills {
        let md = format!("skills/{dir}/skill.md");
        let skill_md = project.db.find(&md).filter(|id| {
            project
                .files
                .iter()
                .any(|(f, k)| f == id && matches!(k, FileKind::SkillMd { .. }))
        });
        project.skills.push(SkillDir {
            id: dir,
            skill_md,
            skill_md_present,
        });
    }
    Ok(project)
}

struct Walk {
    root: PathBuf,
    wanted: Vec<(String, FileKind)>,
    findings: Vec<Finding>,
    python_modules: BTreeSet<String>,
    skills: Vec<(String, bool)>,
    has_skills_dir: bool,
    /// Every file under the root (ignored folders excluded), sorted.
    all_files: Vec<String>,
}

impl Walk {
    fn collect(&mut self) {
        for (name, kind) in [
            ("agent.yml", FileKind::AgentYml),
            ("integrations.yml", FileKind::IntegrationsYml),
            ("memory.yml", FileKind::ProjectMemory),
            ("responses.yml", FileKind::ProjectResponses),
        ] {
            if self.is_file(name) {
                self.wanted.push((name.to_string(), kind));
            }
        }
        for rel in self.list_files("tools", false) {
            if is_tool_module(&rel) {
                self.wanted.push((rel, FileKind::SharedTool));
            }
        }
        for rel in self.list_files("references", true) {
            if rel.ends_with(".md") {
                self.wanted.push((rel, FileKind::Reference { skill: None }));
            }
        }
        self.skills();
        self.python_modules();
    }

    fn skills(&mut self) {
        let dir = self.root.join("skills");
        match std::fs::symlink_metadata(&dir) {
            Ok(_) if dir.is_dir() => self.has_skills_dir = true,
            _ => return,
        }
        let mut children = match std::fs::read_dir(&dir) {
            Ok(rd) => rd.filter_map(|e| e.ok()).collect::<Vec<_>>(),
            Err(e) => {
                self.findings.push(
                    files_unreadable::RULE
                        .finding(format!("cannot read the folder `skills/`: {e}"))
                        .at_path("skills/"),
                );
                return;
            }
        };
        children.sort_by_key(|e| e.file_name());
        for child in children {
            let Some(name) = child.file_name().to_str().map(str::to_string) else {
                self.findings.push(
                    files_not_utf8::RULE
                        .finding(format!(
                            "the skill folder name {:?} is not valid UTF-8",
                            child.file_name()
                        ))
                        .at_path("skills/")
                        .help("rename the folder using UTF-8 characters"),
                );
                continue;
            };
            if name.starts_with('_') || !child.path().is_dir() {
                continue;
            }
            let base = format!("skills/{name}");
            let md = format!("{base}/skill.md");
            let present = self.is_file(&md);
            if present {
                self.wanted.push((
                    md,
                    FileKind::SkillMd {
                        skill: name.clone(),
                    },
                ));
            }
            for (file, kind) in [
                (
                    "memory.yml",
                    FileKind::SkillMemory {
                        skill: name.clone(),
                    },
                ),
                (
                    "responses.yml",
                    FileKind::SkillResponses {
                        skill: name.clone(),
                    },
                ),
                (
                    "tools.py",
                    FileKind::SkillToolsPy {
                        skill: name.clone(),
                    },
                ),
            ] {
                let rel = format!("{base}/{file}");
                if self.is_file(&rel) {
                    self.wanted.push((rel, kind));
                }
            }
            for rel in self.list_files(&format!("{base}/tools"), false) {
                if is_tool_module(&rel) {
                    self.wanted.push((
                        rel,
                        FileKind::SkillToolsDir {
                            skill: name.clone(),
                        },
                    ));
                }
            }
            for rel in self.list_files(&format!("{base}/references"), true) {
                if rel.ends_with(".md") {
                    self.wanted.push((
                        rel,
                        FileKind::Reference {
                            skill: Some(name.clone()),
                        },
                    ));
                }
            }
            self.skills.push((name, present));
        }
    }

    /// Record the dotted names of every Python module under the root (for
    /// resolving project-local imports). Only names are recorded; `lib/` is
    /// not read.
    fn python_modules(&mut self) {
        self.all_files = self.list_files("", true);
        for rel in &self.all_files {
            let Some(stem) = rel.strip_suffix(".py") else {
                continue;
            };
            let parts: Vec<&str> = stem.split('/').collect();
            // Every parent folder is an importable (namespace) package.
            for i in 1..parts.len() {
                self.python_modules.insert(parts[..i].join("."));
            }
            if parts.last() == Some(&"__init__") {
                continue;
            }
            self.python_modules.insert(parts.join("."));
        }
    }

    fn is_file(&self, rel: &str) -> bool {
        self.root.join(rel).is_file()
    }

    /// Files under `rel` (relative paths, `/`-separated, sorted). One level
    /// unless `recursive`. Walk errors become findings.
    fn list_files(&mut self, rel: &str, recursive: bool) -> Vec<String> {
        let dir = if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        };
        if !dir.is_dir() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let walker = walkdir::WalkDir::new(&dir)
            .follow_links(true)
            .max_depth(if recursive { 32 } else { 1 })
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0
                    || !(e.file_type().is_dir()
                        && e.file_name()
                            .to_str()
                            .is_some_and(|n| IGNORED_DIRS.contains(&n)))
            });
        for entry in walker {
            match entry {
                Ok(e) if e.file_type().is_file() => {
                    if let Some(r) = self.relative(e.path()) {
                        out.push(r);
                    }
                }
                Ok(_) => {}
                Err(err) => {
                    let path = err
                        .path()
                        .and_then(|p| self.relative(p))
                        .unwrap_or_else(|| rel.to_string());
                    let finding = if err.loop_ancestor().is_some() {
                        files_symlink_loop::RULE
                            .finding(format!(
                                "`{path}` is a symbolic link that loops back to a parent folder"
                            ))
                            .at_path(path)
                            .help("remove the link or point it outside the project tree")
                    } else {
                        let why = err
                            .io_error()
                            .map_or_else(|| err.to_string(), |e| e.to_string());
                        let broken = err.path().is_some_and(|p| p.is_symlink() && !p.exists());
                        let why = if broken {
                            "it is a symbolic link to a file that does not exist".to_string()
                        } else {
                            why
                        };
                        files_unreadable::RULE
                            .finding(format!("cannot read `{path}`: {why}"))
                            .at_path(path)
                            .help("check the file's permissions")
                    };
                    self.findings.push(finding);
                }
            }
        }
        out
    }

    fn relative(&self, p: &Path) -> Option<String> {
        let rel = p.strip_prefix(&self.root).ok()?;
        let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
        Some(parts?.join("/"))
    }
}

/// Read the packaged files as bytes, in parallel; unreadable or too large
/// files become findings (a model must never silently miss a file).
fn read_package_files(
    root: &Path,
    all: &[String],
    findings: &mut Vec<Finding>,
) -> Vec<(String, Vec<u8>)> {
    let read: Vec<(String, Result<Vec<u8>, Finding>)> = all
        .par_iter()
        .filter(|rel| is_packaged(rel))
        .map(|rel| {
            let path = root.join(rel);
            let result = match std::fs::metadata(&path) {
                Ok(m) if m.len() > MAX_FILE_SIZE => Err(files_too_large::RULE
                    .finding(format!(
                        "`{rel}` is {} bytes, over the limit of {} MiB, and cannot be packaged",
                        m.len(),
                        MAX_FILE_SIZE / 1024 / 1024
                    ))
                    .at_path(rel.clone())
                    .help("move large data out of the project tree")),
                _ => std::fs::read(&path).map_err(|e| {
                    files_unreadable::RULE
                        .finding(format!("cannot read `{rel}`: {e}"))
                        .at_path(rel.clone())
                        .help("check the file's permissions")
                }),
            };
            (rel.clone(), result)
        })
        .collect();
    let mut out = Vec::with_capacity(read.len());
    for (rel, r) in read {
        match r {
            Ok(bytes) => out.push((rel, bytes)),
            Err(f) => findings.push(f),
        }
    }
    out
}

fn is_tool_module(rel: &str) -> bool {
    rel.ends_with(".py") && !rel.ends_with("/__init__.py")
}

enum Decode {
    /// The file cannot be used at all.
    Finding(Box<Finding>),
    /// Decoded with replacement characters; the finding points into it.
    Lossy(String, Box<PendingFinding>),
}

/// A finding whose file id is only known once the lossy text is registered.
struct PendingFinding {
    finding: Finding,
    span: Span,
    label: String,
}

impl PendingFinding {
    fn in_file(self, id: FileId) -> Finding {
        self.finding.at(id, self.span, self.label)
    }
}

fn read_text(path: &Path, rel: &str) -> Result<String, Decode> {
    let unreadable = |e: std::io::Error| {
        Decode::Finding(Box::new(
            files_unreadable::RULE
                .finding(format!("cannot read `{rel}`: {e}"))
                .at_path(rel)
                .help("check the file's permissions"),
        ))
    };
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    if meta.len() > MAX_FILE_SIZE {
        return Err(Decode::Finding(Box::new(
            files_too_large::RULE
                .finding(format!(
                    "`{rel}` is {} bytes, over the limit of {} MiB, and was not read",
                    meta.len(),
                    MAX_FILE_SIZE / 1024 / 1024
                ))
                .at_path(rel)
                .help("split the file, or move large data out of the project tree"),
        )));
    }
    let bytes = std::fs::read(path).map_err(unreadable)?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(Decode::Finding(Box::new(
            files_binary::RULE
                .finding(format!("`{rel}` is a binary file, not text"))
                .at_path(rel)
                .help("replace it with a text file, or move it out of this location"),
        )));
    }
    match String::from_utf8(bytes) {
        Ok(mut s) => {
            if s.starts_with('\u{feff}') {
                s.drain(..3);
            }
            Ok(s)
        }
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            // The lossy text keeps every byte before the first invalid one
            // at the same offset, so the span points at it exactly.
            let text = String::from_utf8_lossy(&bytes).into_owned();
            Err(Decode::Lossy(
                text,
                Box::new(PendingFinding {
                    finding: files_not_utf8::RULE
                        .finding(format!(
                            "`{rel}` is not valid UTF-8 (invalid byte at offset {at})"
                        ))
                        .help("save the file as UTF-8"),
                    span: Span::new(at, at + 3),
                    label: "invalid byte here".into(),
                }),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_packaged;

    #[test]
    fn what_is_packaged() {
        for yes in [
            "lib/__init__.py",
            "lib/data/rates.csv",
            "tools/customer.py",
            "skills/card/tools.py",
            "skills/card/tools/helpers.py",
            "references/faq.md",
            "references/cards/replace.md",
            "skills/card/references/limits.md",
        ] {
            assert!(is_packaged(yes), "{yes}");
        }
        for no in [
            ".env",
            "lib/.env",
            "lib/__pycache__/x.cpython-311.pyc",
            "lib/x.pyc",
            "lib/server.key",
            "lib/secrets.yaml",
            "lib/credentials.json",
            "models/20240101.tar.gz",
            ".git/config",
            "skills/_drafts/tools.py",
            "skills/card/skill.md",
            "skills/card/notes.txt",
            "references/image.png",
            "agent.yml",
            "tools/readme.md",
        ] {
            assert!(!is_packaged(no), "{no}");
        }
    }
}
