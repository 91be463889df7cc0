//! maestro's Python support package (`python/rasa/...` in the repository),
//! embedded in the binary. It provides `rasa.calm_v2.tools.decorator`,
//! `rasa.calm_v2.tools.result` and their `rasa.mantle.tools.*` aliases, so
//! that unchanged tool modules import without the Python engine installed.
//! [`install`] writes it to a cache folder for the import probe and the
//! runtime's worker. The worker program itself (`maestro_worker.py`, see
//! `runtime::worker`) is installed next to the `rasa` package.

use std::path::PathBuf;

/// The package files: path relative to the support root, and content.
pub const FILES: &[(&str, &str)] = &[
    (
        "rasa/__init__.py",
        include_str!("../python/rasa/__init__.py"),
    ),
    (
        "rasa/calm_v2/__init__.py",
        include_str!("../python/rasa/calm_v2/__init__.py"),
    ),
    (
        "rasa/calm_v2/tools/__init__.py",
        include_str!("../python/rasa/calm_v2/tools/__init__.py"),
    ),
    (
        "rasa/calm_v2/tools/decorator.py",
        include_str!("../python/rasa/calm_v2/tools/decorator.py"),
    ),
    (
        "rasa/calm_v2/tools/result.py",
        include_str!("../python/rasa/calm_v2/tools/result.py"),
    ),
    (
        "rasa/mantle/__init__.py",
        include_str!("../python/rasa/mantle/__init__.py"),
    ),
    (
        "rasa/mantle/tools/__init__.py",
        include_str!("../python/rasa/mantle/tools/__init__.py"),
    ),
    (
        "rasa/mantle/tools/decorator.py",
        include_str!("../python/rasa/mantle/tools/decorator.py"),
    ),
    (
        "rasa/mantle/tools/result.py",
        include_str!("../python/rasa/mantle/tools/result.py"),
    ),
    (
        "maestro_worker.py",
        include_str!("../python/maestro_worker.py"),
    ),
];

/// A short content hash of the package (FNV-1a 64), so that each version
/// of maestro installs into its own folder.
pub fn version_hash() -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (path, text) in FILES {
        for b in path.bytes().chain([0]).chain(text.bytes()).chain([0]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The cache folder maestro writes into: `$XDG_CACHE_HOME`, else
/// `$HOME/.cache`, else the temporary folder.
pub fn cache_base() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
}

/// Write the package to `<cache>/maestro/support-<hash>/` (once) and return
/// that folder, to be put on `sys.path`.
pub fn install() -> std::io::Result<PathBuf> {
    let base = cache_base();
    let dir = base
        .join("maestro")
        .join(format!("support-{}", version_hash()));
    let marker = dir.join(".complete");
    if marker.is_file() {
        return Ok(dir);
    }
    // Write into a private folder, then move it into place, so that two
    // processes never see a half-written package.
    let tmp = base.join("maestro").join(format!(
        "support-{}.tmp-{}",
        version_hash(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    for (rel, text) in FILES {
        let path = tmp.join(rel);
        std::fs::create_dir_all(path.parent().expect("relative path has a parent"))?;
        std::fs::write(path, text)?;
    }
    std::fs::write(tmp.join(".complete"), "")?;
    match std::fs::rename(&tmp, &dir) {
        Ok(()) => Ok(dir),
        Err(_) if marker.is_file() => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(dir)
        }
        Err(e) => Err(e),
    }
}
