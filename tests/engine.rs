//! The engine's guarantees, step by step, on the packaged example project.
//! Tool outcomes are fed by the test (the engine has no I/O), so these
//! tests need no Python and no LLM.

mod common;

use common::unanswered;
use maestro::manifest::Hook;
use maestro::runtime::engine::{self, Conversation, Engine, Event, Input, Next, Output};
use maestro::runtime::types::{ChatResponse, Role, ToolCall, ToolHost, ToolOutcome};
use serde_json::{json, Value};
use std::sync::OnceLock;

fn engine() -> Engine {
    engine_with(|_| {})
}

/// The example's engine, with the manifest edited first.
fn engine_with(edit: impl FnOnce(&mut maestro::manifest::Manifest)) -> Engine {
    static MODEL: OnceLock<Vec<u8>> = OnceLock::new();
    let bytes = MODEL.get_or_init(|| common::trained_model("examples/card_bank", "engine"));
    let mut model = maestro::runtime::load_model(bytes).unwrap();
    edit(&mut model.manifest);
    Engine::new(model.manifest, model.knowledge)
}

/// The `card_replace` skill of a manifest being edited.
fn card_replace(m: &mut maestro::manifest::Manifest) -> &mut maestro::manifest::Skill {
    m.skills
        .iter_mut()
        .find(|s| s.id == "card_replace")
        .unwrap()
}

/// A tool of `card_replace` in a manifest being edited.
fn card_tool<'a>(
    m: &'a mut maestro::manifest::Manifest,
    name: &str,
) -> &'a mut maestro::manifest::Tool {
    card_replace(m)
        .tools
        .iter_mut()
        .find(|t| t.name == name)
        .unwrap()
}

/// The example's engine with post-write hooks of `card_replace` for these
/// entries (`run_after_setting_<entry>` in its tools.py), replacing any.
fn engine_with_hooks(entries: &[&str]) -> Engine {
    engine_with(|m| {
        let skill = card_replace(m);
        for entry in entries {
            skill.hooks.retain(|h| h.entry != *entry);
            skill.hooks.push(Hook {
                entry: entry.to_string(),
                module: "skills/card_replace/tools.py".into(),
                function: format!("run_after_setting_{entry}"),
            });
        }
    })
}

fn call(name: &str, args: Value) -> ChatResponse {
    ChatResponse {
        content: None,
        tool_calls: vec![ToolCall {
            id: format!("call_{name}"),
            name: name.into(),
            arguments: args,
        }],
    }
}

fn offered(out: &Output) -> Vec<String> {
    match &out.next {
        Next::CallLlm(req) => req.tools.iter().map(|t| t.name.clone()).collect(),
        other => panic!("expected an LLM call, got {other:?}"),
    }
}

fn last_tool_result(conv: &Conversation) -> String {
    conv.history
        .iter()
        .rev()
        .find(|m| m.role == Role::Tool)
        .and_then(|m| m.content.clone())
        .unwrap_or_default()
}

fn executed(conv: &Conversation, name: &str) -> usize {
    conv.events
        .iter()
        .filter(|e| matches!(e, Event::ToolExecuted { name: n, .. } if n == name))
        .count()
}

/// What a running tool's `context.memory.set(name, value)` gets.
fn tool_sets(e: &Engine, conv: &mut Conversation, name: &str, value: Value) -> Result<(), String> {
    let mut deliver = |_: &str| {};
    let never = || false;
    e.host(conv, &mut deliver, &never).memory_set(name, value)
}

/// Start the card_replace skill.
fn in_card_replace(e: &Engine) -> (Conversation, Output) {
    let mut conv = Conversation::default();
    e.step(&mut conv, Input::User("I lost my card".into()));
    let out = e.step(
        &mut conv,
        Input::Llm(call("activate", json!({"flow_id": "card_replace"}))),
    );
    assert_eq!(conv.active(), Some("card_replace"));
    (conv, out)
}

#[test]
fn no_llm_call_before_the_first_user_message_and_activate_lists_startable_skills() {
    let e = engine();
    let mut conv = Conversation::default();
    let out = e.step(&mut conv, Input::User("hi".into()));
    let Next::CallLlm(req) = &out.next else {
        panic!()
    };
    let activate = req.tools.iter().find(|t| t.name == "activate").unwrap();
    assert_eq!(
        activate.parameters["properties"]["flow_id"]["enum"],
        json!(["card_replace", "check_balance", "update_address"])
    );
    // No skill active: no lifecycle or builder tools; a knowledge base
    // exists, so cannot_help waits for a search.
    assert_eq!(offered(&out), ["activate", "search_knowledge"]);
}

#[test]
fn a_gated_tool_is_absent_until_its_condition_holds() {
    let e = engine();
    let (mut conv, out) = in_card_replace(&e);
    let tools = offered(&out);
    assert!(tools.contains(&"get_customer_info".to_string()));
    assert!(!tools.contains(&"lock_card".to_string()));
    // A tool writes the project field the gate reads...
    let out = e.step(&mut conv, Input::Llm(call("get_customer_info", json!({}))));
    assert!(matches!(out.next, Next::RunTool(ref r) if r.name == "get_customer_info"));
    tool_sets(&e, &mut conv, "selected_card_id", json!("C-100")).unwrap();
    let out = e.step(
        &mut conv,
        Input::Tool(ToolOutcome::Ok(json!({"cards": []}))),
    );
    // ...and the next LLM call in the same turn offers it.
    assert!(offered(&out).contains(&"lock_card".to_string()));
}

#[test]
fn a_forced_call_of_a_hidden_tool_is_refused_and_never_runs() {
    let e = engine();
    let (mut conv, _) = in_card_replace(&e);
    let out = e.step(&mut conv, Input::Llm(call("lock_card", json!({}))));
    assert!(
        matches!(out.next, Next::CallLlm(_)),
        "the tool must not run"
    );
    assert!(last_tool_result(&conv).contains("gating condition is not met"));
    assert_eq!(executed(&conv, "lock_card"), 0);
}

fn confirmable(e: &Engine) -> Conversation {
    let (mut conv, _) = in_card_replace(e);
    e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"order_confirmed": true}))),
    );
    // The LLM calls the tool and, in the same batch, tries to resolve it.
    let out = e.step(
        &mut conv,
        Input::Llm(ChatResponse {
            content: None,
            tool_calls: vec![
                ToolCall {
                    id: "call_1".into(),
                    name: "process_card_replacement".into(),
                    arguments: json!({"express": true}),
                },
                ToolCall {
                    id: "call_2".into(),
                    name: "resolve_tool_confirmation".into(),
                    arguments: json!({"confirmed": true}),
                },
            ],
        }),
    );
    // Held, not run; the question is the turn's reply: no further LLM call.
    assert_eq!(out.next, Next::WaitForUser, "held, not run");
    assert_eq!(out.say, ["Shall I order the replacement card now?"]);
    assert!(conv.pending.is_some());
    // The same turn cannot resolve it.
    assert!(last_tool_result(&conv).contains("Wait for the user's answer"));
    assert_eq!(executed(&conv, "process_card_replacement"), 0);
    conv
}

#[test]
fn an_approved_confirmation_runs_the_tool_once() {
    let e = engine();
    let mut conv = confirmable(&e);
    e.step(&mut conv, Input::User("yes".into()));
    let out = e.step(
        &mut conv,
        Input::Llm(call(
            "resolve_tool_confirmation",
            json!({"confirmed": true}),
        )),
    );
    let Next::RunTool(run) = &out.next else {
        panic!("{out:?}")
    };
    assert_eq!(run.name, "process_card_replacement");
    assert_eq!(run.arguments, json!({"express": true}));
    let out = e.step(
        &mut conv,
        Input::Tool(ToolOutcome::Ok(json!({"order_id": "R-1"}))),
    );
    assert_eq!(
        out.say,
        ["Your new card will arrive within 5 business days."]
    );
    assert_eq!(executed(&conv, "process_card_replacement"), 1);
    assert!(conv.pending.is_none());
}

#[test]
fn a_denied_confirmation_never_runs_the_tool() {
    let e = engine();
    let mut conv = confirmable(&e);
    e.step(&mut conv, Input::User("no".into()));
    let out = e.step(
        &mut conv,
        Input::Llm(call(
            "resolve_tool_confirmation",
            json!({"confirmed": false}),
        )),
    );
    assert_eq!(
        out.next,
        Next::WaitForUser,
        "the denial response is the turn's reply"
    );
    assert_eq!(out.say, ["Okay, I have not ordered a replacement."]);
    assert_eq!(executed(&conv, "process_card_replacement"), 0);
    assert!(conv.events.contains(&Event::ConfirmationResolved {
        tool: "process_card_replacement".into(),
        confirmed: false
    }));
}

#[test]
fn the_gate_is_checked_again_when_a_confirmation_is_approved() {
    let e = engine();
    let mut conv = confirmable(&e);
    e.step(&mut conv, Input::User("yes".into()));
    // The condition stopped holding in between.
    conv.memory.remove("card_replace.order_confirmed");
    let out = e.step(
        &mut conv,
        Input::Llm(call(
            "resolve_tool_confirmation",
            json!({"confirmed": true}),
        )),
    );
    assert!(matches!(out.next, Next::CallLlm(_)), "must not run");
    assert!(last_tool_result(&conv).contains("gating condition is not met"));
}

#[test]
fn a_hook_error_rolls_the_write_back() {
    let e = engine_with_hooks(&["replacement_reason"]);
    let (mut conv, _) = in_card_replace(&e);
    let out = e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"replacement_reason": "bored"}))),
    );
    let Next::RunTool(run) = &out.next else {
        panic!("{out:?}")
    };
    assert_eq!(run.function, "run_after_setting_replacement_reason");
    assert_eq!(
        conv.memory.get("card_replace.replacement_reason"),
        Some(&json!("bored"))
    );
    // The hook also writes something, then rejects.
    tool_sets(&e, &mut conv, "replacement_order_id", json!("tmp")).unwrap();
    let out = e.step(
        &mut conv,
        Input::Tool(ToolOutcome::Ok(json!({"error": "Not a valid reason."}))),
    );
    assert!(matches!(out.next, Next::CallLlm(_)));
    assert!(!conv.memory.contains_key("card_replace.replacement_reason"));
    assert!(!conv
        .memory
        .contains_key("card_replace.replacement_order_id"));
    assert!(last_tool_result(&conv).contains("memory validation tool failed: Not a valid reason."));
    assert!(
        !conv.events.iter().any(|e| matches!(e, Event::MemorySet { name, .. } if name == "card_replace.replacement_reason")),
        "a rejected write is never recorded as set"
    );
    // {"error": null} is success.
    let out = e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"replacement_reason": "lost"}))),
    );
    assert!(matches!(out.next, Next::RunTool(_)));
    e.step(
        &mut conv,
        Input::Tool(ToolOutcome::Ok(json!({"error": null}))),
    );
    assert_eq!(
        conv.memory.get("card_replace.replacement_reason"),
        Some(&json!("lost"))
    );
}

#[test]
fn an_undeclared_write_from_a_tool_is_an_error_for_the_tool() {
    let e = engine();
    let (mut conv, _) = in_card_replace(&e);
    e.step(&mut conv, Input::Llm(call("get_customer_info", json!({}))));
    let err = tool_sets(&e, &mut conv, "not_declared_anywhere", json!(1)).unwrap_err();
    assert!(err.contains("not declared"), "{err}");
    assert!(tool_sets(&e, &mut conv, "system.language", json!("de")).is_err());
    assert!(tool_sets(&e, &mut conv, "project.customer_id", json!("x")).is_err());
}

#[test]
fn a_cancelled_tool_keeps_its_memory_writes_and_is_not_recorded() {
    let e = engine();
    let (mut conv, _) = in_card_replace(&e);
    e.step(&mut conv, Input::Llm(call("get_customer_info", json!({}))));
    tool_sets(&e, &mut conv, "customer_id", json!("U-1")).unwrap();
    let out = e.step(&mut conv, Input::Tool(ToolOutcome::Cancelled));
    assert_eq!(out.next, Next::WaitForUser);
    assert_eq!(conv.memory.get("project.customer_id"), Some(&json!("U-1")));
    assert_eq!(executed(&conv, "get_customer_info"), 0);
    assert!(conv
        .events
        .iter()
        .any(|e| matches!(e, Event::ToolCancelled { name, .. } if name == "get_customer_info")));
}

#[test]
fn a_timeout_reaches_the_llm_and_the_conversation_goes_on() {
    let e = engine();
    let (mut conv, _) = in_card_replace(&e);
    e.step(&mut conv, Input::Llm(call("get_customer_info", json!({}))));
    let out = e.step(&mut conv, Input::Tool(ToolOutcome::Timeout(10.0)));
    assert!(matches!(out.next, Next::CallLlm(_)));
    assert!(last_tool_result(&conv).contains("timed out after 10.0 seconds"));
}

#[test]
fn after_search_knowledge_only_the_collapsed_set_is_offered() {
    let e = engine();
    let (mut conv, out) = in_card_replace(&e);
    assert!(
        !offered(&out).contains(&"cannot_help".to_string()),
        "withheld until a search ran"
    );
    let out = e.step(
        &mut conv,
        Input::Llm(call(
            "search_knowledge",
            json!({"query": "express delivery cost"}),
        )),
    );
    assert!(last_tool_result(&conv).contains("Express delivery"));
    let mut tools = offered(&out);
    tools.sort();
    assert_eq!(tools, ["activate", "cannot_help", "search_knowledge"]);
    // A builder tool called anyway is refused.
    let out = e.step(&mut conv, Input::Llm(call("get_customer_info", json!({}))));
    assert!(matches!(out.next, Next::CallLlm(_)));
    // The next turn offers the skill's tools again.
    e.step(
        &mut conv,
        Input::Llm(ChatResponse {
            content: Some("It costs 15 USD.".into()),
            tool_calls: vec![],
        }),
    );
    let out = e.step(&mut conv, Input::User("ok".into()));
    assert!(offered(&out).contains(&"get_customer_info".to_string()));
}

#[test]
fn set_fields_does_not_overwrite_and_correct_does() {
    let e = engine();
    let (mut conv, _) = in_card_replace(&e);
    e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"order_confirmed": true}))),
    );
    let out = e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"order_confirmed": false}))),
    );
    assert!(last_tool_result(&conv).contains("call `correct`"));
    assert_eq!(conv.memory["card_replace.order_confirmed"], json!(true));
    assert!(offered(&out).contains(&"correct".to_string()));
    e.step(
        &mut conv,
        Input::Llm(call(
            "correct",
            json!({"memory_key": "order_confirmed", "value": false}),
        )),
    );
    assert_eq!(conv.memory["card_replace.order_confirmed"], json!(false));
    // Undeclared or unsettable names are refused.
    e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"replacement_order_id": "x"}))),
    );
    assert!(last_tool_result(&conv).contains("not a settable field"));
}

#[test]
fn events_are_recorded_in_order() {
    let e = engine();
    let (mut conv, _) = in_card_replace(&e);
    e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"order_confirmed": true}))),
    );
    e.step(&mut conv, Input::Llm(call("complete_skill", json!({}))));
    let kinds: Vec<String> = conv
        .events
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "user_uttered",
            "skill_activated",
            "tool_executed", // activate
            "memory_set",
            "tool_executed", // set_fields
            "skill_completed",
            "tool_executed", // complete_skill
        ]
    );
}

#[test]
fn invalid_arguments_are_refused_before_the_tool_runs() {
    let e = engine();
    let mut conv = Conversation::default();
    e.step(&mut conv, Input::User("balance?".into()));
    e.step(
        &mut conv,
        Input::Llm(call("activate", json!({"flow_id": "check_balance"}))),
    );
    let out = e.step(
        &mut conv,
        Input::Llm(call("check_balance", json!({"account": 5}))),
    );
    assert!(matches!(out.next, Next::CallLlm(_)));
    let result = last_tool_result(&conv);
    assert!(
        result.contains("Missing required argument(s): 'account_id'."),
        "{result}"
    );
    assert!(
        result.contains("Unexpected argument(s): 'account'."),
        "{result}"
    );
    let out = e.step(
        &mut conv,
        Input::Llm(call("check_balance", json!({"account_id": "A-1"}))),
    );
    assert!(matches!(out.next, Next::RunTool(_)));
}

/// The events as JSON, without `tool_executed` (every call records one).
fn kinds(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| !matches!(e, Event::ToolExecuted { .. }))
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

fn activate_enum(out: &Output) -> Value {
    let Next::CallLlm(req) = &out.next else {
        panic!("expected an LLM call, got {:?}", out.next)
    };
    req.tools
        .iter()
        .find(|t| t.name == "activate")
        .map(|t| t.parameters["properties"]["flow_id"]["enum"].clone())
        .unwrap_or(Value::Null)
}

fn system_prompt(out: &Output) -> String {
    let Next::CallLlm(req) = &out.next else {
        panic!("expected an LLM call, got {:?}", out.next)
    };
    req.messages[0].content.clone().unwrap_or_default()
}

/// card_replace with a reason recorded, then the user digresses to
/// check_balance.
fn digressed(e: &Engine) -> (Conversation, Output) {
    let (mut conv, _) = in_card_replace(e);
    e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"replacement_reason": "lost"}))),
    );
    let before = conv.events.len();
    let out = e.step(
        &mut conv,
        Input::Llm(call("activate", json!({"flow_id": "check_balance"}))),
    );
    assert_eq!(
        kinds(&conv.events[before..]),
        [
            json!({"type": "skill_interrupted", "skill": "card_replace", "to": "check_balance"}),
            json!({"type": "skill_activated", "skill": "check_balance"}),
        ]
    );
    (conv, out)
}

#[test]
fn a_digression_interrupts_the_active_skill_and_keeps_it_resumable() {
    let e = engine();
    let (conv, out) = digressed(&e);
    assert_eq!(conv.active(), Some("check_balance"));
    let tools = offered(&out);
    assert!(tools.contains(&"check_balance".to_string()));
    assert!(
        !tools.contains(&"get_customer_info".to_string()),
        "the parked skill's tools are not offered: {tools:?}"
    );
    assert_eq!(
        activate_enum(&out),
        json!(["update_address", "card_replace"]),
        "the parked skill can be resumed with activate"
    );
    assert!(system_prompt(&out).contains("## Interrupted skills\n"));
}

#[test]
fn completing_the_digression_offers_to_resume_and_activate_resumes_with_memory() {
    let e = engine();
    let (mut conv, _) = digressed(&e);
    let out = e.step(&mut conv, Input::Llm(call("complete_skill", json!({}))));
    // The offer: nothing is active, the parked skill is on offer.
    assert_eq!(conv.active(), None);
    assert_eq!(conv.resume_offer(), Some("card_replace"));
    let result: Value = serde_json::from_str(&last_tool_result(&conv)).unwrap();
    assert_eq!(result["status"], "completed");
    assert_eq!(result["interrupted_skill"], "card_replace");
    assert_eq!(
        offered(&out),
        ["activate", "search_knowledge", "cancel_skill"]
    );
    assert_eq!(
        activate_enum(&out),
        json!(["check_balance", "update_address", "card_replace"])
    );
    assert!(system_prompt(&out).contains(
        "## Interrupted skill\nThe user's earlier request was interrupted: card_replace"
    ));

    let before = conv.events.len();
    let out = e.step(
        &mut conv,
        Input::Llm(call("activate", json!({"flow_id": "card_replace"}))),
    );
    assert_eq!(
        kinds(&conv.events[before..]),
        [json!({"type": "skill_resumed", "skill": "card_replace"})],
        "resuming is not a new run: no activation, no memory reset"
    );
    assert_eq!(conv.active(), Some("card_replace"));
    assert_eq!(
        conv.memory["card_replace.replacement_reason"],
        json!("lost")
    );
    assert!(offered(&out).contains(&"get_customer_info".to_string()));
}

#[test]
fn cancel_skill_during_the_offer_drops_the_parked_skill() {
    let e = engine();
    let (mut conv, _) = digressed(&e);
    e.step(&mut conv, Input::Llm(call("cancel_skill", json!({}))));
    assert_eq!(
        conv.resume_offer(),
        Some("card_replace"),
        "cancelling the digression also offers"
    );
    let before = conv.events.len();
    let out = e.step(&mut conv, Input::Llm(call("cancel_skill", json!({}))));
    assert_eq!(
        kinds(&conv.events[before..]),
        [json!({"type": "skill_cancelled", "skill": "card_replace"})]
    );
    assert!(conv.stack.is_empty());
    assert!(!offered(&out).contains(&"cancel_skill".to_string()));
}

#[test]
fn resuming_a_parked_skill_from_another_skill_interrupts_that_one() {
    let e = engine();
    let (mut conv, _) = digressed(&e);
    let before = conv.events.len();
    e.step(
        &mut conv,
        Input::Llm(call("activate", json!({"flow_id": "card_replace"}))),
    );
    assert_eq!(
        kinds(&conv.events[before..]),
        [
            json!({"type": "skill_interrupted", "skill": "check_balance", "to": "card_replace"}),
            json!({"type": "skill_resumed", "skill": "card_replace"}),
        ]
    );
    assert_eq!(conv.active(), Some("card_replace"));
    assert_eq!(conv.interrupted().collect::<Vec<_>>(), ["check_balance"]);
}

#[test]
fn a_pending_confirmation_waits_while_its_skill_is_parked() {
    let e = engine();
    let mut conv = confirmable(&e);
    e.step(&mut conv, Input::User("what is my balance first?".into()));
    let out = e.step(
        &mut conv,
        Input::Llm(call("activate", json!({"flow_id": "check_balance"}))),
    );
    assert!(conv.pending.is_some());
    assert!(!offered(&out).contains(&"resolve_tool_confirmation".to_string()));
    e.step(&mut conv, Input::Llm(call("complete_skill", json!({}))));
    let out = e.step(
        &mut conv,
        Input::Llm(call("activate", json!({"flow_id": "card_replace"}))),
    );
    assert!(last_tool_result(&conv).contains("still pending"));
    assert!(offered(&out).contains(&"resolve_tool_confirmation".to_string()));
}

#[test]
fn a_new_run_resets_the_skill_memory_to_its_initial_values() {
    let e = engine_with(|m| {
        let fields = &mut m.memory.skills.get_mut("card_replace").unwrap().fields;
        let f = fields
            .iter_mut()
            .find(|f| f.name == "replacement_reason")
            .unwrap();
        f.initial_value = Some(json!("unknown"));
    });
    let (mut conv, _) = in_card_replace(&e);
    assert_eq!(
        conv.memory["card_replace.replacement_reason"],
        json!("unknown")
    );
    let activated = conv
        .events
        .iter()
        .position(|e| matches!(e, Event::SkillActivated { .. }))
        .unwrap();
    assert!(
        matches!(&conv.events[activated - 1], Event::MemorySet { name, .. } if name == "card_replace.replacement_reason"),
        "reset writes come before the activation: {:?}",
        conv.events
    );
    e.step(
        &mut conv,
        Input::Llm(call(
            "correct",
            json!({"memory_key": "replacement_reason", "value": "stolen"}),
        )),
    );
    e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"order_confirmed": true}))),
    );
    e.step(&mut conv, Input::Llm(call("complete_skill", json!({}))));
    assert_eq!(
        conv.memory["card_replace.replacement_reason"],
        json!("stolen")
    );
    // A new run: back to the initial value; a field without one is cleared.
    let before = conv.events.len();
    e.step(
        &mut conv,
        Input::Llm(call("activate", json!({"flow_id": "card_replace"}))),
    );
    assert_eq!(
        kinds(&conv.events[before..]),
        [
            // In declaration order: schema.public, then schema.private.
            json!({"type": "memory_cleared", "name": "card_replace.order_confirmed"}),
            json!({"type": "memory_set", "name": "card_replace.replacement_reason", "value": "unknown"}),
            json!({"type": "skill_activated", "skill": "card_replace"}),
        ]
    );
}

#[test]
fn framework_tool_calls_are_recorded_and_their_arguments_checked() {
    let e = engine();
    let mut conv = Conversation::default();
    e.step(&mut conv, Input::User("hi".into()));
    e.step(
        &mut conv,
        Input::Llm(call(
            "activate",
            json!({"flow_id": "check_balance", "extra": 1}),
        )),
    );
    assert_eq!(conv.active(), None, "invalid arguments: nothing happens");
    assert!(last_tool_result(&conv).contains("Invalid tool arguments"));
    e.step(
        &mut conv,
        Input::Llm(call("activate", json!({"flow_id": "check_balance"}))),
    );
    let runs: Vec<(String, bool)> = conv
        .events
        .iter()
        .filter_map(|e| match e {
            Event::ToolExecuted { name, is_error, .. } => Some((name.clone(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(runs, [("activate".to_string(), false)]);
    assert!(
        matches!(&conv.events[1], Event::ToolRefused { name, reason, .. } if name == "activate" && reason.starts_with("Invalid tool arguments"))
    );
}

#[test]
fn a_second_confirmation_is_refused_while_one_is_pending() {
    let e = engine();
    let mut conv = confirmable(&e);
    e.step(&mut conv, Input::User("hmm, express please".into()));
    let out = e.step(
        &mut conv,
        Input::Llm(call("process_card_replacement", json!({"express": true}))),
    );
    assert!(
        matches!(out.next, Next::CallLlm(_)),
        "refused, not held again"
    );
    assert!(out.say.is_empty(), "the question is not asked twice");
    assert!(last_tool_result(&conv).contains("is awaiting confirmation"));
    assert!(
        matches!(conv.events.last(), Some(Event::ToolRefused { name, .. }) if name == "process_card_replacement")
    );
    assert_eq!(executed(&conv, "process_card_replacement"), 0);
}

fn tool_result(conv: &Conversation, id: &str) -> String {
    conv.history
        .iter()
        .find(|m| m.tool_call_id.as_deref() == Some(id))
        .and_then(|m| m.content.clone())
        .unwrap_or_default()
}

/// Two calls in one response: a Python tool, then `complete_skill`.
fn two_calls() -> ChatResponse {
    let mut both = call("get_customer_info", json!({}));
    both.tool_calls
        .extend(call("complete_skill", json!({})).tool_calls);
    both
}

#[test]
fn a_cancelled_tool_answers_every_call_the_turn_did_not_run() {
    let e = engine();
    let (mut conv, _) = in_card_replace(&e);
    let out = e.step(&mut conv, Input::Llm(two_calls()));
    assert!(matches!(out.next, Next::RunTool(ref run) if run.name == "get_customer_info"));
    let out = e.step(&mut conv, Input::Tool(ToolOutcome::Cancelled));
    assert_eq!(out.next, Next::WaitForUser);
    assert_eq!(unanswered(&conv.history), Vec::<String>::new());
    assert!(tool_result(&conv, "call_complete_skill").contains(engine::NOT_RUN));
    assert_eq!(
        conv.active(),
        Some("card_replace"),
        "the queued call never ran"
    );
    assert_eq!(executed(&conv, "complete_skill"), 0);
    // The next turn's request is a history a server accepts.
    let out = e.step(&mut conv, Input::User("never mind".into()));
    let Next::CallLlm(req) = out.next else {
        panic!("{out:?}")
    };
    assert_eq!(unanswered(&req.messages), Vec::<String>::new());
    assert_eq!(req.messages.last().unwrap().role, Role::User);
}

#[test]
fn a_user_message_mid_turn_answers_the_calls_left_behind() {
    let e = engine();
    let (mut conv, _) = in_card_replace(&e);
    e.step(&mut conv, Input::Llm(two_calls()));
    // The driver gives up on the running tool and starts a new turn.
    let out = e.step(&mut conv, Input::User("actually, stop".into()));
    let Next::CallLlm(req) = out.next else {
        panic!("{out:?}")
    };
    assert_eq!(unanswered(&req.messages), Vec::<String>::new());
    assert!(tool_result(&conv, "call_get_customer_info").contains(engine::NOT_RUN));
    assert!(tool_result(&conv, "call_complete_skill").contains(engine::NOT_RUN));
    assert_eq!(
        req.messages.last().unwrap().content.as_deref(),
        Some("actually, stop")
    );
    assert_eq!(conv.active(), Some("card_replace"));
}

#[test]
fn a_cancelled_hook_rolls_its_write_back_and_ends_the_turn() {
    let e = engine_with_hooks(&["order_confirmed"]);
    let (mut conv, _) = in_card_replace(&e);
    // `order_confirmed` (hooked) is written first, `replacement_reason` next.
    let mut batch = call(
        "set_fields",
        json!({"order_confirmed": true, "replacement_reason": "lost"}),
    );
    batch
        .tool_calls
        .extend(call("complete_skill", json!({})).tool_calls);
    let out = e.step(&mut conv, Input::Llm(batch));
    assert!(
        matches!(out.next, Next::RunTool(ref run) if run.function == "run_after_setting_order_confirmed")
    );
    let out = e.step(&mut conv, Input::Tool(ToolOutcome::Cancelled));
    assert_eq!(out.next, Next::WaitForUser);
    assert!(!conv.memory.contains_key("card_replace.order_confirmed"));
    assert!(
        !conv.memory.contains_key("card_replace.replacement_reason"),
        "the rest of the batch is not written"
    );
    let result = tool_result(&conv, "call_set_fields");
    assert!(
        result.contains("order_confirmed: not set: the turn was interrupted"),
        "{result}"
    );
    assert!(
        result.contains("replacement_reason: not set: the turn was interrupted"),
        "{result}"
    );
    assert!(tool_result(&conv, "call_complete_skill").contains(engine::NOT_RUN));
    assert_eq!(unanswered(&conv.history), Vec::<String>::new());
    assert_eq!(conv.active(), Some("card_replace"));
}

#[test]
fn tool_states_show_every_tool_with_its_gate_result() {
    let e = engine();
    let (mut conv, _) = in_card_replace(&e);
    let lock = |conv: &Conversation| {
        e.tool_states(conv)
            .into_iter()
            .find(|t| t.name == "lock_card")
            .unwrap()
    };
    let before = lock(&conv);
    assert!(!before.offered);
    assert_eq!(
        before.requires.as_deref(),
        Some("session.project.selected_card_id")
    );
    assert_eq!(before.gate_holds, Some(false));
    tool_sets(&e, &mut conv, "selected_card_id", json!("C-100")).unwrap();
    let after = lock(&conv);
    assert!(after.offered);
    assert_eq!(after.gate_holds, Some(true));
    let panel: Vec<String> = e
        .tool_states(&conv)
        .into_iter()
        .filter(|t| t.offered)
        .map(|t| t.name)
        .collect();
    let out = e.step(&mut conv, Input::User("and now?".into()));
    assert_eq!(
        offered(&out),
        panel,
        "the panel lists what the LLM is offered"
    );
}

#[test]
fn activating_the_active_skill_again_is_a_note_not_a_new_run() {
    let e = engine();
    let (mut conv, _) = in_card_replace(&e);
    e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"replacement_reason": "lost"}))),
    );
    let before = conv.events.len();
    e.step(
        &mut conv,
        Input::Llm(call("activate", json!({"flow_id": "card_replace"}))),
    );
    assert!(last_tool_result(&conv).contains("already the active skill"));
    assert_eq!(kinds(&conv.events[before..]), Vec::<Value>::new());
    assert_eq!(
        conv.memory["card_replace.replacement_reason"],
        json!("lost")
    );
    assert_eq!(conv.stack.len(), 1);
}

#[test]
fn writes_inside_a_hook_do_not_trigger_hooks() {
    let e = engine_with_hooks(&["replacement_reason", "order_confirmed"]);
    let (mut conv, _) = in_card_replace(&e);
    let out = e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"replacement_reason": "lost"}))),
    );
    assert!(
        matches!(&out.next, Next::RunTool(r) if r.function == "run_after_setting_replacement_reason")
    );
    // The hook writes a field that has a hook of its own...
    tool_sets(&e, &mut conv, "order_confirmed", json!(true)).unwrap();
    let out = e.step(&mut conv, Input::Tool(ToolOutcome::Ok(json!({}))));
    // ...which does not run: the turn goes back to the LLM.
    assert!(matches!(out.next, Next::CallLlm(_)), "{:?}", out.next);
    assert_eq!(conv.memory["card_replace.order_confirmed"], json!(true));
    // A top-level set_fields write of that field does run its hook.
    let out = e.step(
        &mut conv,
        Input::Llm(call(
            "correct",
            json!({"memory_key": "order_confirmed", "value": false}),
        )),
    );
    assert!(
        matches!(&out.next, Next::RunTool(r) if r.function == "run_after_setting_order_confirmed")
    );
}

#[test]
fn on_failure_is_sent_when_the_confirmed_tool_fails() {
    let e = engine();
    let mut conv = confirmable(&e);
    e.step(&mut conv, Input::User("yes".into()));
    e.step(
        &mut conv,
        Input::Llm(call(
            "resolve_tool_confirmation",
            json!({"confirmed": true}),
        )),
    );
    let out = e.step(
        &mut conv,
        Input::Tool(ToolOutcome::Error("backend down".into())),
    );
    assert_eq!(
        out.say,
        ["Sorry, the replacement could not be ordered. Please try again later."]
    );
    assert!(matches!(out.next, Next::CallLlm(_)));
}

#[test]
fn a_confirmation_without_responses_lets_the_llm_ask() {
    let e = engine_with(|m| {
        let tool = card_tool(m, "process_card_replacement");
        let conf = tool.confirmation.as_mut().unwrap();
        conf.utter_for_confirmation = None;
        conf.utter_on_user_denial = None;
    });
    let (mut conv, _) = in_card_replace(&e);
    e.step(
        &mut conv,
        Input::Llm(call("set_fields", json!({"order_confirmed": true}))),
    );
    let out = e.step(
        &mut conv,
        Input::Llm(call("process_card_replacement", json!({"express": false}))),
    );
    // Nothing is said by the engine; the LLM is asked to phrase the question.
    assert!(out.say.is_empty());
    assert!(conv.pending.is_some());
    assert!(system_prompt(&out).contains("Ask them to confirm it now"));
    e.step(&mut conv, Input::User("no thanks".into()));
    let out = e.step(
        &mut conv,
        Input::Llm(call(
            "resolve_tool_confirmation",
            json!({"confirmed": false}),
        )),
    );
    assert!(out.say.is_empty(), "the LLM phrases the denial");
    assert!(matches!(out.next, Next::CallLlm(_)));
    assert_eq!(executed(&conv, "process_card_replacement"), 0);
}

#[test]
fn a_gate_that_cannot_be_evaluated_keeps_the_tool_hidden() {
    let e = engine_with(|m| {
        let tool = card_tool(m, "lock_card");
        // A text compared with a number: an evaluation error.
        tool.gate = Some(maestro::manifest::Gate::compile(
            "session.project.selected_card_id > 3",
        ));
    });
    let (mut conv, _) = in_card_replace(&e);
    tool_sets(&e, &mut conv, "selected_card_id", json!("C-100")).unwrap();
    let out = e.step(&mut conv, Input::User("lock it".into()));
    assert!(!offered(&out).contains(&"lock_card".to_string()));
    e.step(&mut conv, Input::Llm(call("lock_card", json!({}))));
    assert_eq!(executed(&conv, "lock_card"), 0, "fails closed");
}
