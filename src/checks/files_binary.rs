crate::declare_rule! {
    /// ## What it does
    /// Reports a file in a place where maestro expects text (a `skill.md`,
    /// a `memory.yml`, a tool module, ...) whose content is binary.
    ///
    /// ## Why it matters
    /// The engine reads these files as UTF-8 text; a binary file there is
    /// almost always a mistake (a compiled file, an image, a copy error) and
    /// would make the model fail to load.
    ///
    /// ## Example
    /// `skills/card_replace/tools.py` holds the bytes of a `.pyc` file.
    ///
    /// ## Fix
    /// Replace the file with its text source, or move it out of the
    /// project's skill, tool and memory locations.
    pub static RULE = { code: "files.binary", severity: Error };
}
