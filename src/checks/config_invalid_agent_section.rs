crate::declare_rule! {
    /// ## What it does
    /// Reports every problem of agent.yml's typed keys: a missing or blank
    /// `agent.persona`; a missing `orchestrator` or `orchestrator.model_group`;
    /// unknown keys in `orchestrator` and its blocks;
    /// `orchestrator.tool_constraints` for a tool that is not configurable,
    /// disabling a tool that cannot be disabled, `requires_confirmation` on
    /// anything but `cancel`; incomplete `preconditions`; wrong types (`rules`
    /// items, `max_prompt_tokens`, `tool_timeout`, `knowledge_answering`,
    /// `skill_retrieval`, `fillers`, `voice`, `session_config`); and a
    /// `chunk_overlap` not smaller than `chunk_size`.
    ///
    /// ## Why it matters
    /// The engine refuses to load an agent.yml with any of these problems (it
    /// reports only the first; maestro reports all, each at its place).
    ///
    /// ## Example
    /// ```yaml
    /// agent:
    ///   persona: You help customers.
    /// orchestrator:
    ///   model_group: default
    ///   tool_constraints:
    ///     cancel_skill:
    ///       enabled: false
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// agent:
    ///   persona: You help customers.
    /// orchestrator:
    ///   model_group: default
    ///   tool_constraints:
    ///     cancel:
    ///       enabled: false
    /// ```
    pub static RULE = { code: "config.invalid_agent_section", severity: Error };
}
