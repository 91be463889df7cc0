crate::declare_rule! {
    /// ## What it does
    /// Reports a text file that is not valid UTF-8, pointing at the first
    /// invalid byte.
    ///
    /// ## Why it matters
    /// The engine decodes every project file as UTF-8; a file saved in
    /// another encoding (Latin-1, UTF-16) fails to load.
    ///
    /// ## Example
    /// A `skill.md` saved by an editor as Windows-1252 with an `é` in it.
    ///
    /// ## Fix
    /// Save the file as UTF-8 (most editors have "Save with encoding").
    pub static RULE = { code: "files.not_utf8", severity: Error };
}
