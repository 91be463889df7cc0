//! `maestro inspect MODEL`: a readable summary of a packaged model.

use crate::archive;
use crate::manifest::{self, Manifest};
use std::fmt::Write;

/// A model archive read back: its manifest and the names of its files.
#[derive(Debug)]
pub struct Inspected {
    pub manifest: Manifest,
    pub files: Vec<(String, usize)>,
}

/// Read and validate an archive.
pub fn read(bytes: &[u8]) -> Result<Inspected, String> {
    let files = archive::read(bytes).map_err(|e| e.to_string())?;
    let raw = files.get(manifest::MANIFEST_PATH).ok_or_else(|| {
        "the archive has no manifest.json; it was not built by `maestro train`".to_string()
    })?;
    let value: serde_json::Value =
        serde_json::from_slice(raw).map_err(|e| format!("manifest.json is not valid JSON: {e}"))?;
    match value.get("format_version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(manifest::FORMAT_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "the model has format version {v}, but this maestro reads version {}; train it again with this maestro",
                manifest::FORMAT_VERSION
            ))
        }
        None => return Err("manifest.json has no format_version; it was not built by `maestro train`".into()),
    }
    let manifest: Manifest = serde_json::from_value(value)
        .map_err(|e| format!("manifest.json is not a maestro manifest: {e}"))?;
    Ok(Inspected {
        manifest,
        files: files.iter().map(|(p, b)| (p.clone(), b.len())).collect(),
    })
}

/// The summary for people.
pub fn summary(m: &Inspected) -> String {
    let man = &m.manifest;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "format {} · maestro {} · fingerprint {}",
        man.format_version,
        man.maestro_version,
        &man.fingerprint[..man.fingerprint.len().min(12)]
    );
    if let Some(name) = &man.agent.name {
        let _ = writeln!(out, "agent: {name}");
    }
    if let Some(group) = &man.agent.model_group {
        let _ = writeln!(out, "model group: {group}");
    }
    let _ = writeln!(out, "\nskills ({}):", man.skills.len());
    for s in &man.skills {
        let flags: Vec<&str> = [(s.hidden, "hidden"), (s.disabled, "disabled")]
            .iter()
            .filter(|(b, _)| *b)
            .map(|(_, n)| *n)
            .collect();
        let flags = if flags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", flags.join(", "))
        };
        let _ = writeln!(out, "  {}{flags}: {}", s.id, s.description);
        for t in &s.tools {
            let mut notes = Vec::new();
            if t.shared {
                notes.push("shared".to_string());
            }
            if let Some(g) = &t.gate {
                notes.push(format!("requires {}", g.source));
            }
            if t.confirmation.is_some() {
                notes.push("asks for confirmation".into());
            }
            let notes = if notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", notes.join("; "))
            };
            let _ = writeln!(out, "    tool {}{notes}", t.name);
            let _ = writeln!(out, "      {}", t.description);
            let _ = writeln!(out, "      parameters: {}", t.parameters);
        }
        for h in &s.hooks {
            let _ = writeln!(out, "    hook {} (after `{}` is set)", h.function, h.entry);
        }
    }
    for h in &man.shared_hooks {
        let _ = writeln!(
            out,
            "  shared hook {} (after `{}` is set)",
            h.function, h.entry
        );
    }
    let _ = writeln!(out, "\nmemory:");
    let field = |f: &manifest::Field| {
        let mut s = f.name.clone();
        if let Some(t) = &f.type_name {
            let _ = write!(s, ": {t}");
        }
        if f.llm_settable {
            s.push_str(" (settable)");
        }
        s
    };
    let _ = writeln!(
        out,
        "  project: {}",
        man.memory
            .project
            .iter()
            .map(field)
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (id, mem) in &man.memory.skills {
        let _ = writeln!(
            out,
            "  {id}: {}",
            mem.fields
                .iter()
                .map(|f| format!("{} [{}]", field(f), f.visibility))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let _ = writeln!(
        out,
        "\nresponses ({}): {}",
        man.responses.len(),
        man.responses.keys().cloned().collect::<Vec<_>>().join(", ")
    );
    match &man.knowledge {
        Some(k) => {
            let _ = writeln!(
                out,
                "\nknowledge: {} documents, {} chunks, {} terms",
                k.stats.documents, k.stats.chunks, k.stats.terms
            );
        }
        None => {
            let _ = writeln!(out, "\nknowledge: none");
        }
    }
    let total: usize = m.files.iter().map(|(_, n)| n).sum();
    let _ = writeln!(out, "\nfiles ({}, {} bytes):", m.files.len(), total);
    for (path, n) in &m.files {
        let _ = writeln!(out, "  {path} ({n} bytes)");
    }
    out
}
