crate::declare_rule! {
    /// ## What it does
    /// Reports a project file larger than 8 MiB. Such files are not read.
    ///
    /// ## Why it matters
    /// Skill, memory, response and tool files are small by nature; a huge
    /// one is usually generated data committed by mistake, and reading it
    /// would slow every check and every model load.
    ///
    /// ## Example
    /// A 40 MB `tools/catalog.py` with an inlined product database.
    ///
    /// ## Fix
    /// Move the data out of the file (load it at run time from `lib/` or a
    /// service), or split the file.
    pub static RULE = { code: "files.too_large", severity: Error };
}
