//! The bundled runtime: executes a packaged model.
//!
//! The engine is a state machine without I/O; drivers (terminal shell, the
//! conversation-test runner) do the I/O: they call the LLM, run Python
//! tools in the worker and print messages. The runtime reads the package,
//! never the project.

pub mod driver;
pub mod engine;
pub mod llm;
pub mod memory;
pub mod report;
pub mod runner;
pub mod shell;
pub mod testfile;
pub mod types;
pub mod worker;

use crate::knowledge::KnowledgeIndex;
use crate::manifest::{self, Manifest};
use std::collections::BTreeMap;

/// A packaged model read back for running: the manifest, the knowledge
/// index and every file of the archive (the Python sources).
#[derive(Debug)]
pub struct LoadedModel {
    pub manifest: Manifest,
    pub knowledge: Option<KnowledgeIndex>,
    pub files: BTreeMap<String, Vec<u8>>,
}

/// Read a model archive (the runtime reads the package, never the project).
pub fn load_model(bytes: &[u8]) -> Result<LoadedModel, String> {
    let inspected = crate::inspect::read(bytes)?;
    let files = crate::archive::read(bytes).map_err(|e| e.to_string())?;
    let knowledge = match files.get(manifest::KNOWLEDGE_PATH) {
        Some(raw) => Some(
            KnowledgeIndex::from_json(&String::from_utf8_lossy(raw))
                .map_err(|e| format!("the knowledge index is damaged: {e}"))?,
        ),
        None => None,
    };
    Ok(LoadedModel {
        manifest: inspected.manifest,
        knowledge,
        files,
    })
}
