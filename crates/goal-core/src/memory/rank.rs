//! Lexical ranking, no model and no network: which board items and memories a
//! prompt (and the goal) are about (BM25 over their words, a subject or item
//! name counting three times), and which memories are most useful at session
//! start (votes, recency, relevance to the goal).
//!
//! Words are lowercased runs of letters and digits; `camelCase`, `snake_case`,
//! paths and kebab-case names split into their words; words of one or two
//! letters and common English words are dropped; a plural `s` is cut. Each
//! word is kept as a 32-bit hash, which is all the ranking cache stores.

/// Weight of a word in a subject or an item's name.
pub const TITLE_WEIGHT: u32 = 3;
/// Weight of a goal's word beside a prompt's.
const GOAL_WEIGHT: f32 = 0.3;
/// Distinct prompt words a query keeps (a pasted log must not cost more).
const MAX_PROMPT_TERMS: usize = 32;
/// Distinct goal words a query keeps.
const MAX_GOAL_TERMS: usize = 16;
/// Characters of a prompt read.
const MAX_QUERY_CHARS: usize = 4000;
/// Below this inverse document frequency a word is in most documents (about
/// two in three or more) and says nothing about which one a prompt means
/// (when it is in three or more: a tiny corpus has no common words).
const MIN_DISTINCTIVE_IDF: f32 = 0.4;
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// Words too common to say what a text is about.
const STOPWORDS: [&str; 95] = [
    "about", "after", "again", "all", "also", "and", "any", "are", "because", "been", "before",
    "being", "but", "can", "could", "did", "does", "doing", "done", "each", "for", "from", "get",
    "had", "has", "have", "her", "here", "him", "his", "how", "into", "its", "just", "let", "like",
    "make", "may", "more", "most", "much", "must", "need", "not", "now", "off", "once", "one",
    "only", "other", "our", "out", "over", "please", "same", "see", "she", "should", "some",
    "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "through", "too", "under", "until", "use", "very", "want", "was", "way", "were",
    "what", "when", "where", "which", "while", "who", "why", "will", "with", "would", "yes", "yet",
    "you", "your",
];

fn is_stopword(word: &str) -> bool {
    STOPWORDS.binary_search(&word).is_ok()
}

/// FNV-1a, 32 bits.
fn hash(word: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in word {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Hand each word of `text` (as its hash) to `f`.
pub fn words(text: &str, mut f: impl FnMut(u32)) {
    let mut word = String::with_capacity(32);
    let mut prev_lower = false;
    let mut flush = |word: &mut String| {
        if word.chars().count() >= 3 && !is_stopword(word) {
            let stem = if word.len() > 3
                && word.ends_with('s')
                && !word.ends_with("ss")
                && !word.ends_with("us")
                && !word.ends_with("is")
            {
                &word[..word.len() - 1]
            } else {
                word.as_str()
            };
            f(hash(stem.as_bytes()));
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower {
                flush(&mut word);
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            word.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            flush(&mut word);
        }
    }
    flush(&mut word);
}

/// A ranked text: its words with how often each occurs in its title and in
/// its body, sorted by hash, and its weighted length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Doc {
    pub terms: Vec<(u32, u16, u16)>,
    pub len: u32,
}

impl Doc {
    /// A title (subject, item name) and body texts.
    pub fn new(title: &str, body: &[&str]) -> Doc {
        let mut raw: Vec<(u32, bool)> = Vec::new();
        words(title, |h| raw.push((h, true)));
        for part in body {
            words(part, |h| raw.push((h, false)));
        }
        raw.sort_unstable_by_key(|(h, _)| *h);
        let mut terms: Vec<(u32, u16, u16)> = Vec::new();
        let mut len = 0u32;
        for (h, in_title) in raw {
            len += if in_title { TITLE_WEIGHT } else { 1 };
            match terms.last_mut() {
                Some(last) if last.0 == h => {
                    if in_title {
                        last.1 = last.1.saturating_add(1);
                    } else {
                        last.2 = last.2.saturating_add(1);
                    }
                }
                _ => terms.push((h, u16::from(in_title), u16::from(!in_title))),
            }
        }
        Doc { terms, len }
    }
}

impl Doc {
    fn find(&self, h: u32) -> Option<(u16, u16)> {
        self.terms
            .binary_search_by_key(&h, |t| t.0)
            .ok()
            .map(|i| (self.terms[i].1, self.terms[i].2))
    }
}

/// Documents as the ranking reads them: how many, their weighted lengths,
/// and for a word the documents holding it (with its counts in their title
/// and body). Built [`Docs`] here, or the ranking cache's inverted index
/// (`index::Index`), read in place.
pub trait Corpus {
    fn docs(&self) -> usize;
    fn weighted_len(&self, d: usize) -> u32;
    /// Hand `f` each document holding word `h`: (document, title count, body count).
    fn postings(&self, h: u32, f: &mut dyn FnMut(usize, u16, u16));
}

/// A few documents built here (the board's items), scanned one by one.
pub struct Docs<'a>(pub &'a [Doc]);

impl Corpus for Docs<'_> {
    fn docs(&self) -> usize {
        self.0.len()
    }
    fn weighted_len(&self, d: usize) -> u32 {
        self.0[d].len
    }
    fn postings(&self, h: u32, f: &mut dyn FnMut(usize, u16, u16)) {
        for (d, doc) in self.0.iter().enumerate() {
            if let Some((title, body)) = doc.find(h) {
                f(d, title, body);
            }
        }
    }
}

/// What to rank against: the prompt's words, and the goal's at a lower weight.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// (hash, weight, from the prompt)
    terms: Vec<(u32, f32, bool)>,
}

impl Query {
    pub fn new(prompt: &str, goal: &str) -> Query {
        let mut terms: Vec<(u32, f32, bool)> = Vec::new();
        let cut = |t: &str| -> String { t.chars().take(MAX_QUERY_CHARS).collect() };
        let mut add = |text: &str, weight: f32, prompt: bool, max: usize| {
            let mut n = 0;
            words(&cut(text), |h| {
                if n < max && !terms.iter().any(|t| t.0 == h) {
                    terms.push((h, weight, prompt));
                    n += 1;
                }
            });
        };
        add(prompt, 1.0, true, MAX_PROMPT_TERMS);
        add(goal, GOAL_WEIGHT, false, MAX_GOAL_TERMS);
        Query { terms }
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// How a document matched a query.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Match {
    pub score: f32,
    /// Distinct prompt words matched.
    pub prompt_words: u8,
    /// A prompt word in the title.
    pub title_hit: bool,
    /// A matched prompt word that is not in most documents.
    pub distinctive: bool,
}

impl Match {
    /// Relevant enough to name at a prompt: a prompt word in the title, or two
    /// of them anywhere, and not only words most documents share.
    pub fn relevant(&self) -> bool {
        self.distinctive && (self.title_hit || self.prompt_words >= 2)
    }
}

/// BM25 of every document of `corpora` (numbered one after the other)
/// against `query`: for each query word, the documents holding it.
pub fn score(query: &Query, corpora: &[&dyn Corpus]) -> Vec<Match> {
    let n: usize = corpora.iter().map(|c| c.docs()).sum();
    let mut out = vec![Match::default(); n];
    if n == 0 || query.is_empty() {
        return out;
    }
    let mut total = 0f32;
    let mut lens = Vec::with_capacity(n);
    for c in corpora {
        for d in 0..c.docs() {
            let len = c.weighted_len(d) as f32;
            total += len;
            lens.push(len);
        }
    }
    let avg = (total / n as f32).max(1.0);
    let mut hits: Vec<(usize, u16, u16)> = Vec::new();
    for &(h, weight, from_prompt) in &query.terms {
        hits.clear();
        let mut offset = 0;
        for c in corpora {
            c.postings(h, &mut |d, title, body| {
                hits.push((offset + d, title, body))
            });
            offset += c.docs();
        }
        let df = hits.len() as f32;
        if hits.is_empty() {
            continue;
        }
        let idf = (1.0 + (n as f32 - df + 0.5) / (df + 0.5)).ln();
        let distinctive = hits.len() < 3 || idf >= MIN_DISTINCTIVE_IDF;
        for &(d, title, body) in &hits {
            let tf = (u32::from(title) * TITLE_WEIGHT + u32::from(body)) as f32;
            let norm = K1 * (1.0 - B + B * lens[d] / avg);
            let m = &mut out[d];
            m.score += weight * idf * tf * (K1 + 1.0) / (tf + norm);
            if from_prompt {
                m.prompt_words = m.prompt_words.saturating_add(1);
                m.title_hit |= title > 0;
                m.distinctive |= distinctive;
            }
        }
    }
    out
}

/// Usefulness at session start: votes (an up-vote counts less than a
/// down-vote takes away), recency (halved every 30 days since it was stored
/// or last found useful), and relevance to the goal.
pub fn usefulness(up: u32, down: u32, age_days: f32, relevance: f32) -> f32 {
    let votes = 0.6 * (1.0 + up as f32).ln() - 0.8 * (1.0 + down as f32).ln();
    let recency = 0.5f32.powf(age_days.max(0.0) / 30.0);
    let relevance = 2.0 * relevance / (relevance + 4.0);
    1.0 + votes + recency + relevance
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        words(text, |h| out.push(h));
        out
    }

    #[test]
    fn the_stopword_list_is_sorted_for_its_binary_search() {
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOPWORDS.to_vec());
    }

    #[test]
    fn identifiers_split_into_their_words() {
        assert_eq!(list("refreshToken"), list("refresh token"));
        assert_eq!(
            list("src/auth/token_store.rs"),
            list("src auth token store")
        );
        assert_eq!(list("run-the-tests"), list("run tests"));
        assert_eq!(list("Tests"), list("test"));
        assert_eq!(list("the and with"), Vec::<u32>::new());
        assert_eq!(list("a b cd"), Vec::<u32>::new());
        assert_eq!(list("class"), vec![hash(b"class")]);
    }

    #[test]
    fn the_document_naming_the_prompt_s_subject_ranks_first() {
        let docs = [
            Doc::new(
                "database migrations",
                &["Run sqlx migrate before the tests."],
            ),
            Doc::new(
                "auth tokens",
                &["Tokens refresh in src/auth/refresh.rs; never log them."],
            ),
            Doc::new("release", &["Tag with vX.Y.Z and push the tag."]),
        ];
        let refs: [&dyn Corpus; 1] = [&Docs(&docs)];
        let m = score(&Query::new("why does the auth token expire?", ""), &refs);
        assert!(m[1].relevant() && m[1].title_hit, "{m:?}");
        assert!(!m[0].relevant() && !m[2].relevant(), "{m:?}");
        assert!(m[1].score > m[0].score && m[1].score > m[2].score);
        let nothing = score(&Query::new("say hello", ""), &refs);
        assert!(nothing.iter().all(|m| !m.relevant()), "{nothing:?}");
    }

    #[test]
    fn a_goal_word_alone_never_makes_a_document_relevant() {
        let docs = [Doc::new("auth tokens", &["refresh flow"])];
        let refs: [&dyn Corpus; 1] = [&Docs(&docs)];
        let m = score(
            &Query::new("say hello", "fix the auth token refresh"),
            &refs,
        );
        assert!(m[0].score > 0.0 && !m[0].relevant(), "{m:?}");
    }

    #[test]
    fn a_word_every_document_shares_is_not_distinctive() {
        let docs: Vec<Doc> = (0..6)
            .map(|i| Doc::new("project notes", &[&format!("item {i} about build")]))
            .collect();
        let refs: [&dyn Corpus; 1] = [&Docs(&docs)];
        let m = score(&Query::new("project build", ""), &refs);
        assert!(m.iter().all(|m| !m.relevant()), "{m:?}");
    }

    #[test]
    fn in_a_small_corpus_a_word_two_documents_share_still_counts() {
        let docs = [
            Doc::new("run the tests", &["How to run the greeting tests"]),
            Doc::new("test command", &["Run sh test.sh to test the greeting."]),
            Doc::new("release tags", &["Releases are tagged vX.Y.Z."]),
        ];
        let refs: [&dyn Corpus; 1] = [&Docs(&docs)];
        let m = score(
            &Query::new("which test command runs the greeting?", ""),
            &refs,
        );
        assert!(
            m[0].relevant() && m[1].relevant() && !m[2].relevant(),
            "{m:?}"
        );
    }

    #[test]
    fn votes_and_recency_order_usefulness() {
        assert!(usefulness(1, 0, 0.0, 0.0) > usefulness(0, 0, 0.0, 0.0));
        assert!(usefulness(0, 1, 0.0, 0.0) < usefulness(0, 0, 0.0, 0.0));
        assert!(usefulness(0, 0, 1.0, 0.0) > usefulness(0, 0, 60.0, 0.0));
        assert!(usefulness(0, 0, 0.0, 5.0) > usefulness(0, 0, 0.0, 0.0));
    }
}
