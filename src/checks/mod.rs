//! The checks: one rule per file, in the manner of ruff's rules.
//!
//! Every file declares one [`Rule`] with [`crate::declare_rule!`] (its doc
//! comment is what `maestro explain CODE` prints). Rules whose findings come
//! from the load or parse stage only declare the rule; the others also have
//! a `check(&Model, &mut Vec<Finding>)` function, listed in [`CHECKS`].
//! Checks read the [`Model`], never the file system.

use crate::diagnostic::{Finding, Rule};
use crate::model::{Model, Skill, ToolRef};
use rayon::prelude::*;

macro_rules! modules {
    ($($m:ident),* $(,)?) => { $(pub mod $m;)* };
}

// Load and parse stage rules.
modules!(
    files_binary,
    files_not_utf8,
    files_too_large,
    files_symlink_loop,
    files_unreadable,
    yaml_syntax,
    yaml_ambiguous_scalar,
    yaml_duplicate_key,
    yaml_alias_limit,
    yaml_multiple_documents,
    yaml_unsupported_tag,
    skill_invalid_frontmatter_delimiter,
    skill_invalid_frontmatter,
    skill_unknown_frontmatter_key,
    skill_requires_removed,
    skill_invalid_boolean_frontmatter,
    import_tools_invalid,
    tool_constraint_invalid,
    train_import_probe_skipped,
    memory_invalid_structure,
    memory_invalid_field,
    memory_invalid_access,
    memory_unknown_key,
    memory_invalid_attribute,
    memory_unknown_type,
    memory_invalid_initial_value,
    memory_public_and_private,
    memory_skill_seed,
    memory_description_required,
);

// Model checks.
modules!(
    project_missing_skills,
    skill_missing_skill_md,
    skill_invalid_id,
    skill_reserved_id,
    skill_missing_description,
    tools_reserved_name,
    tools_future_reserved_name,
    tools_missing_description,
    tools_not_async,
    tools_context_parameter,
    tools_return_annotation,
    tools_duplicate_name,
    tools_unsupported_parameter,
    tools_shadowed,
    tools_import_failed,
    tools_deferred_local_import,
    import_tools_unknown_shared_tool,
    import_tools_local_tool,
    import_tools_duplicate,
    import_tools_unknown_mcp_server,
    tools_undeclared_memory_write,
    tools_denied_memory_write,
    tools_reserved_memory_write,
    tools_qualified_memory_write,
    tools_dynamic_memory_write,
    memory_unknown_access_entry,
    hooks_unknown_entry,
    hooks_not_settable,
    hooks_signature,
    tool_constraint_unknown_tool,
    tool_constraint_invalid_condition,
    tool_constraint_unknown_memory_key,
    tool_constraint_unknown_response,
    tool_constraint_empty_response,
    tool_constraint_duplicate,
    response_invalid_condition,
    response_unknown_memory_key,
);

pub mod hooks;
// responses.yml, agent.yml and integrations.yml: parse stage rules.
modules!(
    response_invalid_variant_shape,
    response_invalid_variant_key,
    response_invalid_button,
    response_invalid_button_payload,
    response_outside_responses_key,
    response_unknown_top_level_key,
    config_invalid_agent_yml,
    config_missing_agent_section,
    config_invalid_agent_section,
    config_unknown_agent_key,
    config_invalid_integrations_yml,
    config_unknown_integration_key,
    config_unsupported_integration_key,
    config_unexpected_llm,
    config_invalid_model_server,
    config_invalid_model_group,
    config_invalid_model_group_credentials,
    config_duplicate_model_group_id,
    config_unused_model_group_models,
    config_invalid_mcp_server,
    config_duplicate_mcp_server_name,
);

// responses.yml, agent.yml and integrations.yml: model checks.
modules!(
    response_empty_body,
    response_default_required,
    response_multiple_defaults,
    response_duplicate_name,
    response_unknown_placeholder,
    config_missing_agent_yml,
    config_missing_integrations,
    config_unknown_model_group,
);

pub mod conditions;
pub mod memory_writes;

/// A check over the model.
pub type Check = fn(&Model, &mut Vec<Finding>);

/// Every rule, for `explain`, SARIF and the docs.
pub static RULES: &[&Rule] = &[
    &files_binary::RULE,
    &files_not_utf8::RULE,
    &files_too_large::RULE,
    &files_symlink_loop::RULE,
    &files_unreadable::RULE,
    &yaml_syntax::RULE,
    &yaml_ambiguous_scalar::RULE,
    &yaml_duplicate_key::RULE,
    &yaml_alias_limit::RULE,
    &yaml_multiple_documents::RULE,
    &yaml_unsupported_tag::RULE,
    &skill_invalid_frontmatter_delimiter::RULE,
    &skill_invalid_frontmatter::RULE,
    &skill_unknown_frontmatter_key::RULE,
    &skill_requires_removed::RULE,
    &skill_invalid_boolean_frontmatter::RULE,
    &import_tools_invalid::RULE,
    &tool_constraint_invalid::RULE,
    &train_import_probe_skipped::RULE,
    &memory_invalid_structure::RULE,
    &memory_invalid_field::RULE,
    &memory_invalid_access::RULE,
    &memory_unknown_key::RULE,
    &memory_invalid_attribute::RULE,
    &memory_unknown_type::RULE,
    &memory_invalid_initial_value::RULE,
    &memory_public_and_private::RULE,
    &memory_skill_seed::RULE,
    &memory_description_required::RULE,
    &project_missing_skills::RULE,
    &skill_missing_skill_md::RULE,
    &skill_invalid_id::RULE,
    &skill_reserved_id::RULE,
    &skill_missing_description::RULE,
    &tools_reserved_name::RULE,
    &tools_future_reserved_name::RULE,
    &tools_missing_description::RULE,
    &tools_not_async::RULE,
    &tools_context_parameter::RULE,
    &tools_return_annotation::RULE,
    &tools_duplicate_name::RULE,
    &tools_unsupported_parameter::RULE,
    &tools_shadowed::RULE,
    &tools_import_failed::RULE,
    &tools_deferred_local_import::RULE,
    &import_tools_unknown_shared_tool::RULE,
    &import_tools_local_tool::RULE,
    &import_tools_duplicate::RULE,
    &import_tools_unknown_mcp_server::RULE,
    &tools_undeclared_memory_write::RULE,
    &tools_denied_memory_write::RULE,
    &tools_reserved_memory_write::RULE,
    &tools_qualified_memory_write::RULE,
    &tools_dynamic_memory_write::RULE,
    &memory_unknown_access_entry::RULE,
    &hooks_unknown_entry::RULE,
    &hooks_not_settable::RULE,
    &hooks_signature::RULE,
    &response_invalid_variant_shape::RULE,
    &response_invalid_variant_key::RULE,
    &response_invalid_button::RULE,
    &response_invalid_button_payload::RULE,
    &response_outside_responses_key::RULE,
    &response_unknown_top_level_key::RULE,
    &config_invalid_agent_yml::RULE,
    &config_missing_agent_section::RULE,
    &config_invalid_agent_section::RULE,
    &config_unknown_agent_key::RULE,
    &config_invalid_integrations_yml::RULE,
    &config_unknown_integration_key::RULE,
    &config_unsupported_integration_key::RULE,
    &config_unexpected_llm::RULE,
    &config_invalid_model_server::RULE,
    &config_invalid_model_group::RULE,
    &config_invalid_model_group_credentials::RULE,
    &config_duplicate_model_group_id::RULE,
    &config_unused_model_group_models::RULE,
    &config_invalid_mcp_server::RULE,
    &config_duplicate_mcp_server_name::RULE,
    &response_empty_body::RULE,
    &response_default_required::RULE,
    &response_multiple_defaults::RULE,
    &response_duplicate_name::RULE,
    &response_unknown_placeholder::RULE,
    &config_missing_agent_yml::RULE,
    &config_missing_integrations::RULE,
    &config_unknown_model_group::RULE,
    &tool_constraint_unknown_tool::RULE,
    &tool_constraint_invalid_condition::RULE,
    &tool_constraint_unknown_memory_key::RULE,
    &tool_constraint_unknown_response::RULE,
    &tool_constraint_empty_response::RULE,
    &tool_constraint_duplicate::RULE,
    &response_invalid_condition::RULE,
    &response_unknown_memory_key::RULE,
];

/// Every check over the model.
pub static CHECKS: &[Check] = &[
    project_missing_skills::check,
    skill_missing_skill_md::check,
    skill_invalid_id::check,
    skill_reserved_id::check,
    skill_missing_description::check,
    tools_reserved_name::check,
    tools_future_reserved_name::check,
    tools_missing_description::check,
    tools_not_async::check,
    tools_context_parameter::check,
    tools_return_annotation::check,
    tools_duplicate_name::check,
    tools_unsupported_parameter::check,
    tools_shadowed::check,
    tools_import_failed::check,
    tools_deferred_local_import::check,
    import_tools_unknown_shared_tool::check,
    import_tools_local_tool::check,
    import_tools_duplicate::check,
    import_tools_unknown_mcp_server::check,
    tools_undeclared_memory_write::check,
    tools_denied_memory_write::check,
    tools_reserved_memory_write::check,
    tools_qualified_memory_write::check,
    tools_dynamic_memory_write::check,
    memory_unknown_access_entry::check,
    hooks_unknown_entry::check,
    hooks_not_settable::check,
    hooks_signature::check,
    response_empty_body::check,
    response_default_required::check,
    response_multiple_defaults::check,
    response_duplicate_name::check,
    response_unknown_placeholder::check,
    config_missing_agent_yml::check,
    config_missing_integrations::check,
    config_unknown_model_group::check,
    tool_constraint_unknown_tool::check,
    tool_constraint_invalid_condition::check,
    tool_constraint_unknown_memory_key::check,
    tool_constraint_unknown_response::check,
    tool_constraint_empty_response::check,
    tool_constraint_duplicate::check,
    response_invalid_condition::check,
    response_unknown_memory_key::check,
];

/// Look up a rule by its code.
pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.code == code)
}

/// Run every check over the model, in parallel.
pub fn run(model: &Model) -> Vec<Finding> {
    CHECKS
        .par_iter()
        .flat_map_iter(|check| {
            let mut out = Vec::new();
            check(model, &mut out);
            out
        })
        .collect()
}

/// Locate a finding about a skill as a whole: its `skill.md` header when it
/// has one, else its folder.
pub(crate) fn at_skill(skill: &Skill, f: Finding, label: &str) -> Finding {
    match (skill.skill_md, &skill.doc) {
        (Some(file), Some(doc)) => f.at(file, doc.header_span, label),
        _ => f.at_path(format!("skills/{}/", skill.id)),
    }
}

/// Whether `name` is one of the framework tool names (current or future).
pub(crate) fn is_reserved(name: &str) -> bool {
    tools_reserved_name::RESERVED.contains(&name)
        || tools_future_reserved_name::FUTURE_RESERVED.contains(&name)
}

/// The skill folder whose local modules define `name` (the later folder in
/// sort order wins), with the definition.
pub(crate) fn local_owner<'m>(model: &'m Model, name: &str) -> Option<(&'m str, ToolRef)> {
    model.skills.iter().rev().find_map(|s| {
        s.tools
            .iter()
            .find(|t| t.name == name && !t.shared)
            .map(|t| (s.id.as_str(), t.def))
    })
}

/// Report tool definitions and `import_tools` entries whose name is in
/// `names`.
pub(crate) fn reserved_names(
    model: &Model,
    names: &[&str],
    rule: &'static Rule,
    why: &str,
    out: &mut Vec<Finding>,
) {
    for m in &model.modules {
        for t in m
            .ast
            .tools
            .iter()
            .filter(|t| names.contains(&t.name.as_str()))
        {
            out.push(
                rule.finding(format!("tool `{}` uses a reserved name ({why})", t.name))
                    .at(m.file, t.name_span, "reserved name")
                    .help("rename the function to a name that says what it does; the runtime adds the framework tools itself"),
            );
        }
    }
    for skill in &model.skills {
        let (Some(doc), Some(file)) = (&skill.doc, skill.skill_md) else {
            continue;
        };
        for entry in &doc.import_tools {
            let bare = entry
                .value
                .strip_prefix("mcp/")
                .and_then(|r| r.split_once(':').map(|(_, t)| t))
                .unwrap_or(&entry.value);
            if names.contains(&bare) {
                out.push(
                    rule.finding(format!(
                        "`import_tools` entry `{}` uses a reserved name ({why})",
                        entry.value
                    ))
                    .at(file, entry.span, "reserved name")
                    .help("framework tools are offered automatically; rename the imported tool"),
                );
            }
        }
    }
}

/// Every `import_tools` entry of every skill, with the skill and its
/// `skill.md`.
pub(crate) fn import_entries(
    model: &Model,
) -> impl Iterator<
    Item = (
        &Skill,
        crate::source::FileId,
        &crate::skill_md::Spanned<String>,
    ),
> {
    model.skills.iter().flat_map(|skill| {
        let file = skill.skill_md;
        skill
            .doc
            .iter()
            .flat_map(|d| d.import_tools.iter())
            .filter_map(move |entry| file.map(|f| (skill, f, entry)))
    })
}
