crate::declare_rule! {
    /// ## What it does
    /// Warns that `maestro train` could not run the import probe because no
    /// Python 3 interpreter was found (or it could not be started).
    ///
    /// ## Why it matters
    /// The probe imports every tool module the way the runtime will; without
    /// it, errors that only a real import shows (a missing package, an
    /// exception at module level) surface when the model loads.
    ///
    /// ## Example
    /// `train` on a machine without `python3` on the `PATH`.
    ///
    /// ## Fix
    /// Install Python 3, or pass `--python /path/to/python3`. Use
    /// `--no-import-check` to skip the probe on purpose.
    pub static RULE = { code: "train.import_probe_skipped", severity: Warning };
}
