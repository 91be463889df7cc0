use crate::diagnostic::Finding;
use crate::model::{Model, PyModule, Scope};
use crate::python::Import;
use crate::source::Span;

crate::declare_rule! {
    /// ## What it does
    /// Reports a tool module that would fail to import: a Python syntax
    /// error, a `@tool` decorator that is never imported, a relative import,
    /// or an import of a project-local module (`lib.…`, `skills.…`,
    /// `tools.…`, or a sibling file) that does not exist. One finding per
    /// file; checking goes on with the rest of the project.
    /// (`maestro train` also imports every module in Python and reports the
    /// errors only a real import shows.)
    ///
    /// ## Why it matters
    /// One module that cannot be imported stops the whole model from
    /// loading: no skill can run until it is fixed.
    ///
    /// ## Example
    /// ```python
    /// from lib.walet_data import WALLETS   # lib/wallet_data.py exists
    /// from .helpers import fmt             # relative imports never work
    /// ```
    ///
    /// ## Fix
    /// Correct the module path. Tool modules are loaded with the project
    /// root on `sys.path`, so import project code by its full path from the
    /// root: `from lib.wallet_data import WALLETS`,
    /// `from skills.transfer.tools.helpers import fmt`.
    pub static RULE = { code: "tools.import_failed", severity: Error };
}

/// Top-level package names that are always project-local.
const LOCAL_ROOTS: &[&str] = &["lib", "skills", "tools"];

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for m in &model.modules {
        let mut problems: Vec<(Span, String, String)> = Vec::new();
        for e in &m.ast.syntax_errors {
            problems.push((e.span, format!("syntax error: {}", e.message), e.message.clone()));
        }
        if let Some(span) = m.ast.unbound_decorator {
            problems.push((
                span,
                "name `tool` is not defined".into(),
                "`tool` is never imported".into(),
            ));
        }
        for imp in &m.ast.imports {
            if let Some(p) = unresolved(model, m, imp) {
                problems.push(p);
            }
        }
        let Some((span, msg, label)) = problems.first().cloned() else {
            continue;
        };
        let owner = match &m.scope {
            Scope::Skill(id) => format!("none of the tools of skill `{id}` can be loaded"),
            Scope::Shared => "none of the shared tools can be loaded".to_string(),
        };
        let more = if problems.len() > 1 {
            format!(" (and {} more problem{})", problems.len() - 1, if problems.len() > 2 { "s" } else { "" })
        } else {
            String::new()
        };
        let mut f = RULE
            .finding(format!("{} cannot be imported: {msg}{more}", m.path))
            .at(m.file, span, label);
        for (span, msg, _) in problems.iter().skip(1) {
            f = f.label(m.file, *span, msg.clone());
        }
        let help = if problems.iter().any(|(_, _, l)| l.contains("relative")) {
            "import project code by its path from the project root, e.g. `from skills.<id>.tools.helpers import x`"
        } else if m.ast.unbound_decorator.is_some() && problems.len() == 1 {
            "add `from rasa.calm_v2.tools.decorator import ToolContext, tool`"
        } else {
            "fix the module so that it imports; until then the model cannot load"
        };
        out.push(f.help(format!("{help} ({owner})")));
    }
}

fn unresolved(model: &Model, m: &PyModule, imp: &Import) -> Option<(Span, String, String)> {
    if imp.level > 0 {
        return Some((
            imp.span,
            "relative imports do not work in tool modules".into(),
            "relative import".into(),
        ));
    }
    let first = imp.module.split('.').next().unwrap_or("");
    let dir = m.path.rsplit_once('/').map_or("", |(d, _)| d);
    let sibling = if dir.is_empty() {
        first.to_string()
    } else {
        format!("{}.{first}", dir.replace('/', "."))
    };
    let known_top = model.python_modules.contains(first);
    if !known_top && model.python_modules.contains(&sibling) && !dir.is_empty() {
        return Some((
            imp.span,
            format!(
                "module `{first}` is not importable by that name (tool folders are not on sys.path)"
            ),
            format!("use `{sibling}`"),
        ));
    }
    if !(known_top || LOCAL_ROOTS.contains(&first)) {
        return None; // standard library or an installed package
    }
    if model.python_modules.contains(&imp.module) {
        return None;
    }
    // `from lib import wallet_data` may name a submodule: fine when it exists.
    let missing = longest_missing(model, &imp.module);
    Some((
        imp.span,
        format!("no module named `{missing}` in the project"),
        "module not found".into(),
    ))
}

/// The shortest prefix of `module` that does not exist.
fn longest_missing(model: &Model, module: &str) -> String {
    let mut prefix = String::new();
    for part in module.split('.') {
        if !prefix.is_empty() {
            prefix.push('.');
        }
        prefix.push_str(part);
        if !model.python_modules.contains(&prefix) {
            return prefix;
        }
    }
    module.to_string()
}
