use super::*;
use proptest::prelude::*;

fn p(text: &str) -> Expr {
    match parse(text) {
        Ok(c) => c.expr,
        Err(e) => panic!("`{text}` should parse, got: {} at {:?}", e.message, e.span),
    }
}

fn err(text: &str) -> ConditionError {
    match parse(text) {
        Ok(c) => panic!("`{text}` should not parse, got {:?}", c.expr),
        Err(e) => e,
    }
}

/// Assert that `text` fails with a message containing `msg` and a span
/// covering exactly `at`.
#[track_caller]
fn fails(text: &str, msg: &str, at: &str) {
    let e = err(text);
    assert!(
        e.message.contains(msg),
        "`{text}`: message {:?} does not contain {msg:?}",
        e.message
    );
    assert_eq!(
        &text[e.span.range()],
        at,
        "`{text}`: span of {:?}",
        e.message
    );
}

fn lit(text: &str) -> Literal {
    match p(text).kind {
        ExprKind::Literal(l) => l,
        k => panic!("`{text}` is not a literal: {k:?}"),
    }
}

fn memory(text: &str, values: &[(&str, Value)]) -> Result<Value, EvalError> {
    let c = parse(text).unwrap();
    let map: BTreeMap<String, Value> = values
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    evaluate(&c.expr, &|ns, e| map.get(&format!("{ns}.{e}")).cloned())
}

// --- §1.4 literals (as adapted by D9) -------------------------------------

#[test]
fn constants() {
    assert_eq!(lit("True"), Literal::Bool(true));
    assert_eq!(lit("False"), Literal::Bool(false));
    assert_eq!(lit("None"), Literal::Null);
    // D9: lower-case forms too.
    assert_eq!(lit("true"), Literal::Bool(true));
    assert_eq!(lit("false"), Literal::Bool(false));
    assert_eq!(lit("null"), Literal::Null);
    fails("none", "unknown name `none`", "none");
    assert_eq!(
        err("none").help.as_deref(),
        Some("write `None` (or `null`)")
    );
    fails("TRUE", "unknown name `TRUE`", "TRUE");
    fails("Truex", "unknown name `Truex`", "Truex");
}

#[test]
fn integers() {
    assert_eq!(lit("0"), Literal::Int(0));
    assert_eq!(lit("42"), Literal::Int(42));
    assert_eq!(lit("1_000"), Literal::Int(1000));
    assert_eq!(lit("00"), Literal::Int(0));
    assert_eq!(lit("0x1F"), Literal::Int(31));
    assert_eq!(lit("0o17"), Literal::Int(15));
    assert_eq!(lit("0B101"), Literal::Int(5));
    assert_eq!(lit("0x_ff"), Literal::Int(255));
    assert_eq!(lit("9223372036854775807"), Literal::Int(i64::MAX));
    assert_eq!(lit("-9223372036854775808"), Literal::Int(i64::MIN));
    fails(
        "01",
        "leading zeros are not allowed in the integer `01`",
        "01",
    );
    assert_eq!(
        err("01").help.as_deref(),
        Some("write `1` (or `0o1` for an octal number)")
    );
    fails("1__0", "`1__0` is not a valid number", "1__0");
    fails("1_", "`1_` is not a valid number", "1_");
    fails("0x", "`0x` is not a valid number", "0x");
    fails("0b102", "`0b102` is not a valid number", "0b102");
    fails("12abc", "`12abc` is not a valid number", "12abc");
    fails("9223372036854775808", "is too large", "9223372036854775808");
    fails(
        "99999999999999999999999999999999999999999",
        "is too large",
        "99999999999999999999999999999999999999999",
    );
}

#[test]
fn floats() {
    assert_eq!(lit("1.5"), Literal::Float(1.5));
    assert_eq!(lit("1."), Literal::Float(1.0));
    assert_eq!(lit(".5"), Literal::Float(0.5));
    assert_eq!(lit("1e3"), Literal::Float(1000.0));
    assert_eq!(lit("1E-3"), Literal::Float(0.001));
    assert_eq!(lit("1_0.5"), Literal::Float(10.5));
    assert_eq!(lit("1e309"), Literal::Float(f64::INFINITY));
    assert_eq!(lit("01.5"), Literal::Float(1.5));
    fails("1e", "`1e` is not a valid number", "1e");
    fails("1.5.2", "`1.5.2` is not a valid number", "1.5.2");
    fails("1_.5", "not a valid number", "1_.5");
}

#[test]
fn negative_numbers_are_allowed() {
    // D9 overrides the appendix: negative literals are numbers.
    assert_eq!(lit("-5"), Literal::Int(-5));
    assert_eq!(lit("-1.5"), Literal::Float(-1.5));
    assert_eq!(lit("- 5"), Literal::Int(-5));
    assert_eq!(lit("-0x10"), Literal::Int(-16));
    let e = p("session.c.n == -5");
    let ExprKind::Compare { rest, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(rest[0].1.kind, ExprKind::Literal(Literal::Int(-5)));
    assert_eq!(rest[0].1.span, Span::new(15, 17));
    fails("+1", "unary `+` is not supported", "+");
    fails("--5", "`-` is only allowed as the sign of a number", "--");
    fails(
        "-session.a.b",
        "`-` is only allowed as the sign of a number",
        "-session",
    );
    fails("~session.a.b", "`~` is not supported; use `not`", "~");
    fails(
        "session.a.b == -",
        "`-` is only allowed as the sign of a number",
        "-",
    );
}

#[test]
fn strings() {
    assert_eq!(lit("'x'"), Literal::Str("x".into()));
    assert_eq!(lit("\"x\""), Literal::Str("x".into()));
    assert_eq!(lit("'it' 's'"), Literal::Str("its".into()));
    assert_eq!(lit("'a' \"b\" 'c'"), Literal::Str("abc".into()));
    assert_eq!(lit("'''a'b'''"), Literal::Str("a'b".into()));
    assert_eq!(lit("\"\"\"a\nb\"\"\""), Literal::Str("a\nb".into()));
    assert_eq!(lit("''"), Literal::Str(String::new()));
    assert_eq!(lit("\"\""), Literal::Str(String::new()));
    assert_eq!(
        lit(r#"'a\nb\tc\\d\'e\"f'"#),
        Literal::Str("a\nb\tc\\d'e\"f".into())
    );
    assert_eq!(
        lit(r#""\x41\u00e9\U0001F600""#),
        Literal::Str("Aé😀".into())
    );
    assert_eq!(lit(r#"'\101\0'"#), Literal::Str("A\0".into()));
    assert_eq!(lit(r#"'\d'"#), Literal::Str("\\d".into()));
    assert_eq!(lit("'a\\\nb'"), Literal::Str("ab".into()));
    assert_eq!(lit(r#"r'\n'"#), Literal::Str("\\n".into()));
    assert_eq!(lit(r#"R"\"""#), Literal::Str("\\\"".into()));
    assert_eq!(lit("u'x'"), Literal::Str("x".into()));
    assert_eq!(lit("'café'"), Literal::Str("café".into()));
    fails("f'x'", "f-strings are not supported", "f'x'");
    fails(
        "session.a.b == f\"{x}\"",
        "f-strings are not supported",
        "f\"{x}\"",
    );
    fails("b'x'", "bytes literals are not supported", "b'x'");
    fails("ur'x'", "`ur` is not a valid string prefix", "ur");
    fails(
        r"'\x4'",
        "`\\x` must be followed by 2 hexadecimal digits",
        r"\x4",
    );
    fails(
        r"'ab\u12'",
        "`\\u` must be followed by 4 hexadecimal digits",
        r"\u12",
    );
    fails(r"'\ud800'", "is not a valid character", r"\ud800");
    fails(r"'\N{DASH}'", "`\\N{…}` escapes are not supported", r"\N");
    fails("session.a.b == 'abc", "unterminated string literal", "'abc");
    fails("'abc\ndef'", "unterminated string literal", "'abc");
    fails("\"\"\"abc", "unterminated string literal", "\"\"\"abc");
}

#[test]
fn exotic_literals_are_rejected() {
    fails("1j", "imaginary numbers like `1j` are not supported", "1j");
    fails("...", "`...` (Ellipsis) is not supported", "...");
    fails(
        "session.a.b == ...",
        "`...` (Ellipsis) is not supported",
        "...",
    );
}

// --- §1.3 grammar: precedence, chaining, parentheses ----------------------

fn shape(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Or(items) => format!(
            "or({})",
            items.iter().map(shape).collect::<Vec<_>>().join(",")
        ),
        ExprKind::And(items) => format!(
            "and({})",
            items.iter().map(shape).collect::<Vec<_>>().join(",")
        ),
        ExprKind::Not(x) => format!("not({})", shape(x)),
        ExprKind::Compare { first, rest } => {
            let mut s = format!("cmp({}", shape(first));
            for (op, x) in rest {
                s.push_str(&format!(" {op} {}", shape(x)));
            }
            s + ")"
        }
        ExprKind::Memory(m) => m.key(),
        ExprKind::Literal(l) => print(&Expr::new(ExprKind::Literal(l.clone()), Span::default())),
    }
}

#[test]
fn precedence() {
    assert_eq!(
        shape(&p("not session.a.x == session.a.y")),
        "not(cmp(a.x == a.y))"
    );
    assert_eq!(
        shape(&p("session.a.x and session.a.y or session.a.z")),
        "or(and(a.x,a.y),a.z)"
    );
    assert_eq!(
        shape(&p("session.a.x or session.a.y and session.a.z")),
        "or(a.x,and(a.y,a.z))"
    );
    assert_eq!(
        shape(&p("not session.a.x and session.a.y")),
        "and(not(a.x),a.y)"
    );
    assert_eq!(shape(&p("not not session.a.x")), "not(not(a.x))");
    assert_eq!(
        shape(&p("session.a.x or session.a.y or session.a.z")),
        "or(a.x,a.y,a.z)"
    );
    assert_eq!(
        shape(&p("(session.a.x or session.a.y) or session.a.z")),
        "or(or(a.x,a.y),a.z)"
    );
    assert_eq!(
        shape(&p("session.a.x and (session.a.y or session.a.z)")),
        "and(a.x,or(a.y,a.z))"
    );
    assert_eq!(
        shape(&p("(session.a.x and session.a.y) == True")),
        "cmp(and(a.x,a.y) == True)"
    );
    assert_eq!(
        shape(&p("session.a.x == (not session.a.y)")),
        "cmp(a.x == not(a.y))"
    );
    assert_eq!(shape(&p("((session.a.x))")), "a.x");
}

#[test]
fn chained_comparisons() {
    assert_eq!(shape(&p("1 < session.c.n <= 10")), "cmp(1 < c.n <= 10)");
    assert_eq!(
        shape(&p("session.a.x == session.a.y != None")),
        "cmp(a.x == a.y != None)"
    );
    assert_eq!(shape(&p("(1 < 2) < 3")), "cmp(cmp(1 < 2) < 3)");
    let m = [("c.n", Value::Int(5))];
    assert_eq!(memory("1 < session.c.n < 10", &m), Ok(Value::Bool(true)));
    assert_eq!(memory("1 < session.c.n < 3", &m), Ok(Value::Bool(false)));
    // Stops at the first false link: the error in the second is never seen.
    assert_eq!(
        memory("session.c.n < 1 < session.c.missing", &m),
        Ok(Value::Bool(false))
    );
    assert!(memory("session.c.n > 1 < session.c.missing", &m).is_err());
    // `1 < x > 3` means `1 < x and x > 3`.
    assert_eq!(memory("1 < session.c.n > 3", &m), Ok(Value::Bool(true)));
}

#[test]
fn whitespace_comments_and_line_breaks() {
    let c = parse("  session.a.b  \n").unwrap();
    let ExprKind::Memory(m) = &c.expr.kind else {
        panic!()
    };
    assert_eq!(m.span, Span::new(2, 13));
    assert_eq!(c.source, "  session.a.b  \n");
    assert_eq!(shape(&p("session.a.b and\n  session.a.c")), "and(a.b,a.c)");
    assert_eq!(shape(&p("session.a.b # a note")), "a.b");
    assert_eq!(shape(&p("# leading note\nsession.a.b")), "a.b");
    assert_eq!(
        shape(&p("session.a.b and \\\n session.a.c")),
        "and(a.b,a.c)"
    );
    assert_eq!(shape(&p("session . a . b")), "a.b");
    assert_eq!(shape(&p("\tsession.a.b\r\n")), "a.b");
}

// --- §1.5 syntax errors ---------------------------------------------------

#[test]
fn not_an_expression() {
    fails("", "the condition is empty", "");
    fails("   ", "the condition is empty", "   ");
    fails(
        "# only a comment",
        "the condition is empty",
        "# only a comment",
    );
    fails("session.a.b and", "expected a value after `and`", "and");
    fails("session.a.b ==", "expected a value after `==`", "==");
    fails("not", "expected a value after `not`", "not");
    fails(
        "session.a.b = 1",
        "`=` is assignment; use `==` to compare",
        "=",
    );
    assert_eq!(
        err("session.a.b = 1").help.as_deref(),
        Some("write `session.a.b == …`")
    );
    fails("session.a.if", "`if` is a Python keyword", "if");
    fails("session.class.b", "`class` is a Python keyword", "class");
    fails(
        "session.a.b\nsession.a.c",
        "expected a comparison operator after `session.a.b`, found `session`",
        "session",
    );
    fails(
        "session.a.b 5",
        "expected a comparison operator after `session.a.b`",
        "5",
    );
    fails(
        "session.a.b == 1 2",
        "expected a comparison operator after `1`",
        "2",
    );
    fails(
        "and session.a.b",
        "expected a value at the start of the condition, found the keyword `and`",
        "and",
    );
    fails(
        "== 1",
        "expected a value at the start of the condition, found `==`",
        "==",
    );
    fails(
        "session.a.b and or session.a.c",
        "expected a value after `and`, found the keyword `or`",
        "or",
    );
}

#[test]
fn operators_from_other_languages() {
    fails(
        "session.a.b && session.a.c",
        "`&&` is not supported; use `and`",
        "&&",
    );
    fails(
        "session.a.b || session.a.c",
        "`||` is not supported; use `or`",
        "||",
    );
    fails(
        "session.a.b & session.a.c",
        "`&` is not supported; use `and`",
        "&",
    );
    fails(
        "session.a.b | session.a.c",
        "`|` is not supported; use `or`",
        "|",
    );
    fails("!session.a.b", "`!` is not supported; use `not`", "!");
    fails("session.a.b ! 1", "`!` is not supported", "!");
    fails(
        "session.a.b === 1",
        "`===` is not supported; use `==`",
        "===",
    );
    fails("session.a.b <> 1", "`<>` is not supported; use `!=`", "<>");
    fails(
        "session.a.b => 1",
        "`=>` is not an operator; use `>=`",
        "=>",
    );
    fails(
        "session.a.b =< 1",
        "`=<` is not an operator; use `<=`",
        "=<",
    );
    fails(
        "session.a.b << 1",
        "`<<` is not supported in conditions",
        "<<",
    );
    fails(
        "session.a.b\u{a0}== 1",
        "unexpected whitespace character U+00A0",
        "\u{a0}",
    );
    fails(
        "session.a.b AND session.a.c",
        "`AND` is not an operator: keywords are lower-case; use `and`",
        "AND",
    );
    fails("session.a.b Or session.a.c", "use `or`", "Or");
    fails(
        "session.a.b == NOT session.a.c",
        "`NOT` is not an operator: keywords are lower-case; use `not`",
        "NOT",
    );
    fails("NOT session.a.c", "use `not`", "NOT");
}

#[test]
fn names_and_references() {
    fails(
        "session",
        "`session` is an incomplete memory reference: write `session.<namespace>.<entry>`",
        "session",
    );
    fails(
        "session.a",
        "`session.a` is an incomplete memory reference: write `session.<namespace>.<entry>`",
        "session.a",
    );
    assert!(err("session.a")
        .help
        .unwrap()
        .contains("`session.project.a`"));
    fails(
        "session.a.b.c",
        "`session.a.b.c` has too many parts",
        "session.a.b.c",
    );
    fails(
        "foo",
        "unknown name `foo`: memory is written `session.<skill_id|project|system>.<entry>`",
        "foo",
    );
    fails(
        "selected_card_id",
        "unknown name `selected_card_id`: memory is written `session.<skill_id|project|system>.<entry>`",
        "selected_card_id",
    );
    fails("session.a.b == lost", "unknown name `lost`", "lost");
    fails("foo.a.b", "`foo.a.b` is not a memory reference", "foo.a.b");
    fails(
        "Session.a.b",
        "`Session.a.b` is not a memory reference",
        "Session.a.b",
    );
    assert_eq!(
        err("Session.a.b").help.as_deref(),
        Some("`session` is written in lower case")
    );
    fails(
        "session.my-skill.x",
        "`my-skill` is not a valid name",
        "my-skill",
    );
    fails(
        "session.a.1b",
        "expected a name after `.`, found `1b`: names cannot start with a digit",
        "1b",
    );
    fails("session.a.", "expected a name after `.`", ".");
    fails("session.a.b.", "expected a name after `.`", ".");
    fails(
        "(session).a.b",
        "attribute access is only allowed in memory references",
        ".",
    );
    fails(
        "(session.a).b",
        "attribute access is only allowed in memory references",
        ".",
    );
    // Soft keywords and lower-case literal names are fine as segments.
    assert_eq!(shape(&p("session.match.type")), "match.type");
    assert_eq!(shape(&p("session._x.true")), "_x.true");
    assert_eq!(shape(&p("session.système.état")), "système.état");
}

#[test]
fn unsupported_comparisons() {
    fails("session.a.b in 'xy'", "`in` is not supported", "in");
    fails(
        "session.a.b not in 'xy'",
        "`not in` is not supported",
        "not in",
    );
    fails(
        "session.a.b is None",
        "`is` is not supported; use `==`",
        "is",
    );
    fails(
        "session.a.b is not None",
        "`is not` is not supported; use `!=`",
        "is not",
    );
    fails("foo in x", "`in` is not supported", "in");
    fails(
        "session.a.b not session.a.c",
        "`not` cannot follow `session.a.b`",
        "not",
    );
    fails(
        "session.a.b == not session.a.c",
        "`not` cannot directly follow `==`; wrap it in parentheses",
        "not",
    );
}

#[test]
fn other_python_constructs() {
    fails("session.a.b + 1", "arithmetic (`+`) is not supported", "+");
    fails("session.a.b - 1", "arithmetic (`-`) is not supported", "-");
    fails(
        "session.a.b * 2 > 1",
        "arithmetic (`*`) is not supported",
        "*",
    );
    fails(
        "session.a.b // 2",
        "arithmetic (`//`) is not supported",
        "//",
    );
    fails("len(session.a.b)", "calling `len` is not supported", "(");
    fails(
        "session.a.b(1)",
        "calling `session.a.b` is not supported",
        "(",
    );
    fails("session.a.b[0]", "indexing (`[…]`) is not supported", "[");
    fails("[1]", "lists are not supported", "[");
    fails("session.a.b == [1]", "lists are not supported", "[");
    fails("(1,)", "`,` is not allowed", ",");
    fails("{1}", "dicts and sets are not supported", "{");
    fails("{1: 2}", "dicts and sets are not supported", "{");
    fails(
        "session.a.x if session.a.c else session.a.y",
        "conditional expressions",
        "if",
    );
    fails("lambda: 1", "`lambda` is not supported", "lambda");
    fails(
        "(x := 1)",
        "`:=` (assignment expression) is not supported",
        ":=",
    );
    fails("[x for x in y]", "lists are not supported", "[");
    fails(
        "'x'.upper() == 'X'",
        "attribute access is only allowed",
        ".",
    );
    fails("(session.a.b == 1", "unclosed `(`", "(");
    fails("((session.a.b) == 1", "unclosed `(`", "(");
    fails("session.a.b == 1)", "unmatched `)`", ")");
    fails("()", "empty parentheses `()`", ")");
    fails("session.a.b == $", "unexpected character `$`", "$");
    fails("session.a.b\0", "unexpected character `\\0`", "\0");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{}session.a.b{}", "(".repeat(10_000), ")".repeat(10_000));
    fails(&deep, "nested too deeply", "(");
    let nots = format!("{}session.a.b", "not ".repeat(10_000));
    fails(&nots, "nested too deeply", "not");
    let ok = format!(
        "{}session.a.b{}",
        "(".repeat(MAX_NESTING),
        ")".repeat(MAX_NESTING)
    );
    assert_eq!(shape(&p(&ok)), "a.b");
    let mixed = format!(
        "{}session.a.b{}",
        "(not ".repeat(MAX_NESTING / 2),
        ")".repeat(MAX_NESTING / 2)
    );
    let c = parse(&mixed).unwrap();
    assert_eq!(evaluate(&c.expr, &|_, _| None), Ok(Value::Bool(false)));
    assert!(p(&print(&c.expr)).eq_ignoring_spans(&c.expr));
    let too_deep = format!("(not {}session.a.b)", "(".repeat(MAX_NESTING - 1));
    fails(&too_deep, "nested too deeply", "(");
}

// --- spans and references -------------------------------------------------

#[test]
fn reference_spans() {
    let text = "session.card.reason == 'lost' or not session.project.auth";
    let c = parse(text).unwrap();
    let refs = c.references();
    assert_eq!(refs.len(), 2);
    assert_eq!(refs[0].key(), "card.reason");
    assert_eq!(&text[refs[0].span.range()], "session.card.reason");
    assert_eq!(&text[refs[0].namespace_span.range()], "card");
    assert_eq!(&text[refs[0].entry_span.range()], "reason");
    assert_eq!(refs[1].key(), "project.auth");
    assert_eq!(&text[refs[1].span.range()], "session.project.auth");
    assert_eq!(&text[refs[1].namespace_span.range()], "project");
    assert_eq!(&text[refs[1].entry_span.range()], "auth");
    let ExprKind::Or(items) = &c.expr.kind else {
        panic!()
    };
    assert_eq!(c.expr.span, Span::new(0, text.len()));
    assert_eq!(
        &text[items[0].span.range()],
        "session.card.reason == 'lost'"
    );
    assert_eq!(&text[items[1].span.range()], "not session.project.auth");
    let ExprKind::Compare { rest, .. } = &items[0].kind else {
        panic!()
    };
    assert_eq!(&text[rest[0].1.span.range()], "'lost'");
    // Whitespace and comments after a node are not part of its span.
    let text = "(session.a.b # note\n == 'x' 'y' ) and not ( session.a.c ) ";
    let c = parse(text).unwrap();
    let ExprKind::And(items) = &c.expr.kind else {
        panic!()
    };
    assert_eq!(&text[c.expr.span.range()], text.trim_end());
    assert_eq!(
        &text[items[0].span.range()],
        "session.a.b # note\n == 'x' 'y'"
    );
    assert_eq!(&text[items[1].span.range()], "not ( session.a.c )");
    let ExprKind::Compare { first, rest } = &items[0].kind else {
        panic!()
    };
    assert_eq!(&text[first.span.range()], "session.a.b");
    assert_eq!(&text[rest[0].1.span.range()], "'x' 'y'");

    let text = "session.a.b == session.a.b and (session.x.y)";
    let keys: Vec<_> = parse(text)
        .unwrap()
        .references()
        .iter()
        .map(|r| r.key())
        .collect();
    assert_eq!(keys, ["a.b", "a.b", "x.y"]);
    assert!(parse("'a' 'b'").unwrap().references().is_empty());
    // Spans are byte offsets, also after multi-byte text.
    let text = "'é' == session.é.ü";
    let r = parse(text).unwrap();
    let r = r.references();
    assert_eq!(&text[r[0].entry_span.range()], "ü");
}

#[test]
fn shifting_spans() {
    let file = "requires: \"session.a.b = 1\"\n";
    let offset = file.find("session").unwrap();
    let inner = &file[offset..file.len() - 2];
    let e = parse(inner).unwrap_err().shifted(offset);
    assert_eq!(&file[e.span.range()], "=");
    assert_eq!(&file[map_span(Span::new(0, 7), offset).range()], "session");
    let c = parse("session.a.b").unwrap().shifted(offset);
    assert_eq!(&file[c.references()[0].span.range()], "session.a.b");
}

#[test]
fn span_in_yaml_scalars() {
    let file = "a: session.x.y = 1\nb: \"session.x.y = 1\"\nc: \"session.x.y \\x3d 1\"\n";
    let parsed = crate::yaml::parse(file);
    let root = parsed.root.as_ref().expect("a document");
    for (key, exact) in [("a", true), ("b", true), ("c", false)] {
        let node = root.get(key).unwrap();
        let e = parse(node.as_str().unwrap()).unwrap_err();
        let span = span_in_yaml(e.span, node, file);
        if exact {
            assert_eq!(&file[span.range()], "=");
        } else {
            assert_eq!(span, node.span);
        }
    }
}

// --- printing -------------------------------------------------------------

#[test]
fn printing() {
    for (input, canonical) in [
        ("session.a.b==1", "session.a.b == 1"),
        (
            "(session.a.x or session.a.y) or session.a.z",
            "(session.a.x or session.a.y) or session.a.z",
        ),
        (
            "session.a.x and session.a.y or session.a.z",
            "session.a.x and session.a.y or session.a.z",
        ),
        (
            "session.a.x and (session.a.y or session.a.z)",
            "session.a.x and (session.a.y or session.a.z)",
        ),
        ("not (session.a.x == 1)", "not session.a.x == 1"),
        ("(not session.a.x) == 1", "(not session.a.x) == 1"),
        ("(1 < 2) < 3", "(1 < 2) < 3"),
        ("true != null", "True != None"),
        ("'it''s'", "\"its\""),
        (r#"'a"\n\x00é'"#, r#""a\"\n\x00é""#),
        ("1.", "1.0"),
        ("1e300", "1e300"),
        ("1e309", "1e309"),
        ("- 1e309", "-1e309"),
        ("-0.0", "-0.0"),
        ("0x1F", "31"),
    ] {
        let e = p(input);
        assert_eq!(print(&e), canonical, "print of `{input}`");
        assert!(
            p(canonical).eq_ignoring_spans(&e),
            "`{canonical}` round-trips"
        );
    }
}

// --- §1.6 evaluation and §1.10 worked examples ----------------------------

fn worked_memory() -> Vec<(&'static str, Value)> {
    vec![
        ("c.n", Value::Int(5)),
        ("c.s", Value::Str("x".into())),
        ("c.t", Value::Bool(true)),
        ("c.l", Value::List(vec![])),
    ]
}

#[test]
fn worked_examples() {
    let m = worked_memory();
    let t = Ok(Value::Bool(true));
    let f = Ok(Value::Bool(false));
    assert_eq!(memory("session.c.n > 3", &m), t);
    assert_eq!(memory("1 < session.c.n < 10", &m), t);
    assert_eq!(memory("session.c.s == \"x\" and not session.c.l", &m), t);
    assert_eq!(memory("session.c.t == 1", &m), t);
    assert_eq!(memory("session.c.missing", &m), Ok(Value::Null));
    assert_eq!(memory("session.c.missing == None", &m), t);
    assert_eq!(memory("session.c.missing != 'a'", &m), t);
    let e = memory("session.c.missing < 1", &m).unwrap_err();
    assert_eq!(
        e.message,
        "cannot compare null with int using `<` (`session.c.missing` is not set)"
    );
    assert_eq!(
        e.help.as_deref(),
        Some("guard the comparison: `session.c.missing and …`")
    );
    assert_eq!(e.span, Span::new(0, 21));
    let e = memory("session.c.n > 'x'", &m).unwrap_err();
    assert_eq!(e.message, "cannot compare int with string using `>`");
    assert_eq!(memory("session.c.missing and session.c.missing < 1", &m), f);
    // D9: negative numbers are valid.
    assert_eq!(memory("session.c.n == -5", &m), f);
    assert_eq!(memory("session.c.n > -5", &m), t);

    let lookup_map: BTreeMap<String, Value> =
        m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    let lookup = |ns: &str, e: &str| lookup_map.get(&format!("{ns}.{e}")).cloned();
    assert!(holds(&parse("session.c.n > 3").unwrap(), &lookup));
    assert!(!holds(&parse("session.c.missing").unwrap(), &lookup));
    // Fail closed.
    assert!(!holds(&parse("session.c.missing < 1").unwrap(), &lookup));
    // An error inside `or` is not swallowed by a later true operand.
    assert!(!holds(
        &parse("not (session.c.missing < 1) or True").unwrap(),
        &lookup
    ));
    assert!(!holds(&parse("session.c.n > 'x'").unwrap(), &lookup));
}

#[test]
fn boolean_operators_yield_booleans() {
    let m = worked_memory();
    assert_eq!(memory("session.c.s or 'd'", &m), Ok(Value::Bool(true)));
    assert_eq!(
        memory("(session.c.missing or 'd') == 'd'", &m),
        Ok(Value::Bool(false))
    );
    assert_eq!(
        memory("session.c.s and session.c.n", &m),
        Ok(Value::Bool(true))
    );
    assert_eq!(memory("not session.c.n", &m), Ok(Value::Bool(false)));
    // Short-circuit: the error on the right is never reached.
    assert_eq!(
        memory("session.c.t or session.c.missing < 1", &m),
        Ok(Value::Bool(true))
    );
    assert!(memory("session.c.l or session.c.missing < 1", &m).is_err());
    assert_eq!(memory("'x'", &m), Ok(Value::Str("x".into())));
}

#[test]
fn truthiness() {
    assert!(!truthy(&Value::Null));
    assert!(!truthy(&Value::Bool(false)));
    assert!(truthy(&Value::Bool(true)));
    assert!(!truthy(&Value::Int(0)));
    assert!(truthy(&Value::Int(-1)));
    assert!(!truthy(&Value::Float(0.0)));
    assert!(!truthy(&Value::Float(-0.0)));
    assert!(truthy(&Value::Float(f64::NAN)));
    assert!(!truthy(&Value::Str(String::new())));
    assert!(truthy(&Value::Str("0".into())));
    assert!(!truthy(&Value::List(vec![])));
    assert!(truthy(&Value::List(vec![Value::Null])));
    assert!(!truthy(&Value::Map(BTreeMap::new())));
}

#[test]
fn equality_rules() {
    use Value::*;
    let eq = values_equal;
    assert!(eq(&Null, &Null));
    assert!(!eq(&Null, &Int(0)));
    assert!(!eq(&Null, &Bool(false)));
    assert!(eq(&Int(1), &Float(1.0)));
    assert!(eq(&Bool(true), &Int(1)));
    assert!(eq(&Bool(false), &Float(0.0)));
    assert!(!eq(&Float(f64::NAN), &Float(f64::NAN)));
    // Exact int/float equality, no rounding through f64.
    assert!(!eq(
        &Int(9_007_199_254_740_993),
        &Float(9_007_199_254_740_992.0)
    ));
    assert!(eq(
        &Int(9_007_199_254_740_992),
        &Float(9_007_199_254_740_992.0)
    ));
    assert!(!eq(&Int(i64::MAX), &Float(9_223_372_036_854_775_808.0)));
    assert!(!eq(&Str("1".into()), &Int(1)));
    assert!(eq(&Str("é".into()), &Str("é".into())));
    assert!(!eq(&Str("A".into()), &Str("a".into())));
    assert!(eq(
        &List(vec![Int(1), Str("a".into())]),
        &List(vec![Float(1.0), Str("a".into())])
    ));
    assert!(!eq(&List(vec![Int(1)]), &List(vec![Int(1), Int(2)])));
    let m1: BTreeMap<_, _> = [("a".to_string(), Int(1))].into();
    let m2: BTreeMap<_, _> = [("a".to_string(), Bool(true))].into();
    let m3: BTreeMap<_, _> = [("b".to_string(), Int(1))].into();
    assert!(eq(&Map(m1.clone()), &Map(m2)));
    assert!(!eq(&Map(m1.clone()), &Map(m3)));
    assert!(!eq(&Map(m1), &List(vec![])));
}

#[test]
fn ordering_rules() {
    use Value::*;
    let m = |v: Value| vec![("a.x", v)];
    let ok = |text: &str, v: Value| memory(text, &m(v)).unwrap();
    assert_eq!(ok("session.a.x < 2", Float(1.5)), Bool(true));
    assert_eq!(ok("session.a.x >= 1", Bool(true)), Bool(true));
    assert_eq!(
        ok(
            "session.a.x < 9007199254740993",
            Float(9_007_199_254_740_992.0)
        ),
        Bool(true)
    );
    assert_eq!(ok("session.a.x > -1.5", Int(-1)), Bool(true));
    assert_eq!(ok("session.a.x < -1", Float(-1.5)), Bool(true));
    assert_eq!(ok("session.a.x < 'b'", Str("a".into())), Bool(true));
    assert_eq!(ok("session.a.x < 'Z'", Str("a".into())), Bool(false));
    assert_eq!(ok("session.a.x > 'é'", Str("z".into())), Bool(false));
    for op in ["<", "<=", ">", ">=", "=="] {
        assert_eq!(
            ok(&format!("session.a.x {op} 1"), Float(f64::NAN)),
            Bool(false),
            "{op}"
        );
    }
    assert_eq!(ok("session.a.x != 1", Float(f64::NAN)), Bool(true));
    assert_eq!(ok("session.a.x > 1e308", Float(f64::INFINITY)), Bool(true));
    for (text, v) in [
        ("session.a.x < 1", Null),
        ("None < 1", Null),
        ("session.a.x < 1", Str("1".into())),
        ("session.a.x > 'a'", Int(1)),
        ("session.a.x < 1", Map(BTreeMap::new())),
        ("session.a.x < 1", List(vec![])),
        ("True < 'a'", Null),
    ] {
        assert!(memory(text, &m(v.clone())).is_err(), "{text} with {v:?}");
    }
    // Lists (memory vs memory) order lexicographically.
    let lists = |a: Vec<Value>, b: Vec<Value>| {
        memory(
            "session.a.x < session.a.y",
            &[("a.x", List(a)), ("a.y", List(b))],
        )
    };
    assert_eq!(
        lists(vec![Int(1), Int(2)], vec![Int(1), Int(3)]),
        Ok(Bool(true))
    );
    assert_eq!(lists(vec![Int(1)], vec![Int(1), Int(0)]), Ok(Bool(true)));
    assert_eq!(lists(vec![Int(2)], vec![Int(1), Int(0)]), Ok(Bool(false)));
    assert_eq!(lists(vec![Null], vec![Null]), Ok(Bool(false)));
    assert!(lists(vec![Null], vec![Int(1)]).is_err());
}

#[test]
fn values_from_json() {
    let j = serde_json::json!({"a": [1, 2.5, "x", null, true], "b": {"c": u64::MAX}});
    let v = Value::from(j);
    let Value::Map(m) = &v else { panic!() };
    assert_eq!(
        m["a"],
        Value::List(vec![
            Value::Int(1),
            Value::Float(2.5),
            Value::Str("x".into()),
            Value::Null,
            Value::Bool(true)
        ])
    );
    let Value::Map(b) = &m["b"] else { panic!() };
    assert_eq!(b["c"], Value::Float(u64::MAX as f64));
}

// --- property tests -------------------------------------------------------

fn ident() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_]{0,7}|[éü][a-z]{0,3}"
        .prop_filter("not a keyword", |s| !PY_KEYWORDS.contains(&s.as_str()))
}

fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        Just(Literal::Null),
        any::<bool>().prop_map(Literal::Bool),
        any::<i64>().prop_map(Literal::Int),
        any::<f64>()
            .prop_filter("NaN has no literal", |f| !f.is_nan())
            .prop_map(Literal::Float),
        any::<String>().prop_map(Literal::Str),
    ]
}

fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop_oneof![
        Just(CmpOp::Eq),
        Just(CmpOp::Ne),
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    let s = Span::default();
    let leaf = prop_oneof![
        literal().prop_map(move |l| Expr::new(ExprKind::Literal(l), s)),
        (ident(), ident()).prop_map(move |(namespace, entry)| Expr::new(
            ExprKind::Memory(MemoryRef {
                namespace,
                entry,
                span: s,
                namespace_span: s,
                entry_span: s,
            }),
            s
        )),
    ];
    leaf.prop_recursive(4, 48, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4)
                .prop_map(move |v| Expr::new(ExprKind::Or(v), s)),
            prop::collection::vec(inner.clone(), 2..4)
                .prop_map(move |v| Expr::new(ExprKind::And(v), s)),
            inner
                .clone()
                .prop_map(move |e| Expr::new(ExprKind::Not(Box::new(e)), s)),
            (
                inner.clone(),
                prop::collection::vec((cmp_op(), inner), 1..3)
            )
                .prop_map(move |(f, rest)| {
                    Expr::new(
                        ExprKind::Compare {
                            first: Box::new(f),
                            rest,
                        },
                        s,
                    )
                }),
        ]
    })
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        any::<f64>().prop_map(Value::Float),
        "[a-c]{0,2}".prop_map(Value::Str),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::List),
            prop::collection::btree_map("[a-b]", inner, 0..3).prop_map(Value::Map),
        ]
    })
}

const FRAGMENTS: &[&str] = &[
    "session", ".", "a", "b_1", "é", "(", ")", "==", "!=", "<", "<=", ">", ">=", "=", "===", "!",
    "not", "and", "or", "in", "is", "if", "lambda", "True", "false", "null", "None", "none", "'x'",
    "\"y\"", "'", "\"", "'''", "r'\\'", "f'", "b'", "'\\x4", "'\\u12", "'\\N{", "\\", "\\\n", "-",
    "+", "*", "5", "-5", "1.5", ".5", "1e", "1e309", "0x", "0b2", "01", "1_", "_", "#", "\n", "\r",
    "\t", " ", "...", ",", "[", "]", "{", "}", ":", ":=", "&&", "||", "\0", "\u{a0}", "😀",
];

fn check_error_span(text: &str, e: &ConditionError) {
    assert!(
        e.span.start <= e.span.end && e.span.end <= text.len(),
        "{e:?} in {text:?}"
    );
    assert!(text.is_char_boundary(e.span.start) && text.is_char_boundary(e.span.end));
    assert!(!e.message.is_empty());
    assert!(
        !e.message.contains("Rule::") && !e.message.contains("or_expr"),
        "{}",
        e.message
    );
}

fn check_parse(text: &str) {
    match parse(text) {
        Err(e) => check_error_span(text, &e),
        Ok(c) => {
            // Whatever parses prints to something that parses back the same.
            let printed = print(&c.expr);
            let again = parse(&printed).unwrap_or_else(|e| panic!("{printed:?}: {e:?}"));
            assert!(
                again.expr.eq_ignoring_spans(&c.expr),
                "{text:?} -> {printed:?}"
            );
            for r in c.references() {
                assert!(text.get(r.span.range()).is_some());
                assert_eq!(&text[r.entry_span.range()], r.entry);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn print_then_parse_round_trips(e in expr()) {
        let text = print(&e);
        let parsed = parse(&text).map_err(|err| TestCaseError::fail(format!("{text:?}: {err:?}")))?;
        prop_assert!(parsed.expr.eq_ignoring_spans(&e), "{text:?}\n{:?}\n{:?}", parsed.expr, e);
    }

    #[test]
    fn parse_never_panics_on_arbitrary_text(text in any::<String>()) {
        check_parse(&text);
    }

    #[test]
    fn parse_never_panics_on_fragments(
        parts in prop::collection::vec((prop::sample::select(FRAGMENTS), prop::bool::ANY), 0..14)
    ) {
        let mut text = String::new();
        for (frag, space) in parts {
            text.push_str(frag);
            if space {
                text.push(' ');
            }
        }
        check_parse(&text);
    }

    #[test]
    fn evaluate_never_panics(e in expr(), vals in prop::collection::vec(value(), 1..4)) {
        let lookup = |ns: &str, entry: &str| {
            let i = (ns.len() + entry.len()) % (vals.len() + 1);
            vals.get(i).cloned()
        };
        let r = evaluate(&e, &lookup);
        let cond = Condition { expr: e, source: String::new() };
        let h = holds(&cond, &lookup);
        prop_assert_eq!(h, r.map(|v| truthy(&v)).unwrap_or(false));
    }
}
