//! Reference knowledge: chunking, lexical (BM25) indexing and search.
//!
//! At train time the reference documents of an agent (`references/**/*.md`,
//! scope global, and `skills/<id>/references/**/*.md`, scope `<id>`) are
//! split into chunks and indexed with Okapi BM25. Everything is local: no
//! network, no embeddings. The resulting [`KnowledgeIndex`] is serialised as
//! JSON into the packaged model archive; at run time the `search_knowledge`
//! tool calls [`KnowledgeIndex::search`].
//!
//! # Chunking
//!
//! * A document is first cut into *sections* at ATX Markdown headings
//!   (`# Title` … `###### Title`, not inside fenced code blocks). The heading
//!   line itself is not part of any chunk's `text`; it is recorded in
//!   [`Chunk::heading`] as a path (`"Cards > Replacement"`) and its words are
//!   indexed together with the chunk text. Setext headings are not recognised.
//! * Inside a section, paragraphs (separated by blank lines) are packed
//!   greedily into chunks of at most `chunk_size` characters. A paragraph that
//!   does not fit is split at the last sentence end, else line break, else
//!   whitespace, else (a single overlong "word") at a character boundary.
//! * Consecutive chunks of the same section overlap by at most
//!   `chunk_overlap` characters; the overlap starts at a word start (whole
//!   words only). Chunks never cross sections or documents, so there is no
//!   overlap across headings.
//! * No normalisation: every chunk's `text` is exactly
//!   `doc.text[chunk.start..chunk.end]` (byte offsets, always on UTF-8 char
//!   boundaries), trimmed of surrounding whitespace, never empty.
//!
//! # Determinism
//!
//! [`build`] only uses ordered containers (`Vec`, `BTreeMap`), and the only
//! stored non-constant float (`avg_len`) is rounded to 6 decimals so that it
//! survives a JSON round trip bit-exactly. Serialising the result of `build`
//! twice for the same input gives byte-identical JSON.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::Bound;

/// Default chunk size, in characters.
pub const DEFAULT_CHUNK_SIZE: usize = 1000;
/// Default overlap between consecutive chunks, in characters.
pub const DEFAULT_CHUNK_OVERLAP: usize = 200;
/// BM25 term-frequency saturation parameter.
pub const BM25_K1: f64 = 1.2;
/// BM25 length-normalisation parameter.
pub const BM25_B: f64 = 0.75;

/// Small English stop-word list (Lucene's classic set, minus one-letter
/// words, which the tokenizer drops anyway).
const STOP_WORDS: &[&str] = &[
    "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no",
    "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they",
    "this", "to", "was", "will", "with",
];

/// How documents are cut into chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ChunkingConfig {
    /// Maximum chunk length, in characters (Unicode scalar values). Default 1000.
    pub chunk_size: usize,
    /// Maximum overlap between consecutive chunks of one section, in
    /// characters. Default 200; must be `< chunk_size`.
    pub chunk_overlap: usize,
}

impl Default for ChunkingConfig {
    fn default() -> Self {
        ChunkingConfig {
            chunk_size: DEFAULT_CHUNK_SIZE,
            chunk_overlap: DEFAULT_CHUNK_OVERLAP,
        }
    }
}

impl ChunkingConfig {
    /// Checks the invariants (`chunk_size >= 1`, `chunk_overlap < chunk_size`);
    /// the error is a human-readable sentence for diagnostics.
    pub fn validate(&self) -> Result<(), String> {
        if self.chunk_size == 0 {
            return Err("chunk_size must be at least 1".to_string());
        }
        if self.chunk_overlap >= self.chunk_size {
            return Err(format!(
                "chunk_overlap ({}) must be smaller than chunk_size ({})",
                self.chunk_overlap, self.chunk_size
            ));
        }
        Ok(())
    }

    /// The nearest valid configuration: `chunk_size` at least 1 and
    /// `chunk_overlap` at most `chunk_size - 1`. [`build`] uses (and stores)
    /// this, so it never fails.
    pub fn normalized(self) -> Self {
        let chunk_size = self.chunk_size.max(1);
        ChunkingConfig {
            chunk_size,
            chunk_overlap: self.chunk_overlap.min(chunk_size - 1),
        }
    }
}

/// One reference document to index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Document<'a> {
    /// Path relative to the agent root, `/`-separated.
    pub path: &'a str,
    /// `None` = global (`references/`), `Some(skill_id)` = that skill's
    /// `references/`.
    pub scope: Option<&'a str>,
    /// Full document text.
    pub text: &'a str,
}

/// Where a reference document lives, from its path relative to the agent
/// root (`/`-separated): `Some(None)` for `references/**/*.md` (global),
/// `Some(Some(id))` for `skills/<id>/references/**/*.md`, `None` otherwise.
pub fn reference_scope(rel_path: &str) -> Option<Option<&str>> {
    if !rel_path.ends_with(".md") {
        return None;
    }
    let parts: Vec<&str> = rel_path.split('/').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    match parts.as_slice() {
        ["references", _, ..] => Some(None),
        ["skills", id, "references", _, ..] => Some(Some(id)),
        _ => None,
    }
}

/// A piece of one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// Sequential, in document order, starting at 0.
    pub id: u32,
    /// Source document path.
    pub path: String,
    /// Source document scope (`None` = global).
    pub scope: Option<String>,
    /// Path of enclosing Markdown headings, e.g. `"Cards > Replacement"`.
    pub heading: Option<String>,
    /// Exactly `source[start..end]`.
    pub text: String,
    /// Byte offset of the chunk in the source document.
    pub start: usize,
    /// Byte offset (exclusive) of the chunk end in the source document.
    pub end: usize,
}

/// A chunked, BM25-indexed set of reference documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnowledgeIndex {
    /// The (normalised) chunking configuration used.
    pub config: ChunkingConfig,
    /// All chunks, `chunks[i].id == i`.
    pub chunks: Vec<Chunk>,
    /// Average chunk length in tokens (rounded to 6 decimals).
    pub avg_len: f64,
    /// Number of chunks containing each term. The term index used in
    /// `chunk_terms` is the rank of the term in this (sorted) map.
    pub doc_freq: BTreeMap<String, u32>,
    /// Per chunk: `(term index, term frequency)`, sorted by term index.
    /// Indexed terms are those of the heading path followed by the text.
    pub chunk_terms: Vec<Vec<(u32, u32)>>,
    /// BM25 `k1`.
    pub k1: f64,
    /// BM25 `b`.
    pub b: f64,
}

/// A search result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit<'a> {
    pub chunk: &'a Chunk,
    pub score: f64,
}

/// Summary for `maestro inspect`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Stats {
    /// Documents that produced at least one chunk.
    pub documents: usize,
    pub chunks: usize,
    /// Vocabulary size.
    pub terms: usize,
    /// Total indexed tokens over all chunks.
    pub tokens: u64,
    /// Per scope, global (`None`) first, then skill ids in sorted order.
    pub scopes: Vec<ScopeStats>,
}

/// Per-scope part of [`Stats`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScopeStats {
    pub scope: Option<String>,
    pub documents: usize,
    pub chunks: usize,
}

/// Splits text into search terms: Unicode lowercase, split on
/// non-alphanumeric characters, drop one-character tokens and English stop
/// words. Digits are kept (`"2024"`, `"v2"`).
pub fn tokenize(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| {
            let mut chars = t.chars();
            chars.next().is_some() && chars.next().is_some() && !STOP_WORDS.contains(t)
        })
        .map(str::to_string)
        .collect()
}

/// Chunks and indexes `docs` (in the given order). Empty or whitespace-only
/// documents are skipped. Deterministic: the same input gives the same index
/// (and the same JSON).
pub fn build(docs: &[Document], config: ChunkingConfig) -> KnowledgeIndex {
    let config = config.normalized();
    let mut chunks = Vec::new();
    let mut term_counts: Vec<BTreeMap<String, u32>> = Vec::new();
    for doc in docs {
        if doc.text.trim().is_empty() {
            continue;
        }
        for piece in split_document(doc.text, config) {
            let text = &doc.text[piece.start..piece.end];
            let mut counts = BTreeMap::new();
            let heading_terms = piece.heading.as_deref().map(tokenize).unwrap_or_default();
            for term in heading_terms.into_iter().chain(tokenize(text)) {
                *counts.entry(term).or_insert(0u32) += 1;
            }
            term_counts.push(counts);
            chunks.push(Chunk {
                id: chunks.len() as u32,
                path: doc.path.to_string(),
                scope: doc.scope.map(str::to_string),
                heading: piece.heading,
                text: text.to_string(),
                start: piece.start,
                end: piece.end,
            });
        }
    }

    let mut doc_freq: BTreeMap<String, u32> = BTreeMap::new();
    for counts in &term_counts {
        for term in counts.keys() {
            *doc_freq.entry(term.clone()).or_insert(0) += 1;
        }
    }
    let vocab: Vec<&String> = doc_freq.keys().collect();
    let mut total_tokens: u64 = 0;
    let chunk_terms: Vec<Vec<(u32, u32)>> = term_counts
        .iter()
        .map(|counts| {
            // `counts` iterates in term order, so indices come out sorted.
            counts
                .iter()
                .map(|(term, &tf)| {
                    total_tokens += u64::from(tf);
                    let idx = vocab
                        .binary_search(&term)
                        .expect("every term is in the vocabulary");
                    (idx as u32, tf)
                })
                .collect()
        })
        .collect();
    let avg_len = if chunks.is_empty() {
        0.0
    } else {
        round6(total_tokens as f64 / chunks.len() as f64)
    };

    KnowledgeIndex {
        config,
        chunks,
        avg_len,
        doc_freq,
        chunk_terms,
        k1: BM25_K1,
        b: BM25_B,
    }
}

/// Rounds to 6 decimals so the value prints as a short decimal that JSON
/// parsers read back to the very same `f64`.
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

impl KnowledgeIndex {
    /// BM25 search. `scope = Some(skill)` searches that skill's chunks plus
    /// the global ones; `None` searches global chunks only. Returns at most
    /// `limit` hits with a positive score, by score descending, ties by chunk
    /// id. Corpus statistics (N, df, average length) are those of the whole
    /// index, whatever the scope.
    pub fn search(&self, query: &str, scope: Option<&str>, limit: usize) -> Vec<Hit<'_>> {
        if limit == 0 || self.chunks.is_empty() {
            return Vec::new();
        }
        let mut terms = tokenize(query);
        let mut seen = std::collections::BTreeSet::new();
        terms.retain(|t| seen.insert(t.clone()));

        let n = self.chunks.len() as f64;
        let query_terms: Vec<(u32, f64)> = terms
            .iter()
            .filter_map(|term| {
                let df = f64::from(*self.doc_freq.get(term)?);
                let idx = self
                    .doc_freq
                    .range::<str, _>((Bound::Unbounded, Bound::Excluded(term.as_str())))
                    .count();
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                Some((idx as u32, idf))
            })
            .collect();
        if query_terms.is_empty() {
            return Vec::new();
        }
        let avg_len = if self.avg_len > 0.0 {
            self.avg_len
        } else {
            1.0
        };

        let mut hits: Vec<Hit<'_>> = Vec::new();
        for (i, chunk) in self.chunks.iter().enumerate() {
            let visible = match (&chunk.scope, scope) {
                (None, _) => true,
                (Some(own), Some(active)) => own == active,
                (Some(_), None) => false,
            };
            if !visible {
                continue;
            }
            let Some(tfs) = self.chunk_terms.get(i) else {
                continue;
            };
            let len: f64 = tfs.iter().map(|&(_, tf)| f64::from(tf)).sum();
            let norm = self.k1 * (1.0 - self.b + self.b * len / avg_len);
            let mut score = 0.0;
            for &(idx, idf) in &query_terms {
                if let Ok(pos) = tfs.binary_search_by_key(&idx, |&(t, _)| t) {
                    let tf = f64::from(tfs[pos].1);
                    score += idf * tf * (self.k1 + 1.0) / (tf + norm);
                }
            }
            if score > 0.0 {
                hits.push(Hit { chunk, score });
            }
        }
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.chunk.id.cmp(&b.chunk.id))
        });
        hits.truncate(limit);
        hits
    }

    /// True when nothing was indexed.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Counts for `maestro inspect`.
    pub fn stats(&self) -> Stats {
        let mut per_scope: BTreeMap<Option<&str>, (usize, usize)> = BTreeMap::new();
        let mut documents = 0;
        let mut prev: Option<(&str, Option<&str>)> = None;
        for chunk in &self.chunks {
            let key = (chunk.path.as_str(), chunk.scope.as_deref());
            let entry = per_scope.entry(key.1).or_insert((0, 0));
            entry.1 += 1;
            if prev != Some(key) {
                documents += 1;
                entry.0 += 1;
                prev = Some(key);
            }
        }
        Stats {
            documents,
            chunks: self.chunks.len(),
            terms: self.doc_freq.len(),
            tokens: self
                .chunk_terms
                .iter()
                .flatten()
                .map(|&(_, tf)| u64::from(tf))
                .sum(),
            scopes: per_scope
                .into_iter()
                .map(|(scope, (documents, chunks))| ScopeStats {
                    scope: scope.map(str::to_string),
                    documents,
                    chunks,
                })
                .collect(),
        }
    }

    /// Compact JSON, as stored in the model archive.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("KnowledgeIndex serialises to JSON")
    }

    /// Reads an index written by [`KnowledgeIndex::to_json`].
    pub fn from_json(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }
}

// ---------------------------------------------------------------------------
// Chunking internals
// ---------------------------------------------------------------------------

/// A chunk before it is attached to its document: byte range + heading path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    heading: Option<String>,
    start: usize,
    end: usize,
}

/// Splits one document into trimmed, non-empty byte ranges.
fn split_document(text: &str, config: ChunkingConfig) -> Vec<Piece> {
    let mut pieces = Vec::new();
    for section in sections(text) {
        for (start, end) in chunk_section(text, section.start, section.end, config) {
            pieces.push(Piece {
                heading: section.heading.clone(),
                start,
                end,
            });
        }
    }
    pieces
}

/// Body of a heading (or of the text before the first heading), trimmed.
struct Section {
    heading: Option<String>,
    start: usize,
    end: usize,
}

fn sections(text: &str) -> Vec<Section> {
    let mut out = Vec::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut body_start = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if let Some((ch, len)) = fence {
            if is_fence_close(content, ch, len) {
                fence = None;
            }
            continue;
        }
        if let Some(open) = fence_open(content) {
            fence = Some(open);
            continue;
        }
        if let Some((level, title)) = atx_heading(content) {
            push_section(&mut out, text, heading_path(&stack), body_start, line_start);
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                stack.pop();
            }
            stack.push((level, title));
            body_start = offset;
        }
    }
    push_section(&mut out, text, heading_path(&stack), body_start, text.len());
    out
}

fn push_section(
    out: &mut Vec<Section>,
    text: &str,
    heading: Option<String>,
    start: usize,
    end: usize,
) {
    let (start, end) = trim_range(text, start, end);
    if start < end {
        out.push(Section {
            heading,
            start,
            end,
        });
    }
}

fn heading_path(stack: &[(usize, String)]) -> Option<String> {
    let parts: Vec<&str> = stack
        .iter()
        .map(|(_, t)| t.as_str())
        .filter(|t| !t.is_empty())
        .collect();
    if parts.is_empty() {
        None
    } else {
        Some(parts.join(" > "))
    }
}

/// Strips up to three leading spaces (more means an indented code block).
fn strip_indent(line: &str) -> Option<&str> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    (spaces <= 3).then(|| &line[spaces..])
}

/// `# Title #` → `(1, "Title")`.
fn atx_heading(line: &str) -> Option<(usize, String)> {
    let rest = strip_indent(line)?;
    let level = rest.len() - rest.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &rest[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let title = rest.trim();
    let without_closing = title.trim_end_matches('#');
    let title = if without_closing.is_empty() {
        ""
    } else if without_closing.ends_with([' ', '\t']) {
        without_closing.trim_end()
    } else {
        title
    };
    Some((level, title.to_string()))
}

fn fence_open(line: &str) -> Option<(char, usize)> {
    let rest = strip_indent(line)?;
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.len() - rest.trim_start_matches(ch).len();
    (len >= 3).then_some((ch, len))
}

fn is_fence_close(line: &str, ch: char, open_len: usize) -> bool {
    let Some(rest) = strip_indent(line) else {
        return false;
    };
    let after = rest.trim_start_matches(ch);
    rest.len() - after.len() >= open_len && after.trim().is_empty()
}

/// `[start, end)` without leading/trailing whitespace (possibly empty).
fn trim_range(text: &str, start: usize, end: usize) -> (usize, usize) {
    let slice = &text[start..end];
    let s = start + (slice.len() - slice.trim_start().len());
    let e = start + slice.trim_end().len();
    if s >= e {
        (start, start)
    } else {
        (s, e)
    }
}

/// First non-whitespace byte at or after `from` (or `end`).
fn skip_ws(text: &str, from: usize, end: usize) -> usize {
    let slice = &text[from..end];
    from + (slice.len() - slice.trim_start().len())
}

/// Byte index after `n` chars from `from`, capped at `end`.
fn advance_chars(text: &str, from: usize, end: usize, n: usize) -> usize {
    text[from..end]
        .char_indices()
        .nth(n)
        .map_or(end, |(i, _)| from + i)
}

/// Cut preference, best first.
#[derive(Clone, Copy)]
enum Break {
    Paragraph = 0,
    Sentence = 1,
    Line = 2,
    Word = 3,
}

fn is_sentence_end(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '。' | '！' | '？')
}

/// Best cut position `p` with `m < p <= limit` (the chunk is then
/// `[pos, p)` trimmed): the last paragraph break, else the last sentence end,
/// line break or whitespace. `None` if the window has no whitespace.
fn best_break(text: &str, m: usize, limit: usize) -> Option<usize> {
    let mut best: [Option<usize>; 4] = [None; 4];
    let mut prev = text[m..].chars().next()?;
    let window = text[m..].char_indices().skip(1);
    for (i, c) in window {
        let p = m + i;
        if p > limit {
            break;
        }
        if c.is_whitespace() {
            let kind = if c == '\n' && next_line_blank(text, p) {
                Break::Paragraph
            } else if is_sentence_end(prev) {
                Break::Sentence
            } else if c == '\n' {
                Break::Line
            } else {
                Break::Word
            };
            best[kind as usize] = Some(p);
        }
        prev = c;
    }
    best.into_iter().flatten().next()
}

/// Whether the line after the newline at `nl` is blank (or absent).
fn next_line_blank(text: &str, nl: usize) -> bool {
    let rest = &text[nl + 1..];
    let line = rest.split('\n').next().unwrap_or("");
    line.trim().is_empty()
}

/// Start of the next chunk: the earliest word start `q` in the tail of the
/// previous chunk `[cs, ce)` with at most `chunk_overlap` chars in
/// `[q, ce)`, such that the next chunk still reaches `m` (the first byte of
/// new content). Falls back to `m` (no overlap).
fn overlap_start(text: &str, cs: usize, ce: usize, m: usize, config: ChunkingConfig) -> usize {
    if config.chunk_overlap == 0 {
        return m;
    }
    let gap = text[ce..m].chars().count();
    // chars(q..m) must stay below chunk_size so the next window passes `m`.
    let budget = config
        .chunk_overlap
        .min((config.chunk_size - 1).saturating_sub(gap));
    let mut q = m;
    let mut count = 0;
    for (i, c) in text[cs..ce].char_indices().rev() {
        count += 1;
        if count > budget || i == 0 {
            break;
        }
        let p = cs + i;
        let prev_ws = text[..p]
            .chars()
            .next_back()
            .is_some_and(char::is_whitespace);
        if prev_ws && !c.is_whitespace() {
            q = p;
        }
    }
    q
}

/// Byte ranges of the chunks of one trimmed section `[start, end)`.
fn chunk_section(
    text: &str,
    start: usize,
    end: usize,
    config: ChunkingConfig,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut pos = start; // chunk start (non-whitespace)
    let mut m = start; // first byte not covered by the previous chunk
    while pos < end {
        let limit = advance_chars(text, pos, end, config.chunk_size);
        if limit >= end {
            out.push(trim_range(text, pos, end));
            break;
        }
        // `limit > m` (see `overlap_start`), so the cut makes progress.
        let cut = best_break(text, m, limit).unwrap_or(limit);
        let (cs, ce) = trim_range(text, pos, cut);
        out.push((cs, ce));
        m = skip_ws(text, ce, end);
        if m >= end {
            break;
        }
        pos = overlap_start(text, cs, ce, m, config);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn doc<'a>(path: &'a str, scope: Option<&'a str>, text: &'a str) -> Document<'a> {
        Document { path, scope, text }
    }

    fn cfg(chunk_size: usize, chunk_overlap: usize) -> ChunkingConfig {
        ChunkingConfig {
            chunk_size,
            chunk_overlap,
        }
    }

    fn texts(index: &KnowledgeIndex) -> Vec<&str> {
        index.chunks.iter().map(|c| c.text.as_str()).collect()
    }

    fn check_invariants(docs: &[Document], index: &KnowledgeIndex) {
        let config = index.config;
        assert_eq!(index.chunks.len(), index.chunk_terms.len());
        for (i, chunk) in index.chunks.iter().enumerate() {
            assert_eq!(chunk.id as usize, i);
            let d = docs
                .iter()
                .find(|d| d.path == chunk.path && d.scope == chunk.scope.as_deref())
                .expect("chunk comes from a document");
            assert!(chunk.start < chunk.end && chunk.end <= d.text.len());
            assert!(d.text.is_char_boundary(chunk.start));
            assert!(d.text.is_char_boundary(chunk.end));
            assert_eq!(&d.text[chunk.start..chunk.end], chunk.text);
            assert_eq!(chunk.text.trim(), chunk.text);
            assert!(chunk.text.chars().count() <= config.chunk_size);
        }
        for pair in index.chunks.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if a.path == b.path && a.scope == b.scope {
                assert!(b.start > a.start && b.end > a.end, "{a:?} {b:?}");
                if b.start < a.end {
                    let d = docs.iter().find(|d| d.path == a.path).unwrap();
                    let overlap = d.text[b.start..a.end].chars().count();
                    assert!(overlap <= config.chunk_overlap);
                    assert_eq!(a.heading, b.heading, "no overlap across sections");
                }
            }
        }
    }

    #[test]
    fn config_defaults_and_validation() {
        let c = ChunkingConfig::default();
        assert_eq!((c.chunk_size, c.chunk_overlap), (1000, 200));
        assert!(c.validate().is_ok());
        assert!(cfg(0, 0).validate().is_err());
        assert!(cfg(10, 10).validate().is_err());
        assert_eq!(cfg(10, 50).normalized(), cfg(10, 9));
        assert_eq!(cfg(0, 5).normalized(), cfg(1, 0));
        let parsed: ChunkingConfig = serde_json::from_str(r#"{"chunk_size": 300}"#).unwrap();
        assert_eq!(parsed, cfg(300, 200));
    }

    #[test]
    fn tokenizer() {
        assert_eq!(
            tokenize("The Quick-brown FOX, a fox: v2 2024 x 7 of ÉTÉ naïve_text"),
            vec!["quick", "brown", "fox", "fox", "v2", "2024", "été", "naïve", "text"]
        );
        assert!(tokenize("  \n\t .,;").is_empty());
        assert_eq!(tokenize("日本語 😀 ok"), vec!["日本語", "ok"]);
    }

    #[test]
    fn reference_paths() {
        assert_eq!(reference_scope("references/a.md"), Some(None));
        assert_eq!(reference_scope("references/x/y/a.md"), Some(None));
        assert_eq!(
            reference_scope("skills/cards/references/r.md"),
            Some(Some("cards"))
        );
        assert_eq!(reference_scope("skills/cards/SKILL.md"), None);
        assert_eq!(reference_scope("references/a.txt"), None);
        assert_eq!(reference_scope("docs/references/a.md"), None);
    }

    #[test]
    fn small_doc_is_one_chunk() {
        let text = "\n\nHello world.\n\nSecond paragraph.\n\n";
        let index = build(&[doc("references/a.md", None, text)], cfg(100, 10));
        assert_eq!(texts(&index), vec!["Hello world.\n\nSecond paragraph."]);
        let c = &index.chunks[0];
        assert_eq!((c.start, c.end), (2, text.trim_end().len()));
        assert_eq!(c.heading, None);
    }

    #[test]
    fn paragraphs_are_packed() {
        let text = "aaaa aaaa\n\nbbbb bbbb\n\ncccc cccc\n\ndddd";
        let index = build(&[doc("r.md", None, text)], cfg(22, 0));
        assert_eq!(
            texts(&index),
            vec!["aaaa aaaa\n\nbbbb bbbb", "cccc cccc\n\ndddd"]
        );
    }

    #[test]
    fn word_split_with_overlap() {
        let text = "aaa bbb ccc ddd eee";
        let index = build(&[doc("r.md", None, text)], cfg(8, 4));
        assert_eq!(
            texts(&index),
            vec!["aaa bbb", "bbb ccc", "ccc ddd", "ddd eee"]
        );
        let no_overlap = build(&[doc("r.md", None, text)], cfg(8, 0));
        assert_eq!(texts(&no_overlap), vec!["aaa bbb", "ccc ddd", "eee"]);
        check_invariants(&[doc("r.md", None, text)], &index);
    }

    #[test]
    fn overlap_is_whole_words() {
        // An overlap of 5 chars cannot hold "bbbbbb cc"; only "cc" fits.
        let text = "aaaa bbbbbb cc dddd";
        let index = build(&[doc("r.md", None, text)], cfg(14, 5));
        assert_eq!(texts(&index), vec!["aaaa bbbbbb cc", "cc dddd"]);
    }

    #[test]
    fn long_paragraph_splits_at_sentences() {
        let text = "One two three. Four five six. Seven eight nine.";
        let index = build(&[doc("r.md", None, text)], cfg(32, 0));
        assert_eq!(
            texts(&index),
            vec!["One two three. Four five six.", "Seven eight nine."]
        );
    }

    #[test]
    fn overlong_word_is_hard_split() {
        let text = "abcdefghij";
        let index = build(&[doc("r.md", None, text)], cfg(4, 2));
        assert_eq!(texts(&index), vec!["abcd", "efgh", "ij"]);
    }

    #[test]
    fn headings_are_tracked() {
        let text = "Intro text.\n\n# Cards\n\nAbout cards.\n\n## Replacement\nReplace a card.\n\n\
                    ### Rules ###\nRule one.\n\n## Limits\nAt most three.\n\n# Other\n";
        let index = build(&[doc("r.md", None, text)], ChunkingConfig::default());
        let got: Vec<(Option<&str>, &str)> = index
            .chunks
            .iter()
            .map(|c| (c.heading.as_deref(), c.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (None, "Intro text."),
                (Some("Cards"), "About cards."),
                (Some("Cards > Replacement"), "Replace a card."),
                (Some("Cards > Replacement > Rules"), "Rule one."),
                (Some("Cards > Limits"), "At most three."),
            ]
        );
        // Heading words are searchable.
        let hits = index.search("replacement", None, 10);
        let ids: Vec<u32> = hits.iter().map(|h| h.chunk.id).collect();
        assert_eq!(ids.len(), 2);
        assert!(ids.contains(&2) && ids.contains(&3));
    }

    #[test]
    fn headings_in_code_fences_are_ignored() {
        let text = "# Setup\n\n```sh\n# install\nmake\n```\n\n#hashtag is not a heading\n";
        let index = build(&[doc("r.md", None, text)], ChunkingConfig::default());
        assert_eq!(index.chunks.len(), 1);
        assert_eq!(index.chunks[0].heading.as_deref(), Some("Setup"));
        assert!(index.chunks[0].text.contains("# install"));
        assert!(index.chunks[0].text.ends_with("#hashtag is not a heading"));
    }

    #[test]
    fn utf8_safety() {
        let text = "Ünïcödé 😀😀😀 naïve café 日本語のテキスト 🎉🎉 ok. Ça va? Très bien! 🚀";
        let docs = [doc("r.md", None, text)];
        for size in 1..20 {
            for overlap in 0..size {
                let index = build(&docs, cfg(size, overlap));
                check_invariants(&docs, &index);
            }
        }
        let hard = build(&[doc("r.md", None, "😀😀😀😀😀")], cfg(2, 1));
        assert_eq!(texts(&hard), vec!["😀😀", "😀😀", "😀"]);
    }

    #[test]
    fn empty_docs_are_skipped() {
        let docs = [
            doc("references/empty.md", None, ""),
            doc("references/blank.md", None, "  \n\n\t \n"),
            doc("references/real.md", None, "Real content"),
            doc("references/only-heading.md", None, "# Title\n"),
        ];
        let index = build(&docs, ChunkingConfig::default());
        assert_eq!(index.chunks.len(), 1);
        assert_eq!(index.chunks[0].path, "references/real.md");
        assert_eq!(index.chunks[0].id, 0);
        assert!(!index.is_empty());
        let empty = build(&docs[..2], ChunkingConfig::default());
        assert!(empty.is_empty());
        assert!(empty.search("anything", None, 5).is_empty());
        assert_eq!(empty.stats().documents, 0);
        let round: KnowledgeIndex = KnowledgeIndex::from_json(&empty.to_json()).unwrap();
        assert_eq!(round, empty);
    }

    #[test]
    fn chunks_never_cross_documents_and_ids_are_sequential() {
        let docs = [
            doc("a.md", None, "alpha beta gamma"),
            doc("b.md", Some("s"), "delta epsilon"),
        ];
        let index = build(&docs, cfg(100, 50));
        assert_eq!(texts(&index), vec!["alpha beta gamma", "delta epsilon"]);
        assert_eq!(index.chunks[1].id, 1);
        assert_eq!(index.chunks[1].scope.as_deref(), Some("s"));
        check_invariants(&docs, &index);
    }

    fn scoped_index() -> KnowledgeIndex {
        build(
            &[
                doc(
                    "references/global.md",
                    None,
                    "Shipping policy: parcels ship daily.",
                ),
                doc(
                    "skills/cards/references/cards.md",
                    Some("cards"),
                    "Card replacement policy: replace lost cards.",
                ),
                doc(
                    "skills/loans/references/loans.md",
                    Some("loans"),
                    "Loan policy: interest is fixed.",
                ),
            ],
            ChunkingConfig::default(),
        )
    }

    #[test]
    fn scope_filtering() {
        let index = scoped_index();
        let paths =
            |hits: Vec<Hit>| -> Vec<String> { hits.iter().map(|h| h.chunk.path.clone()).collect() };
        assert_eq!(
            paths(index.search("policy", None, 10)),
            vec!["references/global.md"]
        );
        let cards = paths(index.search("policy", Some("cards"), 10));
        assert_eq!(cards.len(), 2);
        assert!(cards.contains(&"references/global.md".to_string()));
        assert!(cards.contains(&"skills/cards/references/cards.md".to_string()));
        assert!(index.search("interest", Some("cards"), 10).is_empty());
        assert_eq!(index.search("interest", Some("loans"), 10).len(), 1);
        assert!(index.search("policy", Some("unknown"), 10).len() == 1);
        assert!(index.search("policy", Some("cards"), 0).is_empty());
        assert_eq!(index.search("policy", Some("cards"), 1).len(), 1);
    }

    #[test]
    fn ranking_sanity() {
        let docs = [
            doc(
                "a.md",
                None,
                "The agent answers questions about orders and shipping.",
            ),
            doc(
                "b.md",
                None,
                "Orders can be cancelled within a day. Refunds take a week.",
            ),
            doc(
                "c.md",
                None,
                "The zygomorphic flower diagram explains orders of petals.",
            ),
            doc(
                "d.md",
                None,
                "Shipping orders abroad requires customs forms.",
            ),
        ];
        let index = build(&docs, ChunkingConfig::default());
        let hits = index.search("zygomorphic orders", None, 10);
        assert_eq!(hits[0].chunk.path, "c.md");
        assert_eq!(hits.len(), 4);
        for pair in hits.windows(2) {
            assert!(
                pair[0].score > pair[1].score
                    || (pair[0].score == pair[1].score && pair[0].chunk.id < pair[1].chunk.id)
            );
        }
        // Stop words and unknown words score nothing.
        assert!(index.search("the and of", None, 10).is_empty());
        assert!(index.search("nonexistent", None, 10).is_empty());
        // Equal documents tie and are ordered by id.
        let twins = build(
            &[
                doc("x.md", None, "same words"),
                doc("y.md", None, "same words"),
            ],
            ChunkingConfig::default(),
        );
        let hits = twins.search("words", None, 10);
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].score, hits[1].score);
        assert_eq!((hits[0].chunk.id, hits[1].chunk.id), (0, 1));
    }

    #[test]
    fn bm25_matches_formula() {
        let docs = [
            doc("a.md", None, "apple apple banana"),
            doc("b.md", None, "banana cherry"),
        ];
        let index = build(&docs, ChunkingConfig::default());
        assert_eq!(index.avg_len, 2.5);
        let hits = index.search("apple", None, 10);
        assert_eq!(hits.len(), 1);
        let idf = (1.0f64 + (2.0 - 1.0 + 0.5) / (1.0 + 0.5)).ln();
        let expected = idf * 2.0 * 2.2 / (2.0 + 1.2 * (1.0 - 0.75 + 0.75 * 3.0 / 2.5));
        assert!((hits[0].score - expected).abs() < 1e-12);
    }

    #[test]
    fn stats_counts() {
        let index = scoped_index();
        let stats = index.stats();
        assert_eq!(stats.documents, 3);
        assert_eq!(stats.chunks, 3);
        assert_eq!(stats.terms, index.doc_freq.len());
        assert_eq!(
            stats.scopes,
            vec![
                ScopeStats {
                    scope: None,
                    documents: 1,
                    chunks: 1
                },
                ScopeStats {
                    scope: Some("cards".into()),
                    documents: 1,
                    chunks: 1
                },
                ScopeStats {
                    scope: Some("loans".into()),
                    documents: 1,
                    chunks: 1
                },
            ]
        );
        assert!(serde_json::to_string(&stats).is_ok());
    }

    #[test]
    fn determinism_and_round_trip() {
        let long: String = (0..200)
            .map(|i| format!("Sentence {i} about topic{} and más café. ", i % 7))
            .collect();
        let docs = [
            doc("references/long.md", None, &long),
            doc(
                "skills/s/references/x.md",
                Some("s"),
                "# H\n\nThree odd words: 1 22 333.",
            ),
        ];
        let a = build(&docs, cfg(120, 30));
        let b = build(&docs, cfg(120, 30));
        assert_eq!(a.to_json(), b.to_json());
        assert_eq!(
            serde_json::to_string_pretty(&a).unwrap(),
            serde_json::to_string_pretty(&b).unwrap()
        );
        let back = KnowledgeIndex::from_json(&a.to_json()).unwrap();
        assert_eq!(back, a);
        assert_eq!(back.to_json(), a.to_json());
        check_invariants(&docs, &a);
        assert!(a.avg_len.fract() != 0.0, "exercise a non-trivial float");
    }

    fn doc_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just(" ".to_string()),
            Just("\n".to_string()),
            Just("\n\n".to_string()),
            Just("\r\n".to_string()),
            Just("\t".to_string()),
            Just(". ".to_string()),
            Just("# ".to_string()),
            Just("## ".to_string()),
            Just("```".to_string()),
            Just("é".to_string()),
            Just("😀".to_string()),
            Just("日本".to_string()),
            "[a-z]{1,12}",
            "[a-zA-Z0-9 .!?]{1,20}",
            any::<char>().prop_map(|c| c.to_string()),
        ];
        prop::collection::vec(piece, 0..80).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn build_and_search_never_panic(
            texts in prop::collection::vec(doc_text(), 0..4),
            size in 1usize..40,
            overlap_seed in 0usize..40,
            query in doc_text(),
        ) {
            let overlap = overlap_seed % size;
            let paths: Vec<String> = (0..texts.len()).map(|i| format!("r{i}.md")).collect();
            let docs: Vec<Document> = texts
                .iter()
                .zip(&paths)
                .enumerate()
                .map(|(i, (t, p))| doc(p, if i % 2 == 0 { None } else { Some("s") }, t))
                .collect();
            let index = build(&docs, cfg(size, overlap));
            check_invariants(&docs, &index);

            // Every non-whitespace char is covered by a chunk or lies on a
            // heading line.
            for d in &docs {
                let mut covered = vec![false; d.text.len()];
                for c in index.chunks.iter().filter(|c| c.path == d.path) {
                    covered[c.start..c.end].iter_mut().for_each(|x| *x = true);
                }
                for (i, ch) in d.text.char_indices() {
                    if !ch.is_whitespace() && !covered[i] {
                        let line_start = d.text[..i].rfind('\n').map_or(0, |p| p + 1);
                        let line = d.text[line_start..].split('\n').next().unwrap();
                        prop_assert!(atx_heading(line.trim_end_matches('\r')).is_some(),
                            "uncovered {:?} at {} in {:?}", ch, i, d.text);
                    }
                }
            }

            for scope in [None, Some("s"), Some("t")] {
                let hits = index.search(&query, scope, 5);
                prop_assert!(hits.len() <= 5);
                for h in &hits {
                    prop_assert!(h.score > 0.0 && h.score.is_finite());
                }
            }
            let json = index.to_json();
            prop_assert_eq!(KnowledgeIndex::from_json(&json).unwrap(), index.clone());
            prop_assert_eq!(build(&docs, cfg(size, overlap)).to_json(), json);
        }
    }
}
