//! LLM providers: the OpenAI-compatible chat-completions client and the
//! scripted provider of conversation tests.
//!
//! [`LlmProvider::complete`] takes the engine's [`ChatRequest`] (messages and
//! the tools offered in this state) and returns the [`ChatResponse`] (text
//! and tool calls). Providers do no engine work: no prompt building, no
//! retry on empty completions (the engine does that, `runtime.md` 2.8).
//!
//! [`OpenAiCompatible`] speaks `POST {base_url}/chat/completions` (OpenAI,
//! Azure's OpenAI-compatible endpoint, vLLM, Ollama, llama.cpp server). The
//! request carries only standard fields: `model`, `messages`, and — when the
//! state offers tools — `tools` and `tool_choice: "auto"`.
//!
//! Choices worth knowing:
//! - Tool-call arguments arrive as JSON text. Valid JSON becomes that value
//!   (normally an object); an empty text becomes `{}` (some servers send
//!   `""` for calls without arguments); text that is not JSON is kept as a
//!   JSON **string** holding the raw text. A non-object `arguments` thus
//!   means "the LLM sent something that is not an arguments object": the
//!   engine answers the call with an invalid-arguments error so the LLM can
//!   try again, and the raw text stays visible in the `tool_executed` event.
//! - An empty `content` (`""`) is read as no content, so "tool calls only"
//!   looks the same from every server.
//! - Retries (a maestro addition; the reference engine retries only through
//!   a router): 429, 5xx and connection failures are retried up to
//!   `max_retries` times with exponential backoff (`backoff`, doubled each
//!   time), or after the server's `Retry-After` seconds when it sends them,
//!   capped at [`MAX_RETRY_AFTER`] (an HTTP-date `Retry-After` is ignored in
//!   favour of the backoff). Other 4xx answers are final. A timeout is
//!   final too: retrying a request that already took `timeout` would multiply
//!   the user's wait.
//! - `timeout` bounds each HTTP request as a whole (connect, send, answer).
//! - The API key is sent as `Authorization: Bearer …` and never appears in
//!   an error message or in `Debug` output; server messages are scrubbed of
//!   it too, in case a server echoes it.
//! - A loopback `base_url` (`localhost`, `127.0.0.1`, `[::1]`) is reached
//!   directly; other URLs honour the usual proxy environment variables.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use serde_json::{json, Value};

use super::types::{ChatMessage, ChatRequest, ChatResponse, Role, ToolCall, ToolSpec};

/// Default base URL of provider `openai`.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Default request timeout (`runtime.md` 5.4).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// Default number of retries after the first attempt.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// Default delay before the first retry (doubled for each further one).
pub const DEFAULT_BACKOFF: Duration = Duration::from_millis(500);
/// Longest wait a server's `Retry-After` can impose.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// Longest server message quoted in an error.
const MAX_SERVER_MESSAGE: usize = 500;

/// Something that answers chat requests.
pub trait LlmProvider {
    /// One completion for `req`.
    fn complete(&mut self, req: &ChatRequest) -> Result<ChatResponse, LlmError>;
}

/// Why a provider could not answer (or could not be built).
#[derive(Debug, Clone, PartialEq)]
pub enum LlmError {
    /// The model configuration cannot be used (missing variable, no URL).
    Config(String),
    /// The server answered with an error status (after retries, when the
    /// status is retryable). `message` is the server's message, scrubbed.
    Status {
        status: u16,
        message: String,
        attempts: u32,
    },
    /// The request ran past the timeout.
    Timeout { after: Duration },
    /// The server could not be reached (after retries).
    Connection { message: String, attempts: u32 },
    /// The server answered 2xx with something that is not a chat completion.
    InvalidResponse(String),
    /// The scripted provider was asked for more replies than the test gives.
    ScriptExhausted {
        /// How many requests the script answered before.
        answered: usize,
    },
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tries = |n: &u32| {
            if *n == 1 {
                String::new()
            } else {
                format!(" (after {n} attempts)")
            }
        };
        match self {
            LlmError::Config(m) => write!(f, "LLM configuration: {m}"),
            LlmError::Status {
                status,
                message,
                attempts,
            } => {
                write!(f, "LLM server answered HTTP {status}{}", tries(attempts))?;
                if !message.is_empty() {
                    write!(f, ": {message}")?;
                }
                Ok(())
            }
            LlmError::Timeout { after } => {
                write!(
                    f,
                    "LLM request timed out after {:.1} s",
                    after.as_secs_f64()
                )
            }
            LlmError::Connection { message, attempts } => write!(
                f,
                "cannot reach the LLM server{}: {message}",
                tries(attempts)
            ),
            LlmError::InvalidResponse(m) => write!(f, "LLM server sent an invalid answer: {m}"),
            LlmError::ScriptExhausted { answered } => write!(
                f,
                "the LLM was asked for reply {} but the test scripts only {answered}; \
                 add an `llm` step",
                answered + 1
            ),
        }
    }
}

impl std::error::Error for LlmError {}

/// A client for an OpenAI-compatible chat-completions endpoint.
#[derive(Clone)]
pub struct OpenAiCompatible {
    /// e.g. `https://api.openai.com/v1` (no trailing `/chat/completions`).
    pub base_url: String,
    pub model: String,
    /// Sent as a bearer token when set.
    pub api_key: Option<String>,
    /// Bound on each HTTP request.
    pub timeout: Duration,
    /// Retries after the first attempt (429, 5xx, connection failures).
    pub max_retries: u32,
    /// Delay before the first retry; doubled for each further one.
    pub backoff: Duration,
}

impl fmt::Debug for OpenAiCompatible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiCompatible")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff", &self.backoff)
            .finish()
    }
}

/// Replace every `${NAME}` in `s` by the variable's value. A missing (or
/// empty) variable is an error naming it and `what` (never the value).
fn expand_vars(
    s: &str,
    what: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, LlmError> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        let name = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        match env(name).filter(|v| !v.is_empty()) {
            Some(v) => out.push_str(&v),
            None => {
                return Err(LlmError::Config(format!(
                    "environment variable `{name}` is not set ({what} refers to it)"
                )))
            }
        }
        rest = &rest[start + 2 + len + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Build a client from a packaged model's model configuration, reading
/// `${VAR}` placeholders in `api_key` and `api_base` through `env`.
/// Provider `openai` defaults to [`OPENAI_BASE_URL`]; every other provider
/// needs `api_base`.
pub fn from_config(
    cfg: &crate::manifest::ModelConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<OpenAiCompatible, LlmError> {
    let api_key = cfg
        .api_key
        .as_deref()
        .map(|k| expand_vars(k, &format!("the api_key of model `{}`", cfg.model), env))
        .transpose()?;
    let base_url = match &cfg.api_base {
        Some(b) => expand_vars(b, &format!("the api_base of model `{}`", cfg.model), env)?,
        None if cfg.provider == "openai" => OPENAI_BASE_URL.to_string(),
        None => {
            return Err(LlmError::Config(format!(
                "model `{}` of provider `{}` needs an `api_base` (the URL of its \
                 OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1)",
                cfg.model, cfg.provider
            )))
        }
    };
    let base_url = base_url.trim().trim_end_matches('/').to_string();
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(LlmError::Config(format!(
            "the api_base of model `{}` must start with http:// or https://, found `{base_url}`",
            cfg.model
        )));
    }
    let timeout = match cfg.timeout_secs {
        Some(t) if t.is_finite() && t > 0.0 => Duration::from_secs_f64(t.min(86_400.0)),
        Some(t) => {
            return Err(LlmError::Config(format!(
                "the timeout of model `{}` must be a positive number of seconds, found {t}",
                cfg.model
            )))
        }
        None => DEFAULT_TIMEOUT,
    };
    Ok(OpenAiCompatible {
        base_url,
        model: cfg.model.clone(),
        api_key,
        timeout,
        max_retries: DEFAULT_MAX_RETRIES,
        backoff: DEFAULT_BACKOFF,
    })
}

impl OpenAiCompatible {
    /// The JSON body of the chat-completions request for `req`.
    pub fn request_body(&self, req: &ChatRequest) -> Value {
        let mut body = json!({
            "model": self.model,
            "messages": req.messages.iter().map(message_json).collect::<Vec<_>>(),
        });
        if !req.tools.is_empty() {
            body["tools"] = Value::Array(req.tools.iter().map(tool_json).collect());
            body["tool_choice"] = json!("auto");
        }
        body
    }

    fn agent(&self) -> ureq::Agent {
        let proxy = if is_loopback_url(&self.base_url) {
            None
        } else {
            ureq::Proxy::try_from_env()
        };
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .user_agent(concat!("maestro/", env!("CARGO_PKG_VERSION")))
            .timeout_global(Some(self.timeout))
            .proxy(proxy)
            .build()
            .into()
    }

    /// Remove the API key from a text that came from outside.
    fn scrub(&self, s: &str) -> String {
        match &self.api_key {
            Some(k) if !k.is_empty() => s.replace(k.as_str(), "<redacted>"),
            _ => s.to_string(),
        }
    }
}

impl LlmProvider for OpenAiCompatible {
    fn complete(&mut self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let body = self.request_body(req).to_string();
        let url = format!("{}/chat/completions", self.base_url);
        let agent = self.agent();
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let mut request = agent
                .post(&url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json");
            if let Some(key) = &self.api_key {
                request = request.header("Authorization", &format!("Bearer {key}"));
            }
            let retry_in = |retry_after: Option<Duration>| {
                let exp = self
                    .backoff
                    .saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1).min(16)));
                retry_after.map_or(exp, |d| d.min(MAX_RETRY_AFTER))
            };
            let can_retry = attempt <= self.max_retries;
            match request.send(body.as_str()) {
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = resp
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<f64>().ok())
                        .filter(|s| s.is_finite() && *s >= 0.0)
                        .map(Duration::from_secs_f64);
                    let text = match resp.body_mut().read_to_string() {
                        Ok(t) => t,
                        Err(ureq::Error::Timeout(_)) => {
                            return Err(LlmError::Timeout {
                                after: self.timeout,
                            })
                        }
                        Err(e) if (200..300).contains(&status) => {
                            return Err(LlmError::InvalidResponse(
                                self.scrub(&format!("cannot read the body: {e}")),
                            ))
                        }
                        Err(_) => String::new(),
                    };
                    if (200..300).contains(&status) {
                        return parse_response(&text)
                            .map_err(|m| LlmError::InvalidResponse(self.scrub(&m)));
                    }
                    let retryable = status == 429 || (500..600).contains(&status);
                    if retryable && can_retry {
                        std::thread::sleep(retry_in(retry_after));
                        continue;
                    }
                    return Err(LlmError::Status {
                        status,
                        message: self.scrub(&server_message(&text)),
                        attempts: attempt,
                    });
                }
                Err(ureq::Error::Timeout(_)) => {
                    return Err(LlmError::Timeout {
                        after: self.timeout,
                    })
                }
                Err(e) => {
                    let transient = matches!(e, ureq::Error::Io(_) | ureq::Error::ConnectionFailed);
                    if transient && can_retry {
                        std::thread::sleep(retry_in(None));
                        continue;
                    }
                    return Err(LlmError::Connection {
                        message: self.scrub(&e.to_string()),
                        attempts: attempt,
                    });
                }
            }
        }
    }
}

fn is_loopback_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or(url);
    let host_port = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = host_port.rsplit('@').next().unwrap_or(host_port);
    let host = if let Some(h) = host_port.strip_prefix('[') {
        h.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn message_json(m: &ChatMessage) -> Value {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut o = json!({ "role": role, "content": m.content });
    if !m.tool_calls.is_empty() {
        o["tool_calls"] = Value::Array(
            m.tool_calls
                .iter()
                .map(|c| {
                    json!({
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": arguments_text(&c.arguments)},
                    })
                })
                .collect(),
        );
    }
    if let Some(id) = &m.tool_call_id {
        o["tool_call_id"] = json!(id);
    }
    o
}

/// The JSON text sent back for a call's arguments: a raw (unparsable) text
/// is sent as it came.
fn arguments_text(v: &Value) -> String {
    match v {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

fn tool_json(t: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
    })
}

/// The server's error message: `error.message` of an OpenAI error body,
/// else the body text (shortened).
fn server_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let e = v.get("error")?;
        e.get("message")
            .and_then(Value::as_str)
            .or_else(|| e.as_str())
            .map(str::to_string)
    });
    let msg = from_json.unwrap_or_else(|| body.trim().to_string());
    if msg.chars().count() > MAX_SERVER_MESSAGE {
        let cut: String = msg.chars().take(MAX_SERVER_MESSAGE).collect();
        format!("{cut}…")
    } else {
        msg
    }
}

/// Read `choices[0].message` of a chat-completions answer.
pub fn parse_response(body: &str) -> Result<ChatResponse, String> {
    let v: Value = serde_json::from_str(body).map_err(|e| format!("the body is not JSON ({e})"))?;
    let message = v
        .get("choices")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("message"))
        .ok_or_else(|| "no `choices[0].message`".to_string())?;
    let content = match message.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(format!("`content` is {other}, not text")),
    };
    let mut tool_calls = Vec::new();
    if let Some(calls) = message.get("tool_calls").filter(|c| !c.is_null()) {
        let calls = calls
            .as_array()
            .ok_or_else(|| "`tool_calls` is not a list".to_string())?;
        for (i, c) in calls.iter().enumerate() {
            let f = c
                .get("function")
                .ok_or_else(|| format!("tool call {} has no `function`", i + 1))?;
            let name = f
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("tool call {} has no function name", i + 1))?;
            let arguments = match f.get("arguments") {
                None | Some(Value::Null) => json!({}),
                Some(Value::String(s)) if s.trim().is_empty() => json!({}),
                Some(Value::String(s)) => {
                    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
                }
                // Some servers send the object itself.
                Some(other) => other.clone(),
            };
            let id = c
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map_or_else(|| format!("call_{}", i + 1), str::to_string);
            tool_calls.push(ToolCall {
                id,
                name: name.to_string(),
                arguments,
            });
        }
    }
    Ok(ChatResponse {
        content,
        tool_calls,
    })
}

/// The provider of conversation tests: answers with the scripted replies in
/// order and records every request (to check the offered tools).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scripted {
    pub replies: VecDeque<ChatResponse>,
    pub requests: Vec<ChatRequest>,
}

impl Scripted {
    pub fn new(replies: impl IntoIterator<Item = ChatResponse>) -> Self {
        Scripted {
            replies: replies.into_iter().collect(),
            requests: Vec::new(),
        }
    }

    /// Add a reply at the end of the script.
    pub fn push(&mut self, reply: ChatResponse) {
        self.replies.push_back(reply);
    }

    /// The tool names offered by the latest request (empty before any).
    pub fn last_offered(&self) -> Vec<String> {
        self.requests
            .last()
            .map(|r| r.tools.iter().map(|t| t.name.clone()).collect())
            .unwrap_or_default()
    }
}

impl LlmProvider for Scripted {
    fn complete(&mut self, req: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let answered = self.requests.len();
        self.requests.push(req.clone());
        let mut reply = self
            .replies
            .pop_front()
            .ok_or(LlmError::ScriptExhausted { answered })?;
        // Calls without an id get `call_<request>_<index>` (1-based), unique
        // over the conversation; test files give their own `call_<n>`.
        for (i, c) in reply.tool_calls.iter_mut().enumerate() {
            if c.id.is_empty() {
                c.id = format!("call_{}_{}", answered + 1, i + 1);
            }
        }
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;
    use std::thread::JoinHandle;
    use std::time::Instant;

    /// One canned answer of the test server.
    struct Canned {
        status: &'static str,
        headers: Vec<(&'static str, String)>,
        body: String,
        delay: Duration,
    }

    fn canned(status: &'static str, body: impl Into<String>) -> Canned {
        Canned {
            status,
            headers: Vec::new(),
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    /// A received request: head (request line and headers) and body.
    struct Received {
        head: String,
        body: String,
    }

    /// Serve the canned answers, one connection each, on a loopback port.
    fn serve(answers: Vec<Canned>) -> (String, JoinHandle<Vec<Received>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let handle = std::thread::spawn(move || {
            let mut got = Vec::new();
            for a in answers {
                let (stream, _) = listener.accept().unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some((k, v)) = line.split_once(':') {
                        if k.eq_ignore_ascii_case("content-length") {
                            len = v.trim().parse().unwrap();
                        }
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; len];
                reader.read_exact(&mut body).unwrap();
                got.push(Received {
                    head,
                    body: String::from_utf8(body).unwrap(),
                });
                std::thread::sleep(a.delay);
                let mut out = format!(
                    "HTTP/1.1 {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                    a.status,
                    a.body.len()
                );
                for (k, v) in &a.headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                out.push_str(&a.body);
                let mut s = stream;
                let _ = s.write_all(out.as_bytes());
                let _ = s.flush();
            }
            got
        });
        (url, handle)
    }

    fn client(url: &str) -> OpenAiCompatible {
        OpenAiCompatible {
            base_url: url.to_string(),
            model: "gpt-test".into(),
            api_key: Some("sk-secret-123".into()),
            timeout: Duration::from_secs(5),
            max_retries: 2,
            backoff: Duration::from_millis(10),
        }
    }

    fn ok_body(message: Value) -> String {
        json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}).to_string()
    }

    fn request() -> ChatRequest {
        ChatRequest {
            messages: vec![
                ChatMessage::system("You are a bank assistant."),
                ChatMessage::user("I lost my card"),
                ChatMessage {
                    role: Role::Assistant,
                    content: None,
                    tool_calls: vec![ToolCall {
                        id: "call_1".into(),
                        name: "activate".into(),
                        arguments: json!({"flow_id": "card_replace"}),
                    }],
                    tool_call_id: None,
                },
                ChatMessage::tool_result("call_1", "activate: done"),
            ],
            tools: vec![ToolSpec {
                name: "lock_card".into(),
                description: "Lock a card.".into(),
                parameters: json!({"type": "object", "properties": {"card_id": {"type": "string"}}, "additionalProperties": false}),
            }],
        }
    }

    #[test]
    fn request_body_has_only_standard_fields_and_parses_tool_calls() {
        let answer = ok_body(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "lock_card", "arguments": "{\"card_id\": \"C-1\"}"}},
            {"id": "call_10", "type": "function", "function": {"name": "set_fields", "arguments": "{not json"}},
            {"id": "", "type": "function", "function": {"name": "complete_skill", "arguments": ""}}
        ]}));
        let (url, server) = serve(vec![canned("200 OK", answer)]);
        let resp = client(&url).complete(&request()).unwrap();
        let got = server.join().unwrap();
        assert_eq!(got.len(), 1);
        assert!(got[0]
            .head
            .starts_with("POST /v1/chat/completions HTTP/1.1"));
        assert!(got[0]
            .head
            .to_ascii_lowercase()
            .contains("authorization: bearer sk-secret-123"));
        assert!(got[0]
            .head
            .to_ascii_lowercase()
            .contains(concat!("user-agent: maestro/", env!("CARGO_PKG_VERSION"))));
        let body: Value = serde_json::from_str(&got[0].body).unwrap();
        assert_eq!(
            body,
            json!({
                "model": "gpt-test",
                "messages": [
                    {"role": "system", "content": "You are a bank assistant."},
                    {"role": "user", "content": "I lost my card"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "activate", "arguments": "{\"flow_id\":\"card_replace\"}"}}
                    ]},
                    {"role": "tool", "content": "activate: done", "tool_call_id": "call_1"}
                ],
                "tools": [{"type": "function", "function": {
                    "name": "lock_card", "description": "Lock a card.",
                    "parameters": {"type": "object", "properties": {"card_id": {"type": "string"}}, "additionalProperties": false}
                }}],
                "tool_choice": "auto"
            })
        );
        assert_eq!(resp.content, None);
        assert_eq!(
            resp.tool_calls,
            vec![
                ToolCall {
                    id: "call_9".into(),
                    name: "lock_card".into(),
                    arguments: json!({"card_id": "C-1"})
                },
                ToolCall {
                    id: "call_10".into(),
                    name: "set_fields".into(),
                    arguments: json!("{not json")
                },
                ToolCall {
                    id: "call_3".into(),
                    name: "complete_skill".into(),
                    arguments: json!({})
                },
            ]
        );
    }

    #[test]
    fn no_tools_means_no_tools_and_no_tool_choice() {
        let (url, server) = serve(vec![canned(
            "200 OK",
            ok_body(json!({"role": "assistant", "content": "Hello!"})),
        )]);
        let mut c = client(&url);
        c.api_key = None;
        let req = ChatRequest {
            messages: vec![ChatMessage::user("hi")],
            tools: vec![],
        };
        let resp = c.complete(&req).unwrap();
        assert_eq!(resp.content.as_deref(), Some("Hello!"));
        assert!(resp.tool_calls.is_empty());
        let got = server.join().unwrap();
        let body: Value = serde_json::from_str(&got[0].body).unwrap();
        assert_eq!(
            body,
            json!({"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]})
        );
        assert!(!got[0].head.to_ascii_lowercase().contains("authorization"));
    }

    #[test]
    fn retries_a_429_then_succeeds() {
        let mut limited = canned(
            "429 Too Many Requests",
            r#"{"error":{"message":"slow down"}}"#,
        );
        limited.headers.push(("Retry-After", "0".into()));
        let (url, server) = serve(vec![
            limited,
            canned(
                "200 OK",
                ok_body(json!({"role": "assistant", "content": "ok"})),
            ),
        ]);
        let resp = client(&url).complete(&request()).unwrap();
        assert_eq!(resp.content.as_deref(), Some("ok"));
        let got = server.join().unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].body, got[1].body);
    }

    #[test]
    fn gives_up_after_max_retries_on_5xx() {
        let answers = (0..3)
            .map(|_| {
                canned(
                    "500 Internal Server Error",
                    r#"{"error":{"message":"boom"}}"#,
                )
            })
            .collect();
        let (url, server) = serve(answers);
        let err = client(&url).complete(&request()).unwrap_err();
        assert_eq!(server.join().unwrap().len(), 3);
        assert_eq!(
            err,
            LlmError::Status {
                status: 500,
                message: "boom".into(),
                attempts: 3
            }
        );
        assert_eq!(
            err.to_string(),
            "LLM server answered HTTP 500 (after 3 attempts): boom"
        );
    }

    #[test]
    fn a_400_is_not_retried_and_never_shows_the_key() {
        let (url, server) = serve(vec![canned(
            "400 Bad Request",
            r#"{"error":{"message":"Invalid schema for function 'lock_card' (key sk-secret-123)"}}"#,
        )]);
        let c = client(&url);
        let err = c.clone().complete(&request()).unwrap_err();
        assert_eq!(server.join().unwrap().len(), 1);
        let text = err.to_string();
        assert!(text.contains("HTTP 400"), "{text}");
        assert!(
            text.contains("Invalid schema for function 'lock_card'"),
            "{text}"
        );
        assert!(!text.contains("sk-secret-123"), "{text}");
        assert!(!format!("{err:?}").contains("sk-secret-123"));
        assert!(!format!("{c:?}").contains("sk-secret-123"));
    }

    #[test]
    fn a_slow_server_times_out() {
        let mut slow = canned("200 OK", ok_body(json!({"content": "late"})));
        slow.delay = Duration::from_millis(1500);
        let (url, server) = serve(vec![slow]);
        let mut c = client(&url);
        c.timeout = Duration::from_millis(300);
        let start = Instant::now();
        let err = c.complete(&request()).unwrap_err();
        assert!(start.elapsed() < Duration::from_millis(1400));
        assert_eq!(
            err,
            LlmError::Timeout {
                after: Duration::from_millis(300)
            }
        );
        assert_eq!(err.to_string(), "LLM request timed out after 0.3 s");
        server.join().unwrap();
    }

    #[test]
    fn connection_refused_is_retried_then_reported() {
        let port = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let mut c = client(&format!("http://127.0.0.1:{port}/v1"));
        c.max_retries = 1;
        let err = c.complete(&request()).unwrap_err();
        match &err {
            LlmError::Connection { attempts, .. } => assert_eq!(*attempts, 2),
            other => panic!("unexpected {other:?}"),
        }
        assert!(err
            .to_string()
            .starts_with("cannot reach the LLM server (after 2 attempts)"));
    }

    #[test]
    fn a_2xx_that_is_not_a_completion_is_an_invalid_response() {
        let (url, server) = serve(vec![canned("200 OK", "<html>proxy login</html>")]);
        let err = client(&url).complete(&request()).unwrap_err();
        server.join().unwrap();
        assert!(matches!(err, LlmError::InvalidResponse(_)), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("LLM server sent an invalid answer: the body is not JSON"),
            "{err}"
        );
    }

    #[test]
    fn invalid_answers_are_reported() {
        assert!(parse_response("nope").unwrap_err().contains("not JSON"));
        assert_eq!(
            parse_response(r#"{"choices": []}"#).unwrap_err(),
            "no `choices[0].message`"
        );
        let r = parse_response(
            r#"{"choices":[{"message":{"content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]}}]}"#,
        )
        .unwrap();
        assert_eq!(r.content, None);
        assert_eq!(r.tool_calls[0].arguments, json!({"a": 1}));
        assert_eq!(r.tool_calls[0].id, "call_1");
    }

    fn cfg(provider: &str, key: Option<&str>, base: Option<&str>) -> crate::manifest::ModelConfig {
        crate::manifest::ModelConfig {
            provider: provider.into(),
            model: "m".into(),
            api_key: key.map(str::to_string),
            api_base: base.map(str::to_string),
            timeout_secs: None,
        }
    }

    #[test]
    fn from_config_resolves_placeholders() {
        let env = |n: &str| match n {
            "KEY" => Some("sk-abc".to_string()),
            "HOST" => Some("127.0.0.1:8000".to_string()),
            _ => None,
        };
        let c = from_config(&cfg("openai", Some("${KEY}"), None), &env).unwrap();
        assert_eq!(c.base_url, OPENAI_BASE_URL);
        assert_eq!(c.api_key.as_deref(), Some("sk-abc"));
        assert_eq!(c.timeout, DEFAULT_TIMEOUT);
        let c = from_config(&cfg("self-hosted", None, Some("http://${HOST}/v1/")), &env).unwrap();
        assert_eq!(c.base_url, "http://127.0.0.1:8000/v1");
        assert_eq!(c.api_key, None);

        let err = from_config(&cfg("openai", Some("${MISSING_KEY}"), None), &env).unwrap_err();
        assert_eq!(
            err.to_string(),
            "LLM configuration: environment variable `MISSING_KEY` is not set \
             (the api_key of model `m` refers to it)"
        );
        let err = from_config(&cfg("vllm", None, None), &env).unwrap_err();
        assert!(err.to_string().contains("needs an `api_base`"), "{err}");
        let err = from_config(&cfg("vllm", None, Some("localhost:8000")), &env).unwrap_err();
        assert!(err.to_string().contains("must start with http://"), "{err}");
        let mut t = cfg("openai", None, None);
        t.timeout_secs = Some(2.5);
        assert_eq!(
            from_config(&t, &env).unwrap().timeout,
            Duration::from_millis(2500)
        );
    }

    #[test]
    fn loopback_detection() {
        assert!(is_loopback_url("http://127.0.0.1:8000/v1"));
        assert!(is_loopback_url("http://localhost/v1"));
        assert!(is_loopback_url("http://[::1]:8000/v1"));
        assert!(!is_loopback_url("https://api.openai.com/v1"));
    }

    #[test]
    fn scripted_answers_in_order_and_records_requests() {
        let mut s = Scripted::new([
            ChatResponse {
                content: None,
                tool_calls: vec![ToolCall {
                    id: String::new(),
                    name: "activate".into(),
                    arguments: json!({"flow_id": "x"}),
                }],
            },
            ChatResponse {
                content: Some("Which card?".into()),
                tool_calls: vec![],
            },
        ]);
        let req = request();
        let first = s.complete(&req).unwrap();
        assert_eq!(first.tool_calls[0].id, "call_1_1");
        assert_eq!(
            s.complete(&req).unwrap().content.as_deref(),
            Some("Which card?")
        );
        assert_eq!(s.last_offered(), vec!["lock_card".to_string()]);
        let err = s.complete(&req).unwrap_err();
        assert_eq!(err, LlmError::ScriptExhausted { answered: 2 });
        assert_eq!(
            err.to_string(),
            "the LLM was asked for reply 3 but the test scripts only 2; add an `llm` step"
        );
        assert_eq!(s.requests.len(), 3);
    }
}
