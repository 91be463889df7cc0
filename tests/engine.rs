//! The engine's guarantees, step by step, on the packaged example project.
//! Tool outcomes are fed by the test (the engine has no I/O), so these
//! tests need no Python and no LLM.

use maestro::manifest::Hook;
use maestro::runtime::engine::{self, Conversation, Engine, Event, Input, Next, Output};
use maestro::runtime::types::{ChatResponse, Role, ToolCall, ToolHost, ToolOutcome};
use maestro::train::{train, Status, TrainOptions};
use serde_json::{json, Value};
use std::sync::OnceLock;

fn engine() -> Engine {
    static MODEL: OnceLock<Vec<u8>> = OnceLock::new();
    let bytes = MODEL.get_or_init(|| {
        let out = std::env::temp_dir().join(format!("maestro-engine-{}", std::process::id()));
        let opts = TrainOptions {
            out_dir: Some(out.clone()),
            fixed_name: Some("m".into()),
            import_check: false,
            force: true,
            ..Default::default()
        };
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/card_bank");
        let report = train(&root, &opts, &mut |_| {}).unwrap();
        let Status::Written { path, .. } = report.status else {
            panic!("trained")
        };
        let bytes = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_dir_all(&out);
        bytes
    });
    let model = maestro::runtime::load_model(bytes).unwrap();
    Engine::new(model.manifest, model.knowledge)
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
    let out = e.step(
        &mut conv,
        Input::Llm(call("process_card_replacement", json!({"express": true}))),
    );
    assert!(matches!(out.next, Next::CallLlm(_)), "held, not run");
    assert_eq!(out.say, ["Shall I order the replacement card now?"]);
    assert!(conv.pending.is_some());
    // The same turn cannot resolve it.
    let out = e.step(
        &mut conv,
        Input::Llm(call(
            "resolve_tool_confirmation",
            json!({"confirmed": true}),
        )),
    );
    assert!(matches!(out.next, Next::CallLlm(_)));
    assert!(offered(&out).contains(&"resolve_tool_confirmation".to_string()));
    e.step(
        &mut conv,
        Input::Llm(ChatResponse {
            content: Some("Please confirm.".into()),
            tool_calls: vec![],
        }),
    );
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
    assert!(matches!(out.next, Next::CallLlm(_)));
    assert_eq!(out.say, ["Okay, I have not ordered a replacement."]);
    assert!(conv.events.iter().all(|e| !matches!(e, Event::ToolExecuted { name, result, .. } if name == "process_card_replacement" && result != &json!({"status": "declined"}))));
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
    let mut e = engine();
    let skill = e
        .manifest
        .skills
        .iter_mut()
        .find(|s| s.id == "card_replace")
        .unwrap();
    skill.hooks.push(Hook {
        entry: "replacement_reason".into(),
        module: "skills/card_replace/tools.py".into(),
        function: "run_after_setting_replacement_reason".into(),
    });
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
            "memory_set",
            "tool_executed",
            "skill_completed"
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

/// The ids of assistant `tool_calls` that no `tool` message answers
/// (OpenAI-compatible servers reject such a history).
fn unanswered(history: &[maestro::runtime::types::ChatMessage]) -> Vec<String> {
    let answered: Vec<&str> = history
        .iter()
        .filter_map(|m| m.tool_call_id.as_deref())
        .collect();
    history
        .iter()
        .flat_map(|m| &m.tool_calls)
        .filter(|c| !answered.contains(&c.id.as_str()))
        .map(|c| c.id.clone())
        .collect()
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
    let mut e = engine();
    let skill = e
        .manifest
        .skills
        .iter_mut()
        .find(|s| s.id == "card_replace")
        .unwrap();
    skill.hooks.push(Hook {
        entry: "order_confirmed".into(),
        module: "skills/card_replace/tools.py".into(),
        function: "run_after_setting_order_confirmed".into(),
    });
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
