crate::declare_rule! {
    /// ## What it does
    /// Reports `orchestrator.model_group`, a non-blank
    /// `knowledge_answering.embeddings`, or a `knowledge_stores[].embeddings` in
    /// agent.yml/integrations.yml that names no group under `model_groups` in
    /// integrations.yml.
    ///
    /// ## Why it matters
    /// The agent cannot call an LLM (or build embeddings) through a group that
    /// does not exist; it fails at start.
    ///
    /// ## Example
    /// ```yaml
    /// # agent.yml
    /// orchestrator:
    ///   model_group: gpt4
    /// # integrations.yml
    /// model_groups:
    ///   - id: default
    ///     models: [...]
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// # agent.yml
    /// orchestrator:
    ///   model_group: default
    /// ```
    pub static RULE = { code: "config.unknown_model_group", severity: Error };
}

use crate::diagnostic::Finding;
use crate::model::Model;
use crate::skill_md::Spanned;
use crate::source::FileId;
use crate::suggest::did_you_mean;

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    let Some(it) = &model.integrations else {
        // Missing integrations.yml is its own finding.
        return;
    };
    if !it.model_groups_valid {
        return;
    }
    let mut refs: Vec<(FileId, &Spanned<String>, &str, bool)> = Vec::new();
    if let Some(agent) = &model.agent {
        if let Some(g) = &agent.orchestrator.model_group {
            refs.push((agent.file, g, "orchestrator.model_group", false));
        }
        if let Some(g) = agent.knowledge.embeddings.as_ref().filter(|g| !g.value.is_empty()) {
            refs.push((agent.file, g, "knowledge_answering.embeddings", true));
        }
    }
    for g in &it.knowledge_store_embeddings {
        refs.push((it.file, g, "knowledge_stores[].embeddings", false));
    }
    for (file, g, site, clearable) in refs {
        if it.model_group(&g.value).is_some() {
            continue;
        }
        let ids = it.model_groups.iter().map(|m| m.id.value.as_str());
        let help = match did_you_mean(&g.value, ids) {
            Some(s) => format!("did you mean `{s}`?"),
            None if it.model_groups.is_empty() => format!(
                "declare it in integrations.yml: `model_groups:` → `- id: {}` with its `models`",
                g.value
            ),
            None => {
                let known: Vec<&str> = it.model_groups.iter().map(|m| m.id.value.as_str()).collect();
                let clear = if clearable {
                    " or clear the key to use the built-in embedder"
                } else {
                    ""
                };
                format!(
                    "use one of the declared groups ({}), declare `{}` under `model_groups`{clear}",
                    known.join(", "),
                    g.value
                )
            }
        };
        let mut f = RULE
            .finding(format!(
                "`{site}` names model group `{}`, which integrations.yml does not declare",
                g.value
            ))
            .at(file, g.span, "unknown model group");
        if let Some(span) = it.model_groups_span {
            f = f.label(it.file, span, "model groups are declared here");
        }
        out.push(f.help(help));
    }
}
