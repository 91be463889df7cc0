crate::declare_rule! {
    /// ## What it does
    /// Warns when one response name is defined in more than one responses.yml.
    /// Names are global: skill files are merged in folder order and the agent-
    /// root `responses.yml` overrides them all; the later definition replaces
    /// every variant of the earlier one. The message says which definition is
    /// used.
    ///
    /// ## Why it matters
    /// The hidden definition never runs; edits to it have no effect, which is
    /// easy to miss when each skill has its own file.
    ///
    /// ## Example
    /// ```yaml
    /// # skills/card_replace/responses.yml
    /// responses:
    ///   utter_done:
    ///     - text: Your card is on its way.
    /// # responses.yml
    /// responses:
    ///   utter_done:
    ///     - text: Done!
    /// ```
    ///
    /// ## Fix
    /// ```yaml
    /// # prefix names with the skill they belong to
    /// responses:
    ///   utter_card_replace_done:
    ///     - text: Your card is on its way.
    /// ```
    pub static RULE = { code: "response.duplicate_name", severity: Warning };
}

use crate::diagnostic::Finding;
use crate::model::Model;

pub fn check(model: &Model, out: &mut Vec<Finding>) {
    for name in model.responses.names() {
        let defs: Vec<_> = model.responses.definitions(name).collect();
        let Some((winner, hidden)) = defs.split_last() else {
            continue;
        };
        let winner_path = model.db.path(winner.file);
        for h in hidden {
            if h.file == winner.file {
                // Twice in one file: reported as a YAML duplicate key.
                continue;
            }
            let hidden_path = model.db.path(h.file);
            out.push(
                RULE.finding(format!(
                    "response `{name}` is defined in {hidden_path} and in {winner_path}; the one in {winner_path} is used"
                ))
                .at(h.file, h.name_span, "this definition is ignored")
                .label(winner.file, winner.name_span, "this one wins")
                .help(
                    "response names are global: delete one of them, or rename it (e.g. prefix it with the skill id); the agent-root responses.yml overrides skill files, and a later skill folder overrides an earlier one",
                ),
            );
        }
    }
}
