//! Source files and byte spans.
//!
//! Every file the loader reads becomes a [`SourceFile`] in a [`SourceDb`],
//! addressed by a [`FileId`]. Everything downstream (parsers, model, checks,
//! renderers) refers to text by `(FileId, Span)` and never touches the disk.

use std::ops::Range;
use std::sync::Arc;

/// Index of a file in the [`SourceDb`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

impl FileId {
    /// No source location: the id carried by declarations rebuilt from a
    /// package (`manifest.json` keeps no source files, e.g.
    /// [`crate::memory::MemoryModel::from_manifest`]). It names no file of
    /// any [`SourceDb`]; such declarations never reach a finding, and
    /// [`SourceDb::get`] must not be asked for it.
    pub const NONE: FileId = FileId(u32::MAX);
}

/// A half-open byte range `start..end` into one file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
    /// An empty span at `offset`.
    pub const fn at(offset: usize) -> Self {
        Span {
            start: offset,
            end: offset,
        }
    }
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Shift the span by `offset` bytes (used to map a span inside an
    /// embedded text, e.g. frontmatter YAML, back into the whole file).
    pub fn shifted(self, offset: usize) -> Self {
        Span::new(self.start + offset, self.end + offset)
    }
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

impl From<Range<usize>> for Span {
    fn from(r: Range<usize>) -> Self {
        Span::new(r.start, r.end)
    }
}

/// One loaded text file.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to the project root, always with `/` separators.
    pub path: String,
    pub text: Arc<str>,
    /// Byte offset of the start of each line.
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            path: path.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and 1-based column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let mut end = offset;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[start..end].chars().count() + 1;
        (line + 1, col)
    }

    /// The text covered by `span` (empty when out of bounds).
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}

/// All files of one project, in load order (sorted by path).
#[derive(Debug, Default, Clone)]
pub struct SourceDb {
    files: Vec<SourceFile>,
}

impl SourceDb {
    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId((self.files.len() - 1) as u32)
    }
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }
    pub fn path(&self, id: FileId) -> &str {
        &self.get(id).path
    }
    pub fn len(&self) -> usize {
        self.files.len()
    }
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }
    /// Mask `span` of a file: every character but the first three becomes
    /// `*` per byte, so byte offsets and spans stay valid. Used for literal
    /// secrets, which no output may echo.
    pub fn mask(&mut self, id: FileId, span: Span) {
        let file = &mut self.files[id.0 as usize];
        let Some(secret) = file.text.get(span.range()) else {
            return;
        };
        let keep: usize = secret.chars().take(3).map(char::len_utf8).sum();
        let mut text = String::with_capacity(file.text.len());
        text.push_str(&file.text[..span.start + keep]);
        text.extend(std::iter::repeat_n('*', span.len() - keep));
        text.push_str(&file.text[span.end..]);
        *file = SourceFile::new(file.path.clone(), text);
    }

    pub fn find(&self, path: &str) -> Option<FileId> {
        self.iter().find(|(_, f)| f.path == path).map(|(id, _)| id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_keeps_offsets() {
        let mut db = SourceDb::default();
        let id = db.add(SourceFile::new("a", "key: sk-é123\nnext\n"));
        db.mask(id, Span::new(5, 13));
        assert_eq!(&*db.get(id).text, "key: sk-*****\nnext\n");
        assert_eq!(db.get(id).line_col(14), (2, 1));
    }

    #[test]
    fn line_col_counts_chars() {
        let f = SourceFile::new("a", "ab\ncé d\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        // 'd' is after "cé " = bytes 3..7 ("c"=1, "é"=2, " "=1)
        assert_eq!(f.line_col(7), (2, 4));
        assert_eq!(f.line_col(100), (3, 1));
    }
}
