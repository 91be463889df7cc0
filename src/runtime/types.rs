//! Types shared by the engine, the LLM providers and the drivers.

use serde::{Deserialize, Serialize};

/// Who said a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of an LLM conversation (chat-completions shape).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    /// Text content (None for an assistant message that only calls tools).
    pub content: Option<String>,
    /// Tool calls made by the assistant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `Role::Tool`: the call this message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    pub fn system(text: impl Into<String>) -> Self {
        Self::text(Role::System, text)
    }
    pub fn user(text: impl Into<String>) -> Self {
        Self::text(Role::User, text)
    }
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::text(Role::Assistant, text)
    }
    pub fn tool_result(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ChatMessage {
            role: Role::Tool,
            content: Some(content.into()),
            tool_calls: Vec::new(),
            tool_call_id: Some(call_id.into()),
        }
    }
    fn text(role: Role, text: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: Some(text.into()),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
}

/// A tool the LLM may call (an OpenAI "function" tool).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// A tool call requested by the LLM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider-assigned id (the scripted provider makes `call_<n>`).
    pub id: String,
    pub name: String,
    /// The arguments object (already parsed from the provider's JSON text).
    pub arguments: serde_json::Value,
}

/// What the engine asks the LLM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolSpec>,
}

/// What the LLM answered.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatResponse {
    pub content: Option<String>,
    pub tool_calls: Vec<ToolCall>,
}

/// The outcome of running one Python tool (or hook) in the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ToolOutcome {
    /// The tool returned a `ToolResult`; this is its `llm_response`.
    Ok(serde_json::Value),
    /// The tool raised, returned something else than a `ToolResult`, or
    /// could not be called; the message for the LLM.
    Error(String),
    /// The tool ran past its timeout (seconds).
    Timeout(f64),
    /// The turn was cancelled while the tool awaited (D13).
    Cancelled,
}

/// What a running tool asks of the engine through its `ToolContext`.
pub trait ToolHost {
    /// `context.memory.get(name)`: the value, or null when unset or not
    /// readable. Never fails.
    fn memory_get(&mut self, name: &str) -> serde_json::Value;
    /// `context.memory.set(name, value)`: `Err(reason)` becomes a
    /// `MemoryWriteError` in Python.
    fn memory_set(&mut self, name: &str, value: serde_json::Value) -> Result<(), String>;
    /// `await context.send(text)`.
    fn send(&mut self, text: &str);
    /// Whether the turn has been cancelled (checked while the tool runs).
    fn is_cancelled(&mut self) -> bool;
    /// `context.model.references_index.search(query, limit)`: hits as
    /// `{"text", "source", "scope", "score"}` objects (none by default).
    fn search(&mut self, query: &str, limit: usize) -> serde_json::Value {
        let _ = (query, limit);
        serde_json::Value::Array(Vec::new())
    }
}
