use crate::diagnostic::Finding;
use crate::model::Model;

crate::declare_rule! {
    /// ## What it does
    /// Warns when `import_tools` lists the same entry twice.
    ///
    /// ## Why it matters
    /// The second entry has no effect; usually one of the two was meant to be
    /// another tool.
    ///
    /// ## Example
    /// ```yaml
    /// import_tools:
    ///   - get_customer_info
    ///   - get_customer_info
    /// ```
    ///
    /// ## Fix
    /// Remove the repeated entry.
    pub static RULE = { code: "import_tools.duplicate", severity: Warning };
}

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for skill in &model.skills {
        let (Some(doc), Some(file)) = (&skill.doc, skill.skill_md) else {
            continue;
        };
        for (i, entry) in doc.import_tools.iter().enumerate() {
            if let Some(first) = doc.import_tools[..i].iter().find(|e| e.value == entry.value) {
                out.push(
                    RULE.finding(format!("`{}` is imported twice", entry.value))
                        .at(file, entry.span, "repeated here")
                        .label(file, first.span, "first imported here")
                        .help("remove the repeated entry"),
                );
            }
        }
    }
}
