crate::declare_rule! {
    /// ## What it does
    /// Reports a file or folder of the project that cannot be read
    /// (permissions, a broken link, an I/O error).
    ///
    /// ## Why it matters
    /// What cannot be read cannot be checked or packaged; the model would
    /// miss it or fail to load.
    ///
    /// ## Example
    /// `skills/billing/tools.py` owned by another user with mode `600`.
    ///
    /// ## Fix
    /// Fix the file's permissions or the link it is reached through.
    pub static RULE = { code: "files.unreadable", severity: Error };
}
