//! "Did you mean" suggestions.

/// "a" or "an" before `word` (by its first letter).
pub fn article(word: &str) -> &'static str {
    match word.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// `word` with its indefinite article: "an integer", "a list".
pub fn with_article(word: &str) -> String {
    if word == "null" {
        return "empty (null)".to_string();
    }
    format!("{} {word}", article(word))
}

/// Levenshtein distance between two strings, in characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j + 1] + 1).min(cur[j] + 1).min(prev[j] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The closest candidate within an edit distance of 2 (ties: the first in
/// sorted order), never `word` itself.
pub fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        if c == word {
            continue;
        }
        let d = edit_distance(word, c);
        if d <= 2 && best.is_none_or(|(bd, bc)| d < bd || (d == bd && c < bc)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("authenticted", "authenticated"), 1);
    }

    #[test]
    fn suggests_closest() {
        let c = ["description", "name", "hidden"];
        assert_eq!(did_you_mean("descripton", c), Some("description"));
        assert_eq!(did_you_mean("zzz", c), None);
        assert_eq!(did_you_mean("name", c), None);
    }
}
