//! Static analysis of Python tool modules.
//!
//! A tool module is a Python file whose module-level functions are decorated
//! with the `tool` decorator of `rasa.calm_v2.tools.decorator` (or its
//! `rasa.mantle` twin). [`analyze`] parses the file with ruff's error-tolerant
//! parser (it never executes it) and extracts everything the checks need:
//! the tools and their signatures, the imports, and every
//! `context.memory.set/get(...)` call with its statically known slot name.

use std::collections::{HashMap, HashSet};

use ruff_python_ast::statement_visitor::{self, StatementVisitor};
use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{
    self as ast, ConversionFlag, Expr, FStringPart, InterpolatedStringElement, Number, Operator,
    PySourceType, Stmt,
};
use ruff_text_size::{Ranged, TextRange};
use serde_json::{json, Map, Value};

use crate::source::Span;

/// Fully qualified paths of the tool decorator.
const TOOL_PATHS: [&str; 2] = [
    "rasa.calm_v2.tools.decorator.tool",
    "rasa.mantle.tools.decorator.tool",
];

/// Maximum recursion depth for name / type / string resolution.
const MAX_DEPTH: usize = 32;

/// Everything [`analyze`] learned about one Python tool module.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolModule {
    /// All syntax errors reported by the parser; the rest of the analysis
    /// runs on the recovered AST.
    pub syntax_errors: Vec<SyntaxError>,
    /// Module-level functions decorated with the tool decorator, in source order.
    pub tools: Vec<ToolDef>,
    /// Every import statement at any nesting level, in source order.
    pub imports: Vec<Import>,
    /// Every `<context>.memory.set(...)` call in the file.
    pub memory_writes: Vec<MemoryAccess>,
    /// Every `<context>.memory.get(...)` call in the file.
    pub memory_reads: Vec<MemoryAccess>,
    /// Span of the first `@tool` decorator when the module never binds the
    /// name `tool` (importing the module would raise `NameError`).
    pub unbound_decorator: Option<Span>,
}

/// A parse error.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub message: String,
    pub span: Span,
}

/// One function decorated with the tool decorator.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// The function name.
    pub name: String,
    /// Span of the function name identifier.
    pub name_span: Span,
    /// The whole decorator expression (after `@`).
    pub decorator_span: Span,
    /// The `description=` argument of the decorator.
    pub description: Description,
    /// `async def` rather than `def`.
    pub is_async: bool,
    /// From the `async`/`def` keyword to the end of the function name.
    pub def_span: Span,
    /// LLM-facing parameters in signature order (without the context
    /// parameter, `tracker_handle`, positional-only and variadic ones).
    pub params: Vec<Param>,
    /// How the tool receives its `ToolContext`.
    pub context: ContextParam,
    /// The return annotation, if any.
    pub returns: Option<Annotation>,
    /// The return annotation resolves to `ToolResult`.
    pub returns_tool_result: bool,
    /// Name spans of positional-only parameters.
    pub positional_only: Vec<Span>,
    /// Name spans of `*args` / `**kwargs` parameters.
    pub var_args: Vec<Span>,
}

/// The tool description given to the decorator.
#[derive(Debug, Clone, PartialEq)]
pub enum Description {
    /// `description="..."` (a string literal, possibly implicitly concatenated).
    Literal { value: String, span: Span },
    /// `description=<expression that is not a string literal>`.
    Dynamic { span: Span },
    /// No `description=` keyword.
    Missing { reason: MissingDescription },
}

/// Why a tool has no description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingDescription {
    /// `@tool` without a call.
    Bare,
    /// `@tool()` (or a call with neither positional args nor `description=`).
    EmptyCall,
    /// `@tool("...")`: a positional argument instead of `description=`.
    Positional,
}

/// One LLM-facing tool parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    /// Span of the parameter name.
    pub span: Span,
    pub annotation: Option<Annotation>,
    pub has_default: bool,
    /// Declared after `*` / `*args`.
    pub keyword_only: bool,
}

/// A type annotation.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// The annotation's source text.
    pub text: String,
    pub span: Span,
    /// The interpreted type (`Optional` already unwrapped).
    pub ty: TypeAnn,
}

/// The interpretation of an annotation relevant for the JSON schema.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeAnn {
    Str,
    Int,
    Float,
    Bool,
    /// `list` / `List` (`None`) or `list[X]` (`Some(X)`).
    List(Option<Box<TypeAnn>>),
    Other,
}

/// How a tool receives its `ToolContext` (spans are parameter-name spans).
#[derive(Debug, Clone, PartialEq)]
pub enum ContextParam {
    /// A parameter literally named `context`.
    Named { span: Span },
    /// No `context` parameter, but a parameter annotated `ToolContext`.
    Misnamed { name: String, span: Span },
    /// No context parameter, but `**kwargs` catches it.
    KwArgs { span: Span },
    /// No way to receive the context.
    Missing,
}

/// One import statement (one entry per module of `import a, b`).
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// Dotted module path without the leading dots (empty for `from . import x`).
    pub module: String,
    /// Number of leading dots of a relative import.
    pub level: u32,
    /// Imported names of `from x import a, b` (empty for `import x`).
    pub names: Vec<String>,
    /// Span of the module path in the statement (dots included).
    pub span: Span,
    /// Not inside a function or class body.
    pub top_level: bool,
}

/// One `<recv>.memory.set(...)` / `.get(...)` call, where `<recv>` is a
/// parameter (or an alias of one) of an enclosing function, or
/// `<m>.set/get(...)` with `m = <recv>.memory`. Lambda bodies are skipped.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryAccess {
    pub name: MemoryName,
    /// The slot-name argument (or the argument list when there is none).
    pub arg_span: Span,
    /// The whole call expression.
    pub call_span: Span,
    /// Name of the nearest enclosing function.
    pub function: Option<String>,
}

/// The slot name of a memory access.
#[derive(Debug, Clone, PartialEq)]
pub enum MemoryName {
    /// Statically known; `via` names the module-level constant the value came
    /// from and the span of that constant's assignment target.
    Known {
        value: String,
        via: Option<(String, Span)>,
    },
    /// Cannot be known statically.
    Dynamic,
}

/// Analyze the source of one Python tool module. Never panics and never
/// fails as a whole: syntax errors are reported and the analysis runs on the
/// recovered AST.
pub fn analyze(source: &str) -> ToolModule {
    std::panic::catch_unwind(|| analyze_inner(source)).unwrap_or_else(|_| ToolModule {
        syntax_errors: vec![SyntaxError {
            message: "internal error while parsing this file".to_string(),
            span: Span::new(0, source.len()),
        }],
        ..ToolModule::default()
    })
}

/// JSON schema of a tool's parameters object (decision D3).
pub fn tool_schema(tool: &ToolDef) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in &tool.params {
        let ty = param.annotation.as_ref().map_or(&TypeAnn::Other, |a| &a.ty);
        properties.insert(param.name.clone(), type_schema(ty));
        if !param.has_default {
            required.push(Value::String(param.name.clone()));
        }
    }
    json!({
        "type": "object",
        "properties": Value::Object(properties),
        "required": required,
        "additionalProperties": false,
    })
}

/// The JSON schema type name of a scalar annotation.
fn scalar_type(ty: &TypeAnn) -> Option<&'static str> {
    match ty {
        TypeAnn::Str => Some("string"),
        TypeAnn::Int => Some("integer"),
        TypeAnn::Float => Some("number"),
        TypeAnn::Bool => Some("boolean"),
        TypeAnn::List(_) | TypeAnn::Other => None,
    }
}

fn type_schema(ty: &TypeAnn) -> Value {
    match ty {
        TypeAnn::List(None) => json!({"type": "array"}),
        TypeAnn::List(Some(inner)) => {
            json!({"type": "array", "items": {"type": scalar_type(inner).unwrap_or("string")}})
        }
        other => json!({"type": scalar_type(other).unwrap_or("string")}),
    }
}

fn span(range: TextRange) -> Span {
    Span::new(usize::from(range.start()), usize::from(range.end()))
}

fn analyze_inner(source: &str) -> ToolModule {
    let parsed = ruff_python_parser::parse_unchecked_source(source, PySourceType::Python);
    let mut module = ToolModule {
        syntax_errors: parsed
            .errors()
            .iter()
            .map(|e| SyntaxError {
                message: e.error.to_string(),
                span: span(e.location),
            })
            .collect(),
        ..ToolModule::default()
    };
    let body = parsed.suite();
    let scope = ModuleScope::new(body);

    // Tools: module-level function definitions (also inside module-level
    // if/try/with blocks, but not inside classes or functions).
    for stmt in flat_stmts(body) {
        let Stmt::FunctionDef(func) = stmt else {
            continue;
        };
        for decorator in &func.decorator_list {
            let Some(unbound) = scope.tool_decorator(&decorator.expression) else {
                continue;
            };
            let decorator_span = span(decorator.expression.range());
            if unbound && module.unbound_decorator.is_none() {
                module.unbound_decorator = Some(decorator_span);
            }
            let def_span = def_span(parsed.tokens(), func);
            module.tools.push(scope.tool_def(
                source,
                func,
                &decorator.expression,
                decorator_span,
                def_span,
            ));
            break;
        }
    }

    let mut walker = Walker {
        source,
        scope: &scope,
        functions: Vec::new(),
        nesting: 0,
        module: &mut module,
    };
    walker.visit_body(body);
    module
}

/// Span from the `async`/`def` keyword to the end of the function name.
fn def_span(tokens: &ast::token::Tokens, func: &ast::StmtFunctionDef) -> Span {
    let name = func.name.range;
    let lower = func
        .decorator_list
        .last()
        .map_or(func.range.start(), |d| d.range.end());
    let toks: &[ast::token::Token] = tokens;
    let between: Vec<&ast::token::Token> = toks
        .iter()
        .filter(|t| t.start() >= lower && t.end() <= name.start())
        .filter(|t| !matches!(t.kind(), TokenKind::Comment | TokenKind::NonLogicalNewline))
        .collect();
    let start = match between.iter().rposition(|t| t.kind() == TokenKind::Def) {
        Some(i) => match i.checked_sub(1).map(|j| between[j]) {
            Some(prev) if prev.kind() == TokenKind::Async => prev.start(),
            _ => between[i].start(),
        },
        None => name.start(),
    };
    Span::new(usize::from(start), usize::from(name.end()))
}

/// Collects the statements of a body, descending into compound statements but
/// not into function or class bodies.
fn flat_stmts(body: &[Stmt]) -> Vec<&Stmt> {
    struct Flat<'a>(Vec<&'a Stmt>);
    impl<'a> StatementVisitor<'a> for Flat<'a> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            self.0.push(stmt);
            if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                statement_visitor::walk_stmt(self, stmt);
            }
        }
    }
    let mut flat = Flat(Vec::new());
    flat.visit_body(body);
    flat.0
}

/// Names declared `global` anywhere in the module.
fn global_names(body: &[Stmt]) -> HashSet<&str> {
    struct Globals<'a>(HashSet<&'a str>);
    impl<'a> StatementVisitor<'a> for Globals<'a> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if let Stmt::Global(g) = stmt {
                self.0.extend(g.names.iter().map(|n| n.id.as_str()));
            }
            statement_visitor::walk_stmt(self, stmt);
        }
    }
    let mut globals = Globals(HashSet::new());
    globals.visit_body(body);
    globals.0
}

/// Calls `f` for every plain name bound by an assignment target.
fn target_names<'a>(target: &'a Expr, f: &mut dyn FnMut(&'a ast::ExprName)) {
    match target {
        Expr::Name(n) => f(n),
        Expr::Tuple(t) => t.elts.iter().for_each(|e| target_names(e, f)),
        Expr::List(l) => l.elts.iter().for_each(|e| target_names(e, f)),
        Expr::Starred(s) => target_names(&s.value, f),
        _ => {}
    }
}

/// What a module-level name is bound to.
enum Binding<'a> {
    /// An import; the qualified name it refers to.
    Import(String),
    /// A plain `name = value` assignment; `target` is the name's span.
    Value { value: &'a Expr, target: Span },
    /// Anything else (def, class, loop variable, augmented assignment, ...).
    Other,
}

/// The result of resolving a name or attribute chain.
enum Resolved {
    /// A qualified dotted name (through imports).
    Qualified(String),
    /// The module never binds this name.
    Unbound(String),
    /// Possibly bound by a `from x import *` of an unknown module.
    Star(String),
    /// Bound to something we cannot follow.
    Unknown,
}

/// Module-level bindings.
struct ModuleScope<'a> {
    bindings: HashMap<&'a str, Vec<Binding<'a>>>,
    star_modules: Vec<String>,
    globals: HashSet<&'a str>,
}

impl<'a> ModuleScope<'a> {
    fn new(body: &'a [Stmt]) -> Self {
        let mut scope = ModuleScope {
            bindings: HashMap::new(),
            star_modules: Vec::new(),
            globals: global_names(body),
        };
        for stmt in flat_stmts(body) {
            scope.bind_stmt(stmt);
        }
        scope
    }

    fn bind(&mut self, name: &'a str, binding: Binding<'a>) {
        self.bindings.entry(name).or_default().push(binding);
    }

    fn bind_targets(&mut self, target: &'a Expr) {
        target_names(target, &mut |n| self.bind(n.id.as_str(), Binding::Other));
    }

    fn bind_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    let full = alias.name.id.as_str();
                    match &alias.asname {
                        Some(asname) => {
                            self.bind(asname.id.as_str(), Binding::Import(full.to_string()))
                        }
                        None => {
                            let first = full.split('.').next().unwrap_or(full);
                            self.bind(first, Binding::Import(first.to_string()));
                        }
                    }
                }
            }
            Stmt::ImportFrom(import) => {
                let module = format!(
                    "{}{}",
                    ".".repeat(import.level.min(64) as usize),
                    import.module.as_ref().map_or("", |m| m.id.as_str())
                );
                for alias in &import.names {
                    let name = alias.name.id.as_str();
                    if name == "*" {
                        self.star_modules.push(module.clone());
                        continue;
                    }
                    let bound = alias.asname.as_ref().map_or(name, |a| a.id.as_str());
                    self.bind(bound, Binding::Import(format!("{module}.{name}")));
                }
            }
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    if let Expr::Name(n) = target {
                        self.bind(
                            n.id.as_str(),
                            Binding::Value {
                                value: &assign.value,
                                target: span(n.range),
                            },
                        );
                    } else {
                        self.bind_targets(target);
                    }
                }
            }
            Stmt::AnnAssign(assign) => match (&*assign.target, &assign.value) {
                (Expr::Name(n), Some(value)) => self.bind(
                    n.id.as_str(),
                    Binding::Value {
                        value,
                        target: span(n.range),
                    },
                ),
                (_, None) => {}
                (target, Some(_)) => self.bind_targets(target),
            },
            Stmt::AugAssign(assign) => self.bind_targets(&assign.target),
            Stmt::FunctionDef(func) => self.bind(func.name.id.as_str(), Binding::Other),
            Stmt::ClassDef(class) => self.bind(class.name.id.as_str(), Binding::Other),
            Stmt::For(stmt_for) => self.bind_targets(&stmt_for.target),
            Stmt::With(with) => {
                for item in &with.items {
                    if let Some(vars) = &item.optional_vars {
                        self.bind_targets(vars);
                    }
                }
            }
            Stmt::Try(stmt_try) => {
                for handler in &stmt_try.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    if let Some(name) = &h.name {
                        self.bind(name.id.as_str(), Binding::Other);
                    }
                }
            }
            _ => {}
        }
    }

    /// Resolves a name / attribute chain through module-level bindings.
    fn resolve(&self, expr: &Expr, depth: usize) -> Vec<Resolved> {
        if depth > MAX_DEPTH {
            return vec![Resolved::Unknown];
        }
        match expr {
            Expr::Name(n) => self.resolve_name(n.id.as_str(), depth),
            Expr::Attribute(attr) => self
                .resolve(&attr.value, depth + 1)
                .into_iter()
                .map(|r| {
                    let a = attr.attr.id.as_str();
                    match r {
                        Resolved::Qualified(q) => Resolved::Qualified(format!("{q}.{a}")),
                        Resolved::Unbound(q) => Resolved::Unbound(format!("{q}.{a}")),
                        Resolved::Star(q) => Resolved::Star(format!("{q}.{a}")),
                        Resolved::Unknown => Resolved::Unknown,
                    }
                })
                .collect(),
            _ => vec![Resolved::Unknown],
        }
    }

    fn resolve_name(&self, name: &str, depth: usize) -> Vec<Resolved> {
        match self.bindings.get(name) {
            None => {
                let mut out: Vec<Resolved> = self
                    .star_modules
                    .iter()
                    .map(|m| Resolved::Qualified(format!("{m}.{name}")))
                    .collect();
                if out.is_empty() {
                    out.push(Resolved::Unbound(name.to_string()));
                } else {
                    out.push(Resolved::Star(name.to_string()));
                }
                out
            }
            Some(bindings) => bindings
                .iter()
                .flat_map(|b| match b {
                    Binding::Import(q) => vec![Resolved::Qualified(q.clone())],
                    Binding::Value { value, .. } => self.resolve(value, depth + 1),
                    Binding::Other => vec![Resolved::Unknown],
                })
                .collect(),
        }
    }

    /// `Some(unbound)` when the decorator is the tool decorator (bare or
    /// called); `unbound` is true when the module never binds `tool`.
    fn tool_decorator(&self, expr: &Expr) -> Option<bool> {
        let target = match expr {
            Expr::Call(call) => &*call.func,
            other => other,
        };
        let resolved = self.resolve(target, 0);
        let mut found = None;
        for r in resolved {
            match r {
                Resolved::Qualified(q) if TOOL_PATHS.contains(&q.as_str()) => return Some(false),
                Resolved::Unbound(n) if n == "tool" => found = Some(true),
                Resolved::Star(n) if n == "tool" => found = found.or(Some(false)),
                _ => {}
            }
        }
        found
    }

    /// The resolved last name of a type expression (`X`, `a.b.X`, `"X"`).
    fn last_name(&self, expr: &Expr, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return None;
        }
        match expr {
            Expr::Name(n) => {
                let resolved = self.resolve_name(n.id.as_str(), depth + 1);
                let qualified = resolved.into_iter().find_map(|r| match r {
                    Resolved::Qualified(q) | Resolved::Unbound(q) | Resolved::Star(q) => Some(q),
                    Resolved::Unknown => None,
                });
                let q = qualified.unwrap_or_else(|| n.id.to_string());
                Some(q.rsplit('.').next().unwrap_or(&q).to_string())
            }
            Expr::Attribute(attr) => Some(attr.attr.id.to_string()),
            Expr::StringLiteral(s) => {
                let parsed = ruff_python_parser::parse_expression(s.value.to_str()).ok()?;
                self.last_name(parsed.expr(), depth + 1)
            }
            _ => None,
        }
    }

    /// Interprets an annotation for the JSON schema.
    fn type_ann(&self, expr: &Expr, depth: usize) -> TypeAnn {
        if depth > MAX_DEPTH {
            return TypeAnn::Other;
        }
        match expr {
            Expr::StringLiteral(s) => {
                match ruff_python_parser::parse_expression(s.value.to_str()) {
                    Ok(parsed) => self.type_ann(parsed.expr(), depth + 1),
                    Err(_) => TypeAnn::Other,
                }
            }
            Expr::Name(_) | Expr::Attribute(_) => {
                match self.last_name(expr, depth + 1).as_deref() {
                    Some("str") => TypeAnn::Str,
                    Some("int") => TypeAnn::Int,
                    Some("float") => TypeAnn::Float,
                    Some("bool") => TypeAnn::Bool,
                    Some("list" | "List") => TypeAnn::List(None),
                    _ => TypeAnn::Other,
                }
            }
            Expr::Subscript(sub) => match self.last_name(&sub.value, depth + 1).as_deref() {
                Some("Optional") => match &*sub.slice {
                    Expr::Tuple(_) => TypeAnn::Other,
                    inner => self.union(&[inner], depth + 1),
                },
                Some("Union") => match &*sub.slice {
                    Expr::Tuple(t) => self.union(&t.elts.iter().collect::<Vec<_>>(), depth + 1),
                    inner => self.union(&[inner], depth + 1),
                },
                Some("list" | "List") => match &*sub.slice {
                    Expr::Tuple(_) => TypeAnn::List(Some(Box::new(TypeAnn::Other))),
                    inner => TypeAnn::List(Some(Box::new(self.type_ann(inner, depth + 1)))),
                },
                _ => TypeAnn::Other,
            },
            Expr::BinOp(bin) if bin.op == Operator::BitOr => {
                let mut members = Vec::new();
                flatten_bitor(expr, &mut members, 0);
                self.union(&members, depth + 1)
            }
            _ => TypeAnn::Other,
        }
    }

    /// A union is its single non-`None` member, otherwise `Other`.
    fn union(&self, members: &[&Expr], depth: usize) -> TypeAnn {
        let rest: Vec<&&Expr> = members.iter().filter(|m| !is_none(m)).collect();
        match rest.as_slice() {
            [single] => self.type_ann(single, depth + 1),
            _ => TypeAnn::Other,
        }
    }

    /// `ToolContext`, `Optional[ToolContext]`, `ToolContext | None`, ...
    fn is_tool_context(&self, expr: &Expr, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match expr {
            Expr::Subscript(sub) => {
                let outer = self.last_name(&sub.value, depth + 1);
                match (outer.as_deref(), &*sub.slice) {
                    (Some("Optional"), inner) => self.is_tool_context(inner, depth + 1),
                    (Some("Union"), Expr::Tuple(t)) => {
                        let rest: Vec<&Expr> = t.elts.iter().filter(|e| !is_none(e)).collect();
                        rest.len() == 1 && self.is_tool_context(rest[0], depth + 1)
                    }
                    _ => false,
                }
            }
            Expr::BinOp(bin) if bin.op == Operator::BitOr => {
                let mut members = Vec::new();
                flatten_bitor(expr, &mut members, 0);
                let rest: Vec<&Expr> = members.into_iter().filter(|e| !is_none(e)).collect();
                rest.len() == 1 && self.is_tool_context(rest[0], depth + 1)
            }
            Expr::StringLiteral(s) => {
                match ruff_python_parser::parse_expression(s.value.to_str()) {
                    Ok(parsed) => self.is_tool_context(parsed.expr(), depth + 1),
                    Err(_) => false,
                }
            }
            _ => self.last_name(expr, depth + 1).as_deref() == Some("ToolContext"),
        }
    }

    /// A module-level constant: assigned exactly once, never declared `global`.
    fn constant(&self, name: &str) -> Option<(&'a Expr, Span)> {
        if self.globals.contains(name) {
            return None;
        }
        match self.bindings.get(name)?.as_slice() {
            [Binding::Value { value, target }] => Some((value, *target)),
            _ => None,
        }
    }

    fn tool_def(
        &self,
        source: &str,
        func: &ast::StmtFunctionDef,
        decorator: &Expr,
        decorator_span: Span,
        def_span: Span,
    ) -> ToolDef {
        let params = &func.parameters;
        let annotation = |expr: &Expr| Annotation {
            text: source
                .get(span(expr.range()).range())
                .unwrap_or("")
                .to_string(),
            span: span(expr.range()),
            ty: self.type_ann(expr, 0),
        };

        let all = || params.iter_non_variadic_params();
        let context = if let Some(p) = all().find(|p| p.name().id == "context") {
            ContextParam::Named {
                span: span(p.name().range),
            }
        } else if let Some(p) =
            all().find(|p| p.annotation().is_some_and(|a| self.is_tool_context(a, 0)))
        {
            ContextParam::Misnamed {
                name: p.name().id.to_string(),
                span: span(p.name().range),
            }
        } else if let Some(kwarg) = &params.kwarg {
            ContextParam::KwArgs {
                span: span(kwarg.name.range),
            }
        } else {
            ContextParam::Missing
        };
        let context_name = match &context {
            ContextParam::Misnamed { name, .. } => name.as_str(),
            _ => "context",
        };

        let positional_only = params
            .posonlyargs
            .iter()
            .map(|p| span(p.name().range))
            .collect();
        let var_args = params
            .vararg
            .iter()
            .chain(params.kwarg.iter())
            .map(|p| span(p.name.range))
            .collect();
        let regular = params.args.iter().map(|p| (p, false));
        let keyword = params.kwonlyargs.iter().map(|p| (p, true));
        let params = regular
            .chain(keyword)
            .filter(|(p, _)| {
                let name = p.name().id.as_str();
                name != context_name && name != "context" && name != "tracker_handle"
            })
            .map(|(p, keyword_only)| Param {
                name: p.name().id.to_string(),
                span: span(p.name().range),
                annotation: p.annotation().map(annotation),
                has_default: p.default.is_some(),
                keyword_only,
            })
            .collect();

        let returns = func.returns.as_deref().map(annotation);
        let returns_tool_result = func
            .returns
            .as_deref()
            .is_some_and(|r| self.last_name(r, 0).as_deref() == Some("ToolResult"));

        ToolDef {
            name: func.name.id.to_string(),
            name_span: span(func.name.range),
            decorator_span,
            description: description(decorator),
            is_async: func.is_async,
            def_span,
            params,
            context,
            returns,
            returns_tool_result,
            positional_only,
            var_args,
        }
    }
}

fn description(decorator: &Expr) -> Description {
    let Expr::Call(call) = decorator else {
        return Description::Missing {
            reason: MissingDescription::Bare,
        };
    };
    let keyword = call
        .arguments
        .keywords
        .iter()
        .find(|k| k.arg.as_ref().is_some_and(|a| a.id == "description"));
    match keyword {
        Some(k) => match &k.value {
            Expr::StringLiteral(s) => Description::Literal {
                value: s.value.to_str().to_string(),
                span: span(s.range),
            },
            other => Description::Dynamic {
                span: span(other.range()),
            },
        },
        None if !call.arguments.args.is_empty() => Description::Missing {
            reason: MissingDescription::Positional,
        },
        None => Description::Missing {
            reason: MissingDescription::EmptyCall,
        },
    }
}

fn is_none(expr: &Expr) -> bool {
    match expr {
        Expr::NoneLiteral(_) => true,
        Expr::StringLiteral(s) => s.value.to_str().trim() == "None",
        _ => false,
    }
}

fn flatten_bitor<'e>(expr: &'e Expr, out: &mut Vec<&'e Expr>, depth: usize) {
    match expr {
        Expr::BinOp(bin) if bin.op == Operator::BitOr && depth < MAX_DEPTH => {
            flatten_bitor(&bin.left, out, depth + 1);
            flatten_bitor(&bin.right, out, depth + 1);
        }
        other => out.push(other),
    }
}

/// Names visible as context receivers inside one function.
struct FunctionScope {
    name: String,
    /// Parameters and aliases of parameters (`ctx = context`).
    receivers: HashSet<String>,
    /// Names assigned `<receiver>.memory`.
    memory_aliases: HashSet<String>,
    /// Every name bound locally (parameters and assignment targets).
    locals: HashSet<String>,
}

impl FunctionScope {
    fn new(func: &ast::StmtFunctionDef) -> Self {
        let mut receivers: HashSet<String> = func
            .parameters
            .iter()
            .map(|p| p.name().id.to_string())
            .collect();
        let mut locals = receivers.clone();
        let mut memory_aliases = HashSet::new();

        let mut assignments: Vec<(&str, &Expr)> = Vec::new();
        for stmt in flat_stmts(&func.body) {
            match stmt {
                Stmt::Assign(assign) => {
                    for target in &assign.targets {
                        if let Expr::Name(n) = target {
                            assignments.push((n.id.as_str(), &assign.value));
                        }
                        target_names(target, &mut |n| {
                            locals.insert(n.id.to_string());
                        });
                    }
                }
                Stmt::AnnAssign(assign) => {
                    if let (Expr::Name(n), Some(value)) = (&*assign.target, &assign.value) {
                        assignments.push((n.id.as_str(), value));
                        locals.insert(n.id.to_string());
                    }
                }
                Stmt::AugAssign(assign) => target_names(&assign.target, &mut |n| {
                    locals.insert(n.id.to_string());
                }),
                Stmt::For(f) => target_names(&f.target, &mut |n| {
                    locals.insert(n.id.to_string());
                }),
                Stmt::With(w) => {
                    for item in &w.items {
                        if let Some(vars) = &item.optional_vars {
                            target_names(vars, &mut |n| {
                                locals.insert(n.id.to_string());
                            });
                        }
                    }
                }
                Stmt::FunctionDef(f) => {
                    locals.insert(f.name.id.to_string());
                }
                Stmt::ClassDef(c) => {
                    locals.insert(c.name.id.to_string());
                }
                Stmt::Import(_) | Stmt::ImportFrom(_) => {
                    // Imports bind names too; they are never context aliases.
                }
                _ => {}
            }
        }
        // Aliases of aliases: iterate to a fixpoint (bounded).
        for _ in 0..assignments.len().min(MAX_DEPTH) + 1 {
            let mut changed = false;
            for (target, value) in &assignments {
                match value {
                    Expr::Name(n) if receivers.contains(n.id.as_str()) => {
                        changed |= receivers.insert((*target).to_string());
                    }
                    Expr::Attribute(attr) if attr.attr.id == "memory" => {
                        if let Expr::Name(n) = &*attr.value {
                            if receivers.contains(n.id.as_str()) {
                                changed |= memory_aliases.insert((*target).to_string());
                            }
                        }
                    }
                    _ => {}
                }
            }
            if !changed {
                break;
            }
        }
        FunctionScope {
            name: func.name.id.to_string(),
            receivers,
            memory_aliases,
            locals,
        }
    }
}

/// Walks the whole module collecting imports and memory accesses.
struct Walker<'s, 'm> {
    source: &'s str,
    scope: &'s ModuleScope<'s>,
    functions: Vec<FunctionScope>,
    /// Depth of function / class bodies.
    nesting: usize,
    module: &'m mut ToolModule,
}

impl Walker<'_, '_> {
    fn record_import(&mut self, stmt: &Stmt) {
        let top_level = self.nesting == 0;
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    self.module.imports.push(Import {
                        module: alias.name.id.to_string(),
                        level: 0,
                        names: Vec::new(),
                        span: span(alias.name.range),
                        top_level,
                    });
                }
            }
            Stmt::ImportFrom(import) => self.module.imports.push(Import {
                module: import
                    .module
                    .as_ref()
                    .map_or_else(String::new, |m| m.id.to_string()),
                level: import.level,
                names: import.names.iter().map(|a| a.name.id.to_string()).collect(),
                span: from_module_span(self.source, import),
                top_level,
            }),
            _ => {}
        }
    }

    fn is_receiver(&self, name: &str) -> bool {
        self.functions
            .iter()
            .rev()
            .any(|f| f.receivers.contains(name))
    }

    fn is_memory_alias(&self, name: &str) -> bool {
        self.functions
            .iter()
            .rev()
            .any(|f| f.memory_aliases.contains(name))
    }

    fn check_memory_call(&mut self, call: &ast::ExprCall) {
        let Expr::Attribute(method) = &*call.func else {
            return;
        };
        let is_write = match method.attr.id.as_str() {
            "set" => true,
            "get" => false,
            _ => return,
        };
        let matches = match &*method.value {
            Expr::Attribute(memory) if memory.attr.id == "memory" => {
                matches!(&*memory.value, Expr::Name(n) if self.is_receiver(n.id.as_str()))
            }
            Expr::Name(n) => self.is_memory_alias(n.id.as_str()),
            _ => false,
        };
        if !matches {
            return;
        }
        let arg = call.arguments.args.first().or_else(|| {
            call.arguments
                .keywords
                .iter()
                .find(|k| {
                    k.arg
                        .as_ref()
                        .is_some_and(|a| matches!(a.id.as_str(), "entry" | "key" | "name"))
                })
                .map(|k| &k.value)
        });
        let (name, arg_span) = match arg {
            Some(arg) => {
                let name = match self.resolve_str(arg, false, false, 0) {
                    Some((value, via)) => MemoryName::Known { value, via },
                    None => MemoryName::Dynamic,
                };
                (name, span(arg.range()))
            }
            None => (MemoryName::Dynamic, span(call.arguments.range)),
        };
        let access = MemoryAccess {
            name,
            arg_span,
            call_span: span(call.range()),
            function: self.functions.last().map(|f| f.name.clone()),
        };
        if is_write {
            self.module.memory_writes.push(access);
        } else {
            self.module.memory_reads.push(access);
        }
    }

    /// Statically resolves a string expression; `via` is the first
    /// module-level constant involved. `in_fstring` also accepts integer
    /// literals; `module_scope` means function locals cannot shadow names.
    fn resolve_str(
        &self,
        expr: &Expr,
        in_fstring: bool,
        module_scope: bool,
        depth: usize,
    ) -> Option<(String, Option<(String, Span)>)> {
        if depth > MAX_DEPTH {
            return None;
        }
        match expr {
            Expr::StringLiteral(s) => Some((s.value.to_str().to_string(), None)),
            Expr::NumberLiteral(n) if in_fstring => match &n.value {
                Number::Int(i) => i.as_u64().map(|v| (v.to_string(), None)),
                _ => None,
            },
            Expr::Name(n) => {
                let name = n.id.as_str();
                if !module_scope && self.functions.iter().any(|f| f.locals.contains(name)) {
                    return None;
                }
                let (value, target) = self.scope.constant(name)?;
                let (value, _) = self.resolve_str(value, in_fstring, true, depth + 1)?;
                Some((value, Some((name.to_string(), target))))
            }
            Expr::BinOp(bin) if bin.op == Operator::Add => {
                let (left, left_via) =
                    self.resolve_str(&bin.left, in_fstring, module_scope, depth + 1)?;
                let (right, right_via) =
                    self.resolve_str(&bin.right, in_fstring, module_scope, depth + 1)?;
                Some((left + &right, left_via.or(right_via)))
            }
            Expr::FString(f) => {
                let mut out = String::new();
                let mut via = None;
                for part in f.value.iter() {
                    match part {
                        FStringPart::Literal(lit) => out.push_str(lit),
                        FStringPart::FString(fstring) => {
                            for element in fstring.elements.iter() {
                                match element {
                                    InterpolatedStringElement::Literal(lit) => out.push_str(lit),
                                    InterpolatedStringElement::Interpolation(i) => {
                                        if i.debug_text.is_some()
                                            || i.format_spec.is_some()
                                            || !matches!(
                                                i.conversion,
                                                ConversionFlag::None | ConversionFlag::Str
                                            )
                                        {
                                            return None;
                                        }
                                        let (value, v) = self.resolve_str(
                                            &i.expression,
                                            true,
                                            module_scope,
                                            depth + 1,
                                        )?;
                                        out.push_str(&value);
                                        via = via.or(v);
                                    }
                                }
                            }
                        }
                    }
                }
                Some((out, via))
            }
            _ => None,
        }
    }
}

impl<'a> Visitor<'a> for Walker<'_, '_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(_) | Stmt::ImportFrom(_) => self.record_import(stmt),
            Stmt::FunctionDef(func) => {
                self.functions.push(FunctionScope::new(func));
                self.nesting += 1;
                visitor::walk_stmt(self, stmt);
                self.nesting -= 1;
                self.functions.pop();
            }
            Stmt::ClassDef(_) => {
                self.nesting += 1;
                visitor::walk_stmt(self, stmt);
                self.nesting -= 1;
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Lambda(_) => {}
            Expr::Call(call) => {
                self.check_memory_call(call);
                visitor::walk_expr(self, expr);
            }
            _ => visitor::walk_expr(self, expr),
        }
    }
}

/// Span of the module path of a `from` import, leading dots included.
fn from_module_span(source: &str, import: &ast::StmtImportFrom) -> Span {
    let module = import.module.as_ref().map(|m| span(m.range));
    if import.level == 0 {
        return module.unwrap_or_else(|| span(import.range));
    }
    let stmt_start = usize::from(import.range.start());
    let Some(rest) = source.get(stmt_start..) else {
        return module.unwrap_or_else(|| span(import.range));
    };
    let Some(after_from) = rest.strip_prefix("from") else {
        return module.unwrap_or_else(|| span(import.range));
    };
    let mut offset = stmt_start + 4;
    let mut chars = after_from.char_indices().peekable();
    // Skip whitespace and line continuations.
    while let Some(&(i, c)) = chars.peek() {
        if c == ' ' || c == '\t' || c == '\\' || c == '\r' || c == '\n' || c == '\x0c' {
            chars.next();
            offset = stmt_start + 4 + i + c.len_utf8();
        } else {
            break;
        }
    }
    let dots_start = offset;
    let mut dots_end = dots_start;
    while let Some(&(i, '.')) = chars.peek() {
        chars.next();
        dots_end = stmt_start + 4 + i + 1;
    }
    if dots_end == dots_start {
        return module.unwrap_or_else(|| span(import.range));
    }
    match module {
        Some(m) if m.end >= dots_start => Span::new(dots_start, m.end),
        _ => Span::new(dots_start, dots_end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = r#"from rasa.calm_v2.tools.decorator import ToolContext, tool
from rasa.calm_v2.tools.result import ToolResult


@tool(description="Look up the customer's account balance")
async def check_balance(
    account_id: str,
    context: ToolContext = None,
) -> ToolResult:
    balance = await api.get_balance(account_id)
    context.memory.set("current_balance", balance)
    return ToolResult(llm_response={"balance": balance, "currency": "USD"})
"#;

    fn slice(src: &str, s: Span) -> &str {
        &src[s.range()]
    }

    fn one_tool(src: &str) -> ToolDef {
        let m = analyze(src);
        assert_eq!(m.tools.len(), 1, "{m:#?}");
        m.tools.into_iter().next().unwrap()
    }

    fn tools(src: &str) -> Vec<String> {
        analyze(src).tools.into_iter().map(|t| t.name).collect()
    }

    fn known(value: &str) -> MemoryName {
        MemoryName::Known {
            value: value.to_string(),
            via: None,
        }
    }

    /// Schema of the single parameter `x: <ann>`.
    fn prop(ann: &str) -> Value {
        let src = format!(
            "from rasa.calm_v2.tools.decorator import tool\nimport typing\nfrom typing import List, Optional, Union\n@tool(description='d')\nasync def f(x: {ann}, context=None):\n    pass\n"
        );
        let t = one_tool(&src);
        tool_schema(&t)["properties"]["x"].clone()
    }

    #[test]
    fn seed_example() {
        let m = analyze(SEED);
        assert!(m.syntax_errors.is_empty());
        assert_eq!(m.tools.len(), 1);
        let t = &m.tools[0];
        assert_eq!(t.name, "check_balance");
        assert_eq!(slice(SEED, t.name_span), "check_balance");
        assert_eq!(
            slice(SEED, t.decorator_span),
            "tool(description=\"Look up the customer's account balance\")"
        );
        assert_eq!(slice(SEED, t.def_span), "async def check_balance");
        assert!(t.is_async);
        assert_eq!(
            t.description,
            Description::Literal {
                value: "Look up the customer's account balance".into(),
                span: t_desc_span(SEED),
            }
        );
        assert!(
            matches!(t.context, ContextParam::Named { span } if slice(SEED, span) == "context")
        );
        assert!(t.returns_tool_result);
        assert_eq!(t.returns.as_ref().unwrap().text, "ToolResult");
        assert_eq!(
            tool_schema(t),
            json!({"type":"object","properties":{"account_id":{"type":"string"}},"required":["account_id"],"additionalProperties":false})
        );
        assert_eq!(m.memory_writes.len(), 1);
        assert_eq!(m.memory_writes[0].name, known("current_balance"));
        assert_eq!(
            slice(SEED, m.memory_writes[0].arg_span),
            "\"current_balance\""
        );
        assert_eq!(
            slice(SEED, m.memory_writes[0].call_span),
            "context.memory.set(\"current_balance\", balance)"
        );
        assert_eq!(
            m.memory_writes[0].function.as_deref(),
            Some("check_balance")
        );
        assert!(m.memory_reads.is_empty());
        assert_eq!(m.unbound_decorator, None);
        assert_eq!(m.imports.len(), 2);
        assert_eq!(m.imports[0].module, "rasa.calm_v2.tools.decorator");
        assert_eq!(m.imports[0].names, vec!["ToolContext", "tool"]);
        assert_eq!(slice(SEED, m.imports[1].span), "rasa.calm_v2.tools.result");
    }

    fn t_desc_span(src: &str) -> Span {
        let start = src.find("\"Look").unwrap();
        let end = src[start + 1..].find('"').unwrap() + start + 2;
        Span::new(start, end)
    }

    #[test]
    fn decorator_forms() {
        let body = "(description='d')\nasync def f(context): pass\n";
        let cases = [
            ("from rasa.calm_v2.tools.decorator import tool\n", "@tool"),
            ("from rasa.mantle.tools.decorator import tool\n", "@tool"),
            ("from rasa.calm_v2.tools.decorator import tool as t\n", "@t"),
            ("import rasa.calm_v2.tools.decorator as d\n", "@d.tool"),
            (
                "import rasa.calm_v2.tools.decorator\n",
                "@rasa.calm_v2.tools.decorator.tool",
            ),
            ("import rasa.mantle.tools.decorator\n", "@rasa.mantle.tools.decorator.tool"),
            ("from rasa.calm_v2.tools import decorator\n", "@decorator.tool"),
            ("from rasa.mantle.tools import decorator as dec\n", "@dec.tool"),
            (
                "from rasa.calm_v2.tools.decorator import tool\nmy_tool = tool\n",
                "@my_tool",
            ),
            ("from rasa.calm_v2.tools.decorator import *\n", "@tool"),
            (
                "try:\n    from rasa.calm_v2.tools.decorator import tool\nexcept ImportError:\n    from rasa.mantle.tools.decorator import tool\n",
                "@tool",
            ),
        ];
        for (imports, deco) in cases {
            let src = format!("{imports}{deco}{body}");
            let m = analyze(&src);
            assert_eq!(m.tools.len(), 1, "{src}");
            assert_eq!(m.unbound_decorator, None, "{src}");
            assert_eq!(
                slice(&src, m.tools[0].decorator_span),
                format!("{}(description='d')", &deco[1..])
            );
        }
    }

    #[test]
    fn non_tool_decorators() {
        let cases = [
            "from lib.x import tool\n@tool(description='d')\ndef f(context): pass\n",
            "import rasa.calm_v2.tools.decorator as d\n@d.other(description='d')\ndef f(context): pass\n",
            "def tool(f): return f\n@tool\ndef f(context): pass\n",
            "tool = 3\n@tool\ndef f(context): pass\n",
            "@other\ndef f(context): pass\n",
            "from rasa.calm_v2.tools.decorator import tool\nclass A:\n    @tool(description='d')\n    def f(self, context): pass\n",
            "from rasa.calm_v2.tools.decorator import tool\ndef outer():\n    @tool(description='d')\n    def f(context): pass\n",
        ];
        for src in cases {
            let m = analyze(src);
            assert!(m.tools.is_empty(), "{src}");
            assert_eq!(m.unbound_decorator, None, "{src}");
        }
    }

    #[test]
    fn unbound_decorator() {
        let src = "@tool\ndef a(context): pass\n\n@tool(description='x')\ndef b(context): pass\n";
        let m = analyze(src);
        assert_eq!(tools(src), vec!["a", "b"]);
        assert_eq!(slice(src, m.unbound_decorator.unwrap()), "tool");
        assert_eq!(
            m.tools[0].description,
            Description::Missing {
                reason: MissingDescription::Bare
            }
        );
        assert!(!m.tools[0].is_async);
        assert_eq!(slice(src, m.tools[0].def_span), "def a");
    }

    #[test]
    fn descriptions() {
        let imp = "from rasa.calm_v2.tools.decorator import tool\n";
        let d = |deco: &str| {
            let src = format!("{imp}@{deco}\nasync def f(context): pass\n");
            (one_tool(&src).description, src)
        };
        assert_eq!(
            d("tool").0,
            Description::Missing {
                reason: MissingDescription::Bare
            }
        );
        assert_eq!(
            d("tool()").0,
            Description::Missing {
                reason: MissingDescription::EmptyCall
            }
        );
        assert_eq!(
            d("tool('positional')").0,
            Description::Missing {
                reason: MissingDescription::Positional
            }
        );
        let (desc, src) = d("tool(description='a' \"b\")");
        match desc {
            Description::Literal { value, span } => {
                assert_eq!(value, "ab");
                assert_eq!(slice(&src, span), "'a' \"b\"");
            }
            other => panic!("{other:?}"),
        }
        let (desc, src) = d("tool(description=DESC)");
        match desc {
            Description::Dynamic { span } => assert_eq!(slice(&src, span), "DESC"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            d("tool(description=f'x{y}')").0,
            Description::Dynamic { .. }
        ));
    }

    #[test]
    fn sync_def_and_def_span() {
        let src = "from rasa.calm_v2.tools.decorator import tool\n@tool(description='d')\n# comment async\ndef  f(context): pass\n";
        let t = one_tool(src);
        assert!(!t.is_async);
        assert_eq!(slice(src, t.def_span), "def  f");
        let src = "from rasa.calm_v2.tools.decorator import tool\n@tool(description='d')\nasync   def g(context): pass\n";
        let t = one_tool(src);
        assert!(t.is_async);
        assert_eq!(slice(src, t.def_span), "async   def g");
    }

    #[test]
    fn context_params() {
        let imp = "from rasa.calm_v2.tools.decorator import tool, ToolContext\nfrom typing import Optional\n";
        let ctx = |sig: &str| {
            let src = format!("{imp}@tool(description='d')\nasync def f({sig}): pass\n");
            let t = one_tool(&src);
            (t, src)
        };
        let (t, src) = ctx("a: str, ctx: ToolContext");
        match &t.context {
            ContextParam::Misnamed { name, span } => {
                assert_eq!(name, "ctx");
                assert_eq!(slice(&src, *span), "ctx");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(t.params.len(), 1);
        let (t, _) = ctx("a: str, ctx: Optional[ToolContext] = None");
        assert!(matches!(t.context, ContextParam::Misnamed { .. }));
        let (t, _) = ctx("a: str, ctx: 'ToolContext | None' = None");
        assert!(matches!(t.context, ContextParam::Misnamed { .. }));
        let (t, _) = ctx("a: str");
        assert_eq!(t.context, ContextParam::Missing);
        let (t, src) = ctx("a: str, *args, **kwargs");
        match t.context {
            ContextParam::KwArgs { span } => assert_eq!(slice(&src, span), "kwargs"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            t.var_args
                .iter()
                .map(|s| slice(&src, *s))
                .collect::<Vec<_>>(),
            vec!["args", "kwargs"]
        );
        assert_eq!(t.params.len(), 1);
        let (t, src) = ctx("p, /, a: int, *, k: bool = False, context, tracker_handle=None");
        assert!(matches!(t.context, ContextParam::Named { .. }));
        assert_eq!(
            t.positional_only
                .iter()
                .map(|s| slice(&src, *s))
                .collect::<Vec<_>>(),
            vec!["p"]
        );
        let names: Vec<_> = t
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.keyword_only, p.has_default))
            .collect();
        assert_eq!(names, vec![("a", false, false), ("k", true, true)]);
        assert_eq!(
            tool_schema(&t),
            json!({"type":"object","properties":{"a":{"type":"integer"},"k":{"type":"boolean"}},"required":["a"],"additionalProperties":false})
        );
    }

    #[test]
    fn return_annotations() {
        let ret = |imports: &str, ann: &str| {
            let src = format!(
                "from rasa.calm_v2.tools.decorator import tool\n{imports}\n@tool(description='d')\nasync def f(context) -> {ann}: pass\n"
            );
            one_tool(&src).returns_tool_result
        };
        assert!(ret(
            "from rasa.calm_v2.tools.result import ToolResult",
            "ToolResult"
        ));
        assert!(ret(
            "from rasa.mantle.tools.result import ToolResult as R",
            "R"
        ));
        assert!(ret("import rasa.calm_v2.tools.result as r", "r.ToolResult"));
        assert!(ret("", "ToolResult"));
        assert!(ret("", "'ToolResult'"));
        assert!(!ret("", "dict"));
        assert!(!ret("", "str"));
        assert!(!ret("", "None"));
        let src = "from rasa.calm_v2.tools.decorator import tool\n@tool(description='d')\nasync def f(context): pass\n";
        let t = one_tool(src);
        assert_eq!(t.returns, None);
        assert!(!t.returns_tool_result);
        let src = "from rasa.calm_v2.tools.decorator import tool\n@tool(description='d')\nasync def f(context) -> dict[str, int]: pass\n";
        let t = one_tool(src);
        let r = t.returns.unwrap();
        assert_eq!(r.text, "dict[str, int]");
        assert_eq!(slice(src, r.span), "dict[str, int]");
        assert_eq!(r.ty, TypeAnn::Other);
    }

    #[test]
    fn schema_rows() {
        let s = |t: &str| json!({ "type": t });
        let arr = |t: &str| json!({"type": "array", "items": {"type": t}});
        assert_eq!(prop("str"), s("string"));
        assert_eq!(prop("int"), s("integer"));
        assert_eq!(prop("float"), s("number"));
        assert_eq!(prop("bool"), s("boolean"));
        assert_eq!(prop("list[str]"), arr("string"));
        assert_eq!(prop("List[int]"), arr("integer"));
        assert_eq!(prop("typing.List[float]"), arr("number"));
        assert_eq!(prop("list[bool]"), arr("boolean"));
        assert_eq!(prop("list"), json!({"type": "array"}));
        assert_eq!(prop("List"), json!({"type": "array"}));
        assert_eq!(prop("list[dict]"), arr("string"));
        assert_eq!(prop("list[list[int]]"), arr("string"));
        assert_eq!(prop("dict"), s("string"));
        assert_eq!(prop("dict[str, int]"), s("string"));
        assert_eq!(prop("tuple[int, int]"), s("string"));
        assert_eq!(prop("Union[int, str]"), s("string"));
        assert_eq!(prop("int | str"), s("string"));
        assert_eq!(prop("Literal['a', 'b']"), s("string"));
        assert_eq!(prop("Any"), s("string"));
        assert_eq!(prop("MyClass"), s("string"));
    }

    #[test]
    fn optional_unwrapping() {
        let s = |t: &str| json!({ "type": t });
        assert_eq!(prop("Optional[int]"), s("integer"));
        assert_eq!(prop("typing.Optional[float]"), s("number"));
        assert_eq!(prop("Union[bool, None]"), s("boolean"));
        assert_eq!(prop("Union[None, int]"), s("integer"));
        assert_eq!(prop("typing.Union[None, int]"), s("integer"));
        assert_eq!(prop("int | None"), s("integer"));
        assert_eq!(prop("None | float"), s("number"));
        assert_eq!(
            prop("Optional[list[int]]"),
            json!({"type": "array", "items": {"type": "integer"}})
        );
        assert_eq!(
            prop("list[str] | None"),
            json!({"type": "array", "items": {"type": "string"}})
        );
        assert_eq!(prop("Union[int, str, None]"), s("string"));
    }

    #[test]
    fn string_annotations() {
        let s = |t: &str| json!({ "type": t });
        assert_eq!(prop("'int'"), s("integer"));
        assert_eq!(prop("\"Optional[bool]\""), s("boolean"));
        assert_eq!(prop("'float | None'"), s("number"));
        assert_eq!(
            prop("'list[int]'"),
            json!({"type": "array", "items": {"type": "integer"}})
        );
        assert_eq!(prop("Optional['int']"), s("integer"));
        assert_eq!(prop("'not valid ('"), s("string"));
    }

    #[test]
    fn required_keeps_signature_order_and_optional_params() {
        let src = "from rasa.calm_v2.tools.decorator import tool\nfrom typing import Optional\n@tool(description='d')\nasync def f(zeta: str, alpha: Optional[int], mid: float = 1.0, untyped=None, *, kw: bool, context=None): pass\n";
        let t = one_tool(src);
        let schema = tool_schema(&t);
        assert_eq!(schema["required"], json!(["zeta", "alpha", "kw"]));
        assert_eq!(
            schema["properties"],
            json!({"zeta":{"type":"string"},"alpha":{"type":"integer"},"mid":{"type":"number"},"untyped":{"type":"string"},"kw":{"type":"boolean"}})
        );
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(
            t.params[1].annotation.as_ref().unwrap().text,
            "Optional[int]"
        );
        assert_eq!(t.params[3].annotation, None);
    }

    #[test]
    fn memory_accesses() {
        let src = r#"from rasa.calm_v2.tools.decorator import tool
REF_KEY = "transfer_ref"
PREFIX: str = "acct"
TWICE = "a"
TWICE = "b"
DERIVED = PREFIX + "_x"


def _save(c, value):
    c.memory.set("helper_slot", value)


@tool(description="d")
async def f(context, slot: str):
    context.memory.set(REF_KEY, 1)
    context.memory.set(f"{PREFIX}_{'id'}", 2)
    context.memory.set("a_" + REF_KEY, 3)
    ctx = context
    ctx.memory.set(entry="via_alias", value=4)
    m = ctx.memory
    m.set(key="via_memory_alias", value=5)
    context.memory.set(slot, 6)
    context.memory.set(TWICE, 7)
    context.memory.set(f"{slot}_x", 8)
    context.memory.set("lit" "eral", 9)
    context.memory.get("read_me")
    redis.memory.set("not_memory", 1)
    context.cache.set("not_memory", 1)
    lambda q: q.memory.set("in_lambda", 1)
    async with lock:
        for i in range(3):
            try:
                if True:
                    context.memory.set(DERIVED, i)
            except Exception:
                pass

    def inner(extra):
        context.memory.get(name="closure")
"#;
        let m = analyze(src);
        assert!(m.syntax_errors.is_empty(), "{:?}", m.syntax_errors);
        let ref_key_span = Span::new(
            src.find("REF_KEY =").unwrap(),
            src.find("REF_KEY =").unwrap() + 7,
        );
        let prefix_span = Span::new(
            src.find("PREFIX:").unwrap(),
            src.find("PREFIX:").unwrap() + 6,
        );
        let derived_span = Span::new(
            src.find("DERIVED =").unwrap(),
            src.find("DERIVED =").unwrap() + 7,
        );
        let writes: Vec<(MemoryName, Option<&str>)> = m
            .memory_writes
            .iter()
            .map(|w| (w.name.clone(), w.function.as_deref()))
            .collect();
        let via = |v: &str, name: &str, s: Span| MemoryName::Known {
            value: v.into(),
            via: Some((name.into(), s)),
        };
        assert_eq!(
            writes,
            vec![
                (known("helper_slot"), Some("_save")),
                (via("transfer_ref", "REF_KEY", ref_key_span), Some("f")),
                (via("acct_id", "PREFIX", prefix_span), Some("f")),
                (via("a_transfer_ref", "REF_KEY", ref_key_span), Some("f")),
                (known("via_alias"), Some("f")),
                (known("via_memory_alias"), Some("f")),
                (MemoryName::Dynamic, Some("f")),
                (MemoryName::Dynamic, Some("f")),
                (MemoryName::Dynamic, Some("f")),
                (known("literal"), Some("f")),
                (via("acct_x", "DERIVED", derived_span), Some("f")),
            ]
        );
        assert_eq!(slice(src, m.memory_writes[4].arg_span), "\"via_alias\"");
        assert_eq!(slice(src, m.memory_writes[6].arg_span), "slot");
        let reads: Vec<_> = m
            .memory_reads
            .iter()
            .map(|r| (r.name.clone(), r.function.as_deref()))
            .collect();
        assert_eq!(
            reads,
            vec![
                (known("read_me"), Some("f")),
                (known("closure"), Some("inner")),
            ]
        );
    }

    #[test]
    fn local_shadowing_makes_constant_dynamic() {
        let src = "KEY = 'k'\ndef f(context):\n    KEY = compute()\n    context.memory.set(KEY, 1)\ndef g(context):\n    global KEY\n    context.memory.set(KEY, 1)\n";
        let m = analyze(src);
        assert_eq!(m.memory_writes.len(), 2);
        assert!(m
            .memory_writes
            .iter()
            .all(|w| w.name == MemoryName::Dynamic));
    }

    #[test]
    fn memory_without_name_argument() {
        let src = "def f(context):\n    context.memory.set()\n    context.memory.get(*args)\n";
        let m = analyze(src);
        assert_eq!(m.memory_writes[0].name, MemoryName::Dynamic);
        assert_eq!(slice(src, m.memory_writes[0].arg_span), "()");
        assert_eq!(m.memory_reads[0].name, MemoryName::Dynamic);
    }

    #[test]
    fn redis_negative() {
        let src = "import redis\nfrom rasa.calm_v2.tools.decorator import tool\n@tool(description='d')\nasync def f(context):\n    redis.memory.set('x', 1)\n    redis.memory.get('x')\n";
        let m = analyze(src);
        assert!(m.memory_writes.is_empty());
        assert!(m.memory_reads.is_empty());
        // Module-level code has no parameters.
        assert!(analyze("context.memory.set('x', 1)\n")
            .memory_writes
            .is_empty());
    }

    #[test]
    fn syntax_error_recovery() {
        let src = "from rasa.calm_v2.tools.decorator import tool\n\n@tool(description='first')\nasync def ok(a: int, context):\n    context.memory.set('k', a)\n\nx = (1 +\n\n@tool(description='second')\nasync def also(b: str, context):\n    return b\n";
        let m = analyze(src);
        assert!(!m.syntax_errors.is_empty());
        assert!(!m.syntax_errors[0].message.is_empty());
        assert!(m.tools.iter().any(|t| t.name == "ok"), "{:?}", m.tools);
        assert_eq!(m.memory_writes.len(), 1);

        let src = "from rasa.calm_v2.tools.decorator import tool\n\n@tool(description='d')\nasync def broken(a: int, context:\n    pass\n\n@tool(description='e')\nasync def fine(b: str, context):\n    return b\n";
        let m = analyze(src);
        assert!(!m.syntax_errors.is_empty());
        assert!(m.tools.iter().any(|t| t.name == "fine"), "{:?}", m.tools);
    }

    #[test]
    fn imports() {
        let src = "from lib.wallet_data import WALLETS\nimport lib.x as y\nimport os, json\nfrom . import sibling\nfrom .sibling import x\nfrom ..pkg.mod import a as b, c\n\ndef f():\n    import inner_mod\n\nif TYPE_CHECKING:\n    from lib.types import T\n\nclass K:\n    from lib.k import z\n";
        let m = analyze(src);
        let got: Vec<_> = m
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.level,
                    i.names.clone(),
                    slice(src, i.span),
                    i.top_level,
                )
            })
            .collect();
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            got,
            vec![
                (
                    "lib.wallet_data",
                    0,
                    v(&["WALLETS"]),
                    "lib.wallet_data",
                    true
                ),
                ("lib.x", 0, v(&[]), "lib.x", true),
                ("os", 0, v(&[]), "os", true),
                ("json", 0, v(&[]), "json", true),
                ("", 1, v(&["sibling"]), ".", true),
                ("sibling", 1, v(&["x"]), ".sibling", true),
                ("pkg.mod", 2, v(&["a", "c"]), "..pkg.mod", true),
                ("inner_mod", 0, v(&[]), "inner_mod", false),
                ("lib.types", 0, v(&["T"]), "lib.types", true),
                ("lib.k", 0, v(&["z"]), "lib.k", false),
            ]
        );
    }

    #[test]
    fn edge_inputs_do_not_panic() {
        for src in [
            "",
            "@",
            "@tool",
            "@tool(",
            "@tool\n",
            "@tool(description=)\nasync def",
            "from . import",
            "from",
            "from .",
            "from \\\n . import x",
            "def f(context): context.memory.set(f'{",
            "async def f(context):\n\tcontext.memory.get(f\"{X!r:>{w}}\")",
            "K = 'é'\ndef f(c): c.memory.set(f'{K}ü{K}', 1)",
            "\u{feff}@tool\ndef é(context): pass",
        ] {
            let _ = analyze(src);
        }
        let m = analyze("K = 'é'\ndef f(c): c.memory.set(f'{K}ü{K}', 1)");
        assert!(
            matches!(&m.memory_writes[0].name, MemoryName::Known { value, .. } if value == "éüé")
        );
    }

    mod prop {
        use super::super::*;
        use proptest::prelude::*;

        const FRAGMENTS: &[&str] = &[
            "@tool(",
            "@tool",
            "@t.tool(",
            "async def ",
            "def ",
            "f",
            "(",
            ")",
            ":",
            "\n",
            "    ",
            "\t",
            "context",
            "context.memory.set(",
            "context.memory.get(",
            "ctx = context\n",
            "m = context.memory\n",
            "m.set(",
            "\"",
            "'",
            "\"\"\"",
            "f\"",
            "f'{",
            "{",
            "}",
            "KEY",
            "KEY = \"k\"\n",
            " + ",
            ", ",
            "description=",
            "-> ToolResult",
            "Optional[",
            "]",
            "list[",
            " | None",
            "from rasa.calm_v2.tools.decorator import tool\n",
            "from . import x\n",
            "from ",
            "import ",
            ".",
            "lambda c: ",
            "*args",
            "**kwargs",
            "/",
            "*",
            "=",
            "é",
            "日本",
            "\\",
            "#",
            "\r\n",
            "\u{feff}",
        ];

        proptest! {
            #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

            #[test]
            fn analyze_never_panics_on_arbitrary_strings(s in "\\PC{0,200}") {
                let m = analyze(&s);
                for t in &m.tools {
                    let _ = tool_schema(t);
                }
            }

            #[test]
            fn analyze_never_panics_on_python_ish_text(
                parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..60)
            ) {
                let src: String = parts.iter().map(|&i| FRAGMENTS[i]).collect();
                let m = analyze(&src);
                for t in &m.tools {
                    let _ = tool_schema(t);
                    prop_assert!(src.get(t.name_span.range()).is_some());
                    prop_assert!(src.get(t.def_span.range()).is_some());
                }
                for i in &m.imports {
                    prop_assert!(src.get(i.span.range()).is_some());
                }
            }
        }
    }
}
