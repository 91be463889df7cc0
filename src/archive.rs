//! The packaged-model archive: a reproducible `.tar.gz`.
//!
//! [`write`] produces the same bytes for the same entries on every machine:
//! entries sorted by path, every header with mode 0644, uid/gid 0, no user
//! or group names and a fixed modification time, and a gzip header without
//! a file name or time stamp. [`read`] is its defensive counterpart for
//! `inspect` and the runtime: it rejects anything that is not such an
//! archive with a clear error instead of trusting it.

use flate2::read::GzDecoder;
use flate2::{Compression, GzBuilder};
use std::collections::BTreeMap;
use std::io::Read;

/// Modification time written into every entry (2020-01-01T00:00:00Z), so
/// archives do not depend on when or where they were built.
pub const FIXED_MTIME: u64 = 1_577_836_800;
/// Upper bounds enforced by [`read`].
pub const MAX_ENTRIES: usize = 100_000;
pub const MAX_TOTAL_SIZE: u64 = 1024 * 1024 * 1024;

/// Why an archive could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveError(pub String);

impl std::fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArchiveError {}

/// Build the archive from `(path, content)` entries; paths are relative and
/// `/`-separated. Duplicate paths keep the last content.
pub fn write(entries: impl IntoIterator<Item = (String, Vec<u8>)>) -> Vec<u8> {
    let sorted: BTreeMap<String, Vec<u8>> = entries.into_iter().collect();
    let gz = GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(Vec::new(), Compression::best());
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    for (path, data) in &sorted {
        let mut header = tar::Header::new_ustar();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(FIXED_MTIME);
        header.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut header, path, data.as_slice())
            .expect("writing to memory cannot fail");
    }
    let gz = tar.into_inner().expect("writing to memory cannot fail");
    gz.finish().expect("writing to memory cannot fail")
}

/// Read every regular file of an archive written by [`write`].
pub fn read(bytes: &[u8]) -> Result<BTreeMap<String, Vec<u8>>, ArchiveError> {
    if bytes.len() < 2 || bytes[..2] != [0x1f, 0x8b] {
        return Err(ArchiveError(
            "not a gzip-compressed archive (is this a model built by `maestro train`?)".into(),
        ));
    }
    let mut archive = tar::Archive::new(GzDecoder::new(bytes));
    let mut out = BTreeMap::new();
    let mut total = 0u64;
    let entries = archive
        .entries()
        .map_err(|e| ArchiveError(format!("the archive is corrupted: {e}")))?;
    for entry in entries {
        let mut entry =
            entry.map_err(|e| ArchiveError(format!("the archive is corrupted: {e}")))?;
        if entry.header().entry_type() != tar::EntryType::Regular {
            return Err(ArchiveError(
                "the archive contains links or special files; maestro archives hold only regular files"
                    .into(),
            ));
        }
        let path = entry
            .path()
            .map_err(|e| ArchiveError(format!("the archive is corrupted: {e}")))?
            .to_string_lossy()
            .into_owned();
        if path.starts_with('/') || path.split('/').any(|p| p == ".." || p.is_empty()) {
            return Err(ArchiveError(format!(
                "the archive contains an unsafe path `{path}`"
            )));
        }
        total += entry.size();
        if out.len() >= MAX_ENTRIES || total > MAX_TOTAL_SIZE {
            return Err(ArchiveError("the archive is too large".into()));
        }
        let mut data = Vec::with_capacity(entry.size().min(1 << 20) as usize);
        entry
            .read_to_end(&mut data)
            .map_err(|e| ArchiveError(format!("the archive is corrupted: {e}")))?;
        out.insert(path, data);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<(String, Vec<u8>)> {
        vec![
            ("skills/b/tools.py".into(), b"print('b')\n".to_vec()),
            ("manifest.json".into(), b"{}".to_vec()),
            ("lib/x.py".into(), "é = 1\n".as_bytes().to_vec()),
        ]
    }

    #[test]
    fn round_trip_sorted() {
        let bytes = write(sample());
        let files = read(&bytes).unwrap();
        let paths: Vec<&str> = files.keys().map(String::as_str).collect();
        assert_eq!(paths, ["lib/x.py", "manifest.json", "skills/b/tools.py"]);
        assert_eq!(files["manifest.json"], b"{}");
    }

    #[test]
    fn byte_identical_whatever_the_input_order() {
        let mut reversed = sample();
        reversed.reverse();
        assert_eq!(write(sample()), write(reversed));
    }

    #[test]
    fn rejects_foreign_and_corrupted_input() {
        assert!(read(b"PK\x03\x04 a zip file")
            .unwrap_err()
            .0
            .contains("not a gzip"));
        let mut bytes = write(sample());
        let n = bytes.len();
        bytes.truncate(n / 2);
        assert!(read(&bytes).is_err());
        let plain = GzBuilder::new().write(Vec::new(), Compression::fast());
        let mut plain = plain;
        std::io::Write::write_all(&mut plain, b"just text, not a tar").unwrap();
        assert!(read(&plain.finish().unwrap()).is_err());
    }

    proptest::proptest! {
        #[test]
        fn read_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..600)) {
            let _ = read(&bytes);
            let mut gz = vec![0x1f, 0x8b];
            gz.extend_from_slice(&bytes);
            let _ = read(&gz);
        }
    }
}
