crate::declare_rule! {
    /// ## What it does
    /// Reports a symbolic link inside the project that points back to one of
    /// its own parent folders.
    ///
    /// ## Why it matters
    /// Following it would walk the same folders forever; maestro stops there
    /// and reports it, and the files behind it are not checked.
    ///
    /// ## Example
    /// `references/all -> ..`
    ///
    /// ## Fix
    /// Remove the link, or point it at a folder outside the project tree.
    pub static RULE = { code: "files.symlink_loop", severity: Error };
}
