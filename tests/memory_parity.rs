//! The runtime's memory rules are the check pipeline's (decision D7): for
//! every fixture and example project that declares memory, the model
//! `maestro check` builds and the model the runtime rebuilds from the
//! trained manifest (after a JSON round trip, as packaged) answer every
//! read, write, readable-set and settable question identically, for every
//! skill (and routing mode) and a wide set of names.

use maestro::knowledge::ChunkingConfig;
use maestro::memory::{MemoryModel, Read, WriteTarget, SYSTEM_ENTRIES};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Project roots under `examples/` and `fixtures/` with a `memory.yml`.
fn projects() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for group in ["examples", "fixtures"] {
        let Ok(dirs) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        for dir in dirs.flatten().map(|d| d.path()) {
            let candidates: Vec<PathBuf> = if group == "examples" {
                vec![dir]
            } else {
                std::fs::read_dir(&dir)
                    .map(|it| it.flatten().map(|d| d.path()).collect())
                    .unwrap_or_default()
            };
            out.extend(
                candidates
                    .into_iter()
                    .filter(|p| p.is_dir() && declares_memory(p)),
            );
        }
    }
    out.sort();
    out
}

fn declares_memory(project: &Path) -> bool {
    project.join("memory.yml").is_file()
        || std::fs::read_dir(project.join("skills")).is_ok_and(|skills| {
            skills
                .flatten()
                .any(|s| s.path().join("memory.yml").is_file())
        })
}

fn field_facts(f: &maestro::memory::Field) -> String {
    format!(
        "{} {:?} {:?} type={:?} settable={} immutable={} description={:?}",
        f.qualified_name(),
        f.visibility,
        f.ty,
        f.type_name,
        f.llm_settable,
        f.immutable,
        f.description
    )
}

fn read_answer(r: &Read<'_>) -> String {
    let entry = |e: &maestro::memory::Entry<'_>| match e {
        maestro::memory::Entry::Field(f) => field_facts(f),
        maestro::memory::Entry::System(s) => format!("system {s}"),
    };
    match r {
        Read::Ok(e) => format!("ok {}", entry(e)),
        Read::UnknownNamespace { namespace } => format!("unknown namespace {namespace}"),
        Read::Undeclared { namespace, entry } => format!("undeclared {namespace:?} {entry}"),
        Read::Private(f) => format!("private {}", field_facts(f)),
        Read::Denied { entry: e, rule } => format!("denied {} by {}", entry(e), rule.value),
    }
}

fn write_answer(w: &WriteTarget<'_>) -> String {
    match w {
        WriteTarget::Field(f) => format!("field {}", field_facts(f)),
        WriteTarget::Reserved => "reserved".into(),
        WriteTarget::Qualified { namespace, entry } => format!("qualified {namespace} {entry}"),
        WriteTarget::Denied { field, rule } => {
            format!("denied {} by {}", field_facts(field), rule.value)
        }
        WriteTarget::Undeclared => "undeclared".into(),
    }
}

/// Every name worth asking about: bare names, every namespace joined with
/// every entry name, system entries (registered or not), deny items and a
/// few shapes that split differently.
fn names(m: &MemoryModel) -> BTreeSet<String> {
    let mut entries: BTreeSet<String> = m.project.iter().map(|f| f.name.clone()).collect();
    let mut out = BTreeSet::new();
    for mem in m.skills.values() {
        entries.extend(mem.fields.iter().map(|f| f.name.clone()));
        out.extend(mem.deny_read.iter().map(|r| r.value.clone()));
        out.extend(mem.deny_write.iter().map(|r| r.value.clone()));
    }
    entries.extend(SYSTEM_ENTRIES.iter().map(|e| e.to_string()));
    entries.extend(["unregistered".to_string(), "address.city".to_string()]);
    let namespaces = m
        .skills
        .keys()
        .map(String::as_str)
        .chain(["project", "system", "session", "address", "nowhere"]);
    for ns in namespaces {
        for e in &entries {
            out.insert(format!("{ns}.{e}"));
        }
    }
    out.extend(entries);
    out.extend(["system".to_string(), "project".to_string(), String::new()]);
    out
}

#[test]
fn the_runtime_model_answers_like_the_check_model() {
    let projects = projects();
    assert!(
        projects.len() > 5,
        "expected fixture projects with memory: {projects:?}"
    );
    for root in projects {
        let outcome = maestro::check(&root).expect("loads");
        let checked = &outcome.model.memory;
        let manifest =
            maestro::train::build_manifest(&outcome.model, "", ChunkingConfig::default(), None);
        let json = serde_json::to_string(&manifest.memory).expect("serializes");
        let packaged_memory: maestro::manifest::Memory =
            serde_json::from_str(&json).expect("deserializes");
        let packaged = MemoryModel::from_manifest(&packaged_memory);
        let at = root.display();

        let ids: Vec<&str> = checked.skills.keys().map(String::as_str).collect();
        assert_eq!(
            ids,
            packaged
                .skills
                .keys()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            "{at}: namespaces"
        );
        let mut skills: Vec<Option<&str>> = vec![None, Some("not_a_skill")];
        skills.extend(ids.iter().map(|id| Some(*id)));
        let names = names(checked);
        for skill in skills {
            assert_eq!(
                checked.readable_names(skill),
                packaged.readable_names(skill),
                "{at}: readable names of {skill:?}"
            );
            let settable = |m: &MemoryModel| -> Vec<String> {
                m.settable(skill).into_iter().map(field_facts).collect()
            };
            assert_eq!(
                settable(checked),
                settable(&packaged),
                "{at}: settable of {skill:?}"
            );
            for name in &names {
                assert_eq!(
                    checked.split(name),
                    packaged.split(name),
                    "{at}: split {name}"
                );
                assert_eq!(
                    read_answer(&checked.read(skill, name)),
                    read_answer(&packaged.read(skill, name)),
                    "{at}: {skill:?} reads {name:?}"
                );
                if let Some((ns, entry)) = name.split_once('.') {
                    assert_eq!(
                        read_answer(&checked.read_qualified(skill, ns, entry)),
                        read_answer(&packaged.read_qualified(skill, ns, entry)),
                        "{at}: {skill:?} reads session.{name}"
                    );
                }
                assert_eq!(
                    write_answer(&checked.write_target(skill, name)),
                    write_answer(&packaged.write_target(skill, name)),
                    "{at}: {skill:?} writes {name:?}"
                );
            }
        }
    }
}
