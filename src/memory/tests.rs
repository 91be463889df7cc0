use super::*;
use crate::diagnostic::Finding;

fn skill(text: &str) -> SkillMemory {
    parse_skill(FileId(0), "s", text).0
}

fn skill_findings(text: &str) -> Vec<Finding> {
    parse_skill(FileId(0), "s", text).1
}

fn project_findings(text: &str) -> Vec<Finding> {
    parse_project(FileId(0), text).1
}

fn codes(findings: &[Finding]) -> Vec<&'static str> {
    findings.iter().map(|f| f.code).collect()
}

/// The catalog of memory.md §7 plus deny lists: skill `pizza` (public
/// `size`, private `price_checked`, denies reading `billing.total`), skill
/// `billing` (public `total`, private `card`), skill `admin` (denies
/// reading the project's `logged_in` by bare name and writing `note`),
/// project `logged_in` and `note`.
fn catalog() -> MemoryModel {
    let mut skills = BTreeMap::new();
    let pizza = "schema:\n  public:\n    size:\n      type: categorical\n      enum_values: [small, large]\n      llm_settable: true\n      description: Size.\n  private:\n    price_checked:\n      type: bool\n      initial_value: false\naccess:\n  deny_read: [billing.total]\n";
    let billing = "schema:\n  public:\n    total:\n      type: float\n  private:\n    card:\n      type: text\n";
    let admin = "schema:\n  private:\n    size:\n      type: text\naccess:\n  deny_read: [logged_in, system.pending_tool_confirmation]\n  deny_write: [note]\n";
    for (id, text) in [("pizza", pizza), ("billing", billing), ("admin", admin)] {
        let (m, f) = parse_skill(FileId(0), id, text);
        assert!(f.is_empty(), "{id}: {f:?}");
        skills.insert(id.to_string(), m);
    }
    let (project, f) = parse_project(FileId(1), "logged_in:\n  type: bool\nnote:\n  type: text\n");
    assert!(f.is_empty(), "{f:?}");
    MemoryModel { project, skills }
}

fn slot(r: &Read<'_>) -> Option<String> {
    r.entry().map(|e| e.qualified_name())
}

#[test]
fn reads_sections_and_flags() {
    let m = skill("schema:\n  public:\n    a:\n      type: bool\n      llm_settable: true\n      description: A.\n  private:\n    b:\n      immutable: true\naccess:\n  deny_write: [project.p, a]\n  deny_read: [x.y]\n");
    assert_eq!(m.fields.len(), 2);
    let a = m.field("a").unwrap();
    assert!(a.llm_settable);
    assert_eq!(a.ty, FieldType::Bool);
    assert_eq!(a.namespace, "s");
    assert_eq!(a.qualified_name(), "s.a");
    assert_eq!(m.field("b").unwrap().visibility, Visibility::Private);
    assert!(m.field("b").unwrap().immutable);
    assert_eq!(m.deny_write.len(), 2);
    assert_eq!(m.deny_read[0].value, "x.y");
    assert_eq!(m.file, Some(FileId(0)));
}

#[test]
fn a_flat_file_declares_nothing_for_a_skill() {
    let (m, f) = parse_skill(FileId(0), "s", "a:\n  type: text\n");
    assert!(m.fields.is_empty());
    assert_eq!(codes(&f), ["memory.invalid_structure"]);
}

#[test]
fn bare_reads_prefer_the_active_skill_then_the_project() {
    let m = catalog();
    assert_eq!(slot(&m.read(Some("pizza"), "size")).unwrap(), "pizza.size");
    assert_eq!(
        slot(&m.read(Some("pizza"), "price_checked")).unwrap(),
        "pizza.price_checked"
    );
    assert_eq!(
        slot(&m.read(Some("pizza"), "logged_in")).unwrap(),
        "project.logged_in"
    );
    // Another skill's field is not reachable by its bare name.
    assert_eq!(
        m.read(Some("pizza"), "card"),
        Read::Undeclared {
            namespace: None,
            entry: "card".into()
        }
    );
    // Routing mode: only the project.
    assert!(!m.read(None, "size").is_readable());
    assert!(m.read(None, "logged_in").is_readable());
}

#[test]
fn qualified_reads_follow_visibility() {
    let m = catalog();
    // Own private field.
    assert!(m.read(Some("pizza"), "pizza.price_checked").is_readable());
    // Another skill's public field.
    assert_eq!(
        slot(&m.read(Some("billing"), "pizza.size")).unwrap(),
        "pizza.size"
    );
    // Another skill's private field.
    assert!(matches!(m.read(Some("pizza"), "billing.card"), Read::Private(f) if f.name == "card"));
    assert!(matches!(m.read(None, "billing.card"), Read::Private(_)));
    assert!(m.read(None, "billing.total").is_readable());
    // Project.
    assert!(m.read(Some("pizza"), "project.logged_in").is_readable());
    assert_eq!(
        m.read(Some("pizza"), "project.size"),
        Read::Undeclared {
            namespace: Some("project".into()),
            entry: "size".into()
        }
    );
    assert_eq!(
        m.read(Some("pizza"), "billing.tip"),
        Read::Undeclared {
            namespace: Some("billing".into()),
            entry: "tip".into()
        }
    );
}

#[test]
fn system_entries_are_a_closed_registry() {
    let m = catalog();
    assert_eq!(
        m.read(Some("pizza"), "system.correction_resume_point"),
        Read::Ok(Entry::System("correction_resume_point"))
    );
    assert_eq!(
        m.read_qualified(None, "system", "language"),
        Read::Undeclared {
            namespace: Some("system".into()),
            entry: "language".into()
        }
    );
}

#[test]
fn unknown_namespaces() {
    let m = catalog();
    assert_eq!(
        m.read_qualified(Some("pizza"), "session", "size"),
        Read::UnknownNamespace {
            namespace: "session".into()
        }
    );
    // A dotted bare name that is not declared: the prefix is the problem.
    assert_eq!(
        m.read(Some("pizza"), "address.city"),
        Read::UnknownNamespace {
            namespace: "address".into()
        }
    );
}

#[test]
fn deny_read_subtracts_bare_and_qualified_items() {
    let m = catalog();
    // Qualified rule.
    match m.read(Some("pizza"), "billing.total") {
        Read::Denied { entry, rule } => {
            assert_eq!(entry.qualified_name(), "billing.total");
            assert_eq!(rule.value, "billing.total");
        }
        other => panic!("{other:?}"),
    }
    // Other skills are not affected by pizza's deny list.
    assert!(m.read(Some("admin"), "billing.total").is_readable());
    // Bare rule resolves like a bare read: admin's `logged_in` is the
    // project field, reached both ways.
    assert!(matches!(
        m.read(Some("admin"), "logged_in"),
        Read::Denied { .. }
    ));
    assert!(matches!(
        m.read(Some("admin"), "project.logged_in"),
        Read::Denied { .. }
    ));
    // System entries can be denied too.
    assert!(matches!(
        m.read(Some("admin"), "system.pending_tool_confirmation"),
        Read::Denied {
            entry: Entry::System(_),
            ..
        }
    ));
    // Routing mode has no deny list.
    assert!(m.read(None, "billing.total").is_readable());
}

#[test]
fn bare_deny_items_do_not_reach_other_namespaces() {
    let mut m = catalog();
    let (admin, _) = parse_skill(
        FileId(0),
        "admin",
        "schema:\n  private:\n    size:\n      type: text\naccess:\n  deny_read: [size]\n",
    );
    m.skills.insert("admin".into(), admin);
    // `size` resolves to admin's own field; pizza's public `size` stays readable.
    assert!(matches!(m.read(Some("admin"), "size"), Read::Denied { .. }));
    assert!(matches!(
        m.read(Some("admin"), "admin.size"),
        Read::Denied { .. }
    ));
    assert!(m.read(Some("admin"), "pizza.size").is_readable());
}

#[test]
fn readable_names_list_the_readable_set() {
    let m = catalog();
    let names = m.readable_names(Some("pizza"));
    assert!(names.contains(&"pizza.price_checked".to_string()));
    assert!(names.contains(&"pizza.size".to_string()));
    assert!(names.contains(&"project.logged_in".to_string()));
    assert!(names.contains(&"system.correction_resume_point".to_string()));
    assert!(!names.contains(&"billing.card".to_string()), "private");
    assert!(!names.contains(&"billing.total".to_string()), "denied");
    assert!(m
        .readable_names(Some("billing"))
        .contains(&"billing.card".to_string()));
    let routing = m.readable_names(None);
    assert!(routing.contains(&"billing.total".to_string()));
    assert!(!routing.contains(&"pizza.price_checked".to_string()));
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

#[test]
fn write_targets() {
    let m = catalog();
    assert!(matches!(
        m.write_target(Some("pizza"), "size"),
        WriteTarget::Field(f) if f.qualified_name() == "pizza.size"
    ));
    assert!(matches!(
        m.write_target(Some("pizza"), "logged_in"),
        WriteTarget::Field(f) if f.visibility == Visibility::Project
    ));
    // admin's own `size` shadows nothing of pizza's.
    assert!(matches!(
        m.write_target(Some("admin"), "size"),
        WriteTarget::Field(f) if f.qualified_name() == "admin.size"
    ));
    match m.write_target(Some("admin"), "note") {
        WriteTarget::Denied { field, rule } => {
            assert_eq!(field.qualified_name(), "project.note");
            assert_eq!(rule.value, "note");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        m.write_target(Some("pizza"), "tip"),
        WriteTarget::Undeclared
    );
    assert_eq!(
        m.write_target(Some("pizza"), "card"),
        WriteTarget::Undeclared
    );
    assert_eq!(
        m.write_target(Some("pizza"), "system.x"),
        WriteTarget::Reserved
    );
    assert_eq!(
        m.write_target(Some("pizza"), "system"),
        WriteTarget::Reserved
    );
    assert_eq!(
        m.write_target(Some("pizza"), "billing.total"),
        WriteTarget::Qualified {
            namespace: "billing".into(),
            entry: "total".into()
        }
    );
    assert!(matches!(
        m.write_target(Some("pizza"), "project.logged_in"),
        WriteTarget::Qualified { .. }
    ));
    // Unknown skills write only project fields.
    assert!(matches!(
        m.write_target(Some("nope"), "note"),
        WriteTarget::Field(_)
    ));
    let names: Vec<&str> = m.writable_names("pizza").collect();
    assert_eq!(names, ["size", "price_checked", "logged_in", "note"]);
}

#[test]
fn routing_mode_writes_project_fields_only_and_ignores_deny_lists() {
    let m = catalog();
    assert!(matches!(
        m.write_target(None, "note"),
        WriteTarget::Field(f) if f.qualified_name() == "project.note"
    ));
    assert_eq!(m.write_target(None, "size"), WriteTarget::Undeclared);
    assert_eq!(m.write_target(None, "system.x"), WriteTarget::Reserved);
    assert!(matches!(
        m.write_target(None, "pizza.size"),
        WriteTarget::Qualified { .. }
    ));
}

#[test]
fn settable_fields_resolve_like_writes() {
    let mut m = catalog();
    let (s, f) = parse_skill(
        FileId(0),
        "s",
        "schema:\n  public:\n    a:\n      llm_settable: true\n      description: A.\n    logged_in:\n      type: bool\n  private:\n    b:\n      llm_settable: true\n      description: B.\naccess:\n  deny_write: [b]\n",
    );
    assert!(f.is_empty(), "{f:?}");
    m.skills.insert("s".into(), s);
    let (project, f) = parse_project(
        FileId(1),
        "logged_in:\n  type: bool\n  llm_settable: true\n  description: L.\ncity:\n  llm_settable: true\n  description: C.\n",
    );
    assert!(f.is_empty(), "{f:?}");
    m.project = project;
    let slots = |skill| -> Vec<String> {
        m.settable(skill)
            .iter()
            .map(|f| f.qualified_name())
            .collect()
    };
    // `b` is denied; the skill's non-settable `logged_in` shadows the
    // project's settable one.
    assert_eq!(slots(Some("s")), ["s.a", "project.city"]);
    assert_eq!(
        slots(Some("pizza")),
        ["pizza.size", "project.logged_in", "project.city"]
    );
    assert_eq!(slots(None), ["project.logged_in", "project.city"]);
}

#[test]
fn deny_write_with_a_qualified_project_item() {
    let mut m = catalog();
    let (s, _) = parse_skill(
        FileId(0),
        "s",
        "schema:\n  private:\n    own:\n      type: text\naccess:\n  deny_write: [project.logged_in]\n",
    );
    m.skills.insert("s".into(), s);
    assert!(matches!(
        m.write_target(Some("s"), "logged_in"),
        WriteTarget::Denied { .. }
    ));
    assert!(matches!(
        m.write_target(Some("s"), "own"),
        WriteTarget::Field(_)
    ));
}

#[test]
fn rule_slots() {
    let m = catalog();
    assert_eq!(m.rule_slot("pizza", "size").as_deref(), Some("pizza.size"));
    assert_eq!(
        m.rule_slot("pizza", "logged_in").as_deref(),
        Some("project.logged_in")
    );
    assert_eq!(
        m.rule_slot("pizza", "billing.card").as_deref(),
        Some("billing.card")
    );
    assert_eq!(m.rule_slot("pizza", "billing.nope"), None);
    assert_eq!(m.rule_slot("pizza", "session.project.logged_in"), None);
    assert_eq!(m.rule_slot("pizza", "card"), None);
    assert_eq!(
        m.rule_slot("pizza", "system.correction_resume_point")
            .as_deref(),
        Some("system.correction_resume_point")
    );
}

#[test]
fn public_and_private_keeps_both_views() {
    let (m, f) = parse_skill(
        FileId(0),
        "s",
        "schema:\n  public:\n    x:\n      type: text\n  private:\n    x:\n      type: int\n",
    );
    assert_eq!(codes(&f), ["memory.public_and_private"]);
    assert_eq!(f[0].labels.len(), 1);
    assert_eq!(m.field("x").unwrap().ty, FieldType::Int);
    assert_eq!(m.public_field("x").unwrap().ty, FieldType::Text);
    assert_eq!(m.names().collect::<Vec<_>>(), ["x"]);
}

#[test]
fn seed_snippets_check_clean() {
    assert!(skill_findings("schema:\n  public:\n    order_confirmed:\n      type: bool\n      llm_settable: true\n      description: The customer explicitly approved placing the order.\n").is_empty());
    assert!(project_findings(
        "selected_card_id:\n  type: text\n  description: Account id of the card the customer chose.\n"
    )
    .is_empty());
    // D7: a settable project field with a description is valid.
    assert!(project_findings(
        "card_label:\n  type: text\n  llm_settable: true\n  description: The card's label.\n"
    )
    .is_empty());
}

#[test]
fn malformed_files() {
    assert_eq!(
        codes(&skill_findings("- a\n- b\n")),
        ["memory.invalid_structure"]
    );
    assert_eq!(
        codes(&skill_findings("schema: [a]\n")),
        ["memory.invalid_structure"]
    );
    assert_eq!(
        codes(&skill_findings("schema:\n  public: 3\n")),
        ["memory.invalid_structure"]
    );
    assert_eq!(
        codes(&skill_findings("schema:\n  public:\n    size: text\n")),
        ["memory.invalid_field"]
    );
    assert_eq!(
        codes(&skill_findings("schema:\n  public:\n    size:\n")),
        ["memory.invalid_field"]
    );
    assert_eq!(
        codes(&project_findings("size: text\n")),
        ["memory.invalid_field"]
    );
    // A project field with a null body is an `any` field.
    let (p, f) = parse_project(FileId(0), "size:\n");
    assert!(f.is_empty());
    assert_eq!(p[0].ty, FieldType::Any);
    assert_eq!(
        codes(&project_findings(
            "schema:\n  public:\n    a:\n      type: text\n"
        )),
        ["memory.invalid_structure"]
    );
    assert_eq!(
        codes(&project_findings("[1, 2]\n")),
        ["memory.invalid_structure"]
    );
    // Empty files are empty schemas.
    assert!(skill_findings("").is_empty());
    assert!(skill_findings("# nothing\n").is_empty());
    assert!(project_findings("~\n").is_empty());
}

#[test]
fn access_lists() {
    assert_eq!(
        codes(&skill_findings("access:\n  deny_read: project.x\n")),
        ["memory.invalid_access"]
    );
    assert_eq!(
        codes(&skill_findings("access:\n  deny_read: [1, \"\"]\n")),
        ["memory.invalid_access", "memory.invalid_access"]
    );
    assert_eq!(
        codes(&skill_findings("access: [a]\n")),
        ["memory.invalid_access"]
    );
    assert_eq!(
        codes(&skill_findings("access:\n  deny_reads: [a]\n")),
        ["memory.unknown_key"]
    );
}

#[test]
fn unknown_keys_suggest() {
    let f = skill_findings("schema:\n  public:\n    a:\n      type: text\n      descripton: A.\n");
    assert_eq!(codes(&f), ["memory.unknown_key"]);
    assert_eq!(f[0].help.as_deref(), Some("did you mean `description`?"));
    let f = skill_findings("memory:\n  a: 1\n");
    assert_eq!(codes(&f), ["memory.unknown_key"]);
    let f = skill_findings("schema:\n  publc:\n    a: {}\n");
    assert_eq!(f[0].help.as_deref(), Some("did you mean `public`?"));
}

#[test]
fn types() {
    let f = skill_findings("schema:\n  public:\n    a:\n      type: string\n");
    assert_eq!(codes(&f), ["memory.unknown_type"]);
    assert_eq!(f[0].help.as_deref(), Some("did you mean `type: text`?"));
    assert_eq!(FieldType::near_miss("number"), Some("float"));
    assert_eq!(FieldType::near_miss("Bool"), Some("bool"));
    assert_eq!(FieldType::near_miss("flaot"), Some("float"));
    assert_eq!(FieldType::near_miss("whatever"), None);
    assert_eq!(
        codes(&skill_findings(
            "schema:\n  public:\n    a:\n      type: 5\n"
        )),
        ["memory.invalid_attribute"]
    );
    for t in FieldType::NAMES {
        assert!(
            skill_findings(&format!("schema:\n  public:\n    a:\n      type: {t}\n")).is_empty()
        );
    }
}

#[test]
fn flags_must_be_booleans() {
    let (m, f) = parse_skill(
        FileId(0),
        "s",
        "schema:\n  public:\n    a:\n      type: text\n      description: A.\n      llm_settable: \"yes\"\n",
    );
    assert_eq!(codes(&f), ["memory.invalid_attribute"]);
    // Read with the reference's meaning.
    assert!(m.field("a").unwrap().llm_settable);
    assert_eq!(
        codes(&skill_findings(
            "schema:\n  public:\n    a:\n      immutable: maybe\n"
        )),
        ["memory.invalid_attribute"]
    );
    assert_eq!(
        codes(&skill_findings(
            "schema:\n  public:\n    a:\n      description: 12\n"
        )),
        ["memory.invalid_attribute"]
    );
    assert_eq!(
        codes(&skill_findings(
            "schema:\n  public:\n    a:\n      enum_values: x\n"
        )),
        ["memory.invalid_attribute"]
    );
}

#[test]
fn initial_values_match_the_type() {
    let ok = [
        ("text", "\"\""),
        ("int", "3"),
        ("float", "3"),
        ("float", "0.5"),
        ("bool", "false"),
        ("list", "[]"),
        ("json", "{a: 1}"),
        ("any", "[1]"),
        ("text", "null"),
        ("wat", "1"),
    ];
    for (t, v) in ok {
        let f = skill_findings(&format!(
            "schema:\n  private:\n    a:\n      type: {t}\n      initial_value: {v}\n"
        ));
        assert!(
            !codes(&f).contains(&"memory.invalid_initial_value"),
            "{t} {v}: {f:?}"
        );
    }
    let bad = [
        ("text", "3"),
        ("int", "0.5"),
        ("int", "true"),
        ("bool", "\"false\""),
        ("list", "a"),
        ("float", "\"1\""),
    ];
    for (t, v) in bad {
        let f = skill_findings(&format!(
            "schema:\n  private:\n    a:\n      type: {t}\n      initial_value: {v}\n"
        ));
        assert_eq!(codes(&f), ["memory.invalid_initial_value"], "{t} {v}");
        assert_eq!(f[0].labels.len(), 1, "labels the type");
    }
    let f = skill_findings(
        "schema:\n  private:\n    a:\n      type: categorical\n      enum_values: [small, large]\n      initial_value: medium\n",
    );
    assert_eq!(codes(&f), ["memory.invalid_initial_value"]);
    assert!(f[0].help.as_deref().unwrap().contains("`small`, `large`"));
}

#[test]
fn seeds_description_and_anonymization() {
    assert_eq!(
        codes(&skill_findings(
            "schema:\n  private:\n    a:\n      seed: true\n"
        )),
        ["memory.skill_seed"]
    );
    assert!(project_findings("a:\n  type: text\n  seed: true\n").is_empty());
    assert_eq!(
        codes(&skill_findings(
            "schema:\n  public:\n    a:\n      type: text\n      llm_settable: true\n"
        )),
        ["memory.description_required"]
    );
    assert_eq!(
        codes(&project_findings(
            "a:\n  llm_settable: true\n  description: \"  \"\n"
        )),
        ["memory.description_required"]
    );
    assert!(project_findings(
        "a:\n  type: text\n  pii: true\n  anonymization:\n    type: mask\n    keep_right: 4\n"
    )
    .is_empty());
    assert_eq!(
        codes(&project_findings(
            "a:\n  anonymization:\n    type: blur\n    keep_left: 0\n    colour: red\n"
        )),
        [
            "memory.invalid_attribute",
            "memory.invalid_attribute",
            "memory.invalid_attribute",
            "memory.unknown_key"
        ]
    );
}

proptest::proptest! {
    #[test]
    fn never_panics(s in "\\PC{0,200}") {
        let _ = parse_skill(FileId(0), "s", &s);
        let _ = parse_project(FileId(0), &s);
    }

    #[test]
    fn never_panics_on_memory_shaped_input(
        name in "[a-z_.]{0,8}",
        key in "(type|description|llm_settable|immutable|initial_value|enum_values|seed|pii|anonymization|privacy_rules|[a-z]{1,6})",
        value in "(text|int|\"yes\"|true|-|\\[1, a\\]|\\{type: mask\\}|~|0.5|2024-01-01|[a-z]{0,5})",
        section in "(public|private|access|deny_read|[a-z]{1,4})",
    ) {
        let text = format!("schema:\n  {section}:\n    {name}:\n      {key}: {value}\naccess:\n  deny_read: [{name}]\n");
        let (m, _) = parse_skill(FileId(0), "s", &text);
        let model = MemoryModel { project: Vec::new(), skills: BTreeMap::from([("s".to_string(), m)]) };
        let _ = model.read(Some("s"), &name);
        let _ = model.write_target(Some("s"), &name);
        let _ = model.readable_names(Some("s"));
        let _ = parse_project(FileId(0), &format!("{name}:\n  {key}: {value}\n"));
    }
}
