//! The bundled runtime: executes a packaged model.
//!
//! The engine is a state machine without I/O; drivers (terminal shell, the
//! conversation-test runner) do the I/O: they call the LLM, run Python
//! tools in the worker and print messages. The runtime reads the package,
//! never the project.

pub mod llm;
pub mod report;
pub mod testfile;
pub mod types;
