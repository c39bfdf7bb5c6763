//! Judgement calls on a candidate: is this value a secret or ordinary code,
//! a reference, a path, prose? Every fuzzy decision of redaction lives here;
//! the rules (`rules.rs`) only find candidates.

use regex::{Captures, Match};

use super::kinds::{Kind, MARKER_PREFIX};

/// A group of a match: bytes `start..end` of a haystack, and their text.
/// Built from a regex capture or by hand (the assignment rule reads its key
/// and operator without the regex's capture engine).
#[derive(Clone, Copy, Debug)]
pub(super) struct Part<'h> {
    text: &'h str,
    start: usize,
    end: usize,
}

impl<'h> Part<'h> {
    pub(super) fn new(hay: &'h str, start: usize, end: usize) -> Part<'h> {
        Part {
            text: &hay[start..end],
            start,
            end,
        }
    }

    pub(super) fn as_str(&self) -> &'h str {
        self.text
    }

    pub(super) fn start(&self) -> usize {
        self.start
    }

    pub(super) fn end(&self) -> usize {
        self.end
    }

    pub(super) fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// A capture of a regex run on `&hay[by..]`, in `hay`'s offsets.
    fn shifted(m: Match<'h>, by: usize) -> Part<'h> {
        Part {
            text: m.as_str(),
            start: by + m.start(),
            end: by + m.end(),
        }
    }
}

impl<'h> From<Match<'h>> for Part<'h> {
    fn from(m: Match<'h>) -> Part<'h> {
        Part::shifted(m, 0)
    }
}

/// Named groups of a match, however they were found.
pub(super) trait Groups<'h> {
    fn name(&self, name: &str) -> Option<Part<'h>>;
    fn whole(&self) -> Part<'h>;
}

impl<'h> Groups<'h> for Captures<'h> {
    fn name(&self, name: &str) -> Option<Part<'h>> {
        Captures::name(self, name).map(Part::from)
    }

    fn whole(&self) -> Part<'h> {
        self.get(0).expect("group 0").into()
    }
}

/// The part of a match to replace, or `None` to leave the match as it is.
pub(super) fn secret_span<'h>(kind: Kind, caps: &impl Groups<'h>) -> Option<Part<'h>> {
    let candidate = || caps.name("s").or_else(|| Some(caps.whole()));
    match kind {
        Kind::Token => candidate().filter(|s| !is_marker(s.as_str())),
        Kind::Checked(check) => candidate().filter(|s| !is_marker(s.as_str()) && check(s.as_str())),
        Kind::Assignment => assignment_secret(caps, false),
        Kind::Flag => assignment_secret(caps, true),
        Kind::Authorization => {
            let s = caps.name("s")?;
            let v = s.as_str();
            if is_marker(v) || is_reference(v) {
                None
            } else if caps.name("scheme").is_some() || bare_is_secret(v, &HEADER_CONTEXT) {
                Some(s)
            } else {
                None
            }
        }
        Kind::Cookie => caps
            .name("s")
            .filter(|s| starts_with_cookie_pair(s.as_str())),
    }
}
/// An `Authorization:` value without a scheme is judged like code.
const HEADER_CONTEXT: BareContext<'static> = BareContext {
    key: "authorization",
    strict: false,
    after_colon: true,
    ends_line: false,
    tight: false,
};

/// Heuristic for `key = value` style matches (documented here because it is
/// the only fuzzy rule):
/// - a key preceded by `/` or `@` is a package or path (`@scope/auth-token`);
/// - a value echoing its key (`token: token2`, `password: "password"`) is a
///   variable or a placeholder;
/// - quoted values are secrets unless empty, a marker, a template/variable
///   reference (`$X`, `${X}`, `{}`, `%s`, `<your-token>`), a version range or
///   prose (several words ending like a sentence);
/// - bare values followed by `(` or `[` are calls/indexing (`get_token()`,
///   `os.environ["X"]`); references, code (`&str`, `Option<String>`, `a::b`,
///   `x?.y`, `!flag`), paths, null/boolean literals and primitive type names
///   are kept;
/// - for SCREAMING_CASE keys (env files: `DB_PASSWORD=hunter`) anything else
///   is a secret, except a constant name (`TOKEN = DEFAULT_TOKEN`) or an
///   identifier after `:` in the middle of a line (`NAME: Type = ...`);
/// - otherwise (code, CLI flags, prose) identifiers and dotted paths
///   (`token`, `String`, `self.password`, `node.dot2`) are kept -- except a
///   lower-case word ending a `key: value` line (YAML: `password: hunter`);
///   short integers and versions are kept; any other value (letters mixed with
///   digits or symbols) is a secret; a value glued to `=` (`password=hunter`,
///   `?token=abc`) is data even when it is a plain word, unless it reads like
///   a variable (`snake_case`, `camelCase`, dotted);
/// - a weak name (`cache_key`, `sortKey`, `credentials`: it ends in `key`,
///   `signature` or `credential` without a secret word before it) holds a
///   secret only when its value is an opaque token, except in env files.
pub(super) fn assignment_secret<'h>(caps: &impl Groups<'h>, flag: bool) -> Option<Part<'h>> {
    if caps.name("lead").is_some() {
        return None;
    }
    let key = caps.name("key").map_or("", |k| k.as_str());
    let quoted = caps
        .name("dq")
        .or_else(|| caps.name("sq"))
        .or_else(|| caps.name("edq"));
    let strict = !flag && is_screaming(key);
    // Whether the key is weak is asked only of a value that would
    // otherwise go (most values after a key's name are code and stop
    // earlier): the name comparisons cost more than the value's tests.
    let weak = || !flag && !strict && !is_strong_key(key);
    if let Some(q) = quoted {
        let v = q.as_str();
        let secret = quoted_is_secret(v, key) && (!weak() || weak_value_is_secret(v));
        return secret.then_some(q);
    }
    let bare = caps.name("bare")?;
    if caps.name("next").is_some() {
        return None;
    }
    let op = caps.name("op");
    // A flag's value ending a command (`--password hunter -h db`) is data,
    // like a value glued to `=`; in prose (`--token flag to...`) it is not.
    let tight = (flag && caps.name("fend").is_some())
        || match (caps.name("key"), op) {
            (Some(k), Some(o)) => {
                o.as_str() == "=" && o.start() - k.end() <= 1 && o.end() == bare.start()
            }
            _ => false,
        };
    let ctx = BareContext {
        key,
        strict,
        after_colon: op.is_some_and(|o| o.as_str() == ":"),
        ends_line: caps.name("eol").is_some(),
        tight,
    };
    let v = bare.as_str();
    let secret = bare_is_secret(v, &ctx) && (!weak() || weak_value_is_secret(v));
    secret.then_some(bare)
}

/// Where a bare value was found.
struct BareContext<'a> {
    /// The key it is assigned to (empty when unknown).
    key: &'a str,
    /// SCREAMING_CASE key: env-file style, where values are data, not code.
    strict: bool,
    /// The operator was a plain `:`.
    after_colon: bool,
    /// Nothing but blanks follows the value on its line.
    ends_line: bool,
    /// The value is glued to a plain `=` (`password=x`): env, URL, CLI.
    tight: bool,
}

fn quoted_is_secret(v: &str, key: &str) -> bool {
    !v.is_empty()
        && !is_marker(trim_line_ends(v))
        && !is_reference(v)
        && !is_version(v)
        && !echoes_key(v, key)
        && !is_prose(v)
}

fn bare_is_secret(v: &str, ctx: &BareContext) -> bool {
    // The commonest case first (`password: String,`): outside env files an
    // identifier is code unless it ends a `key: value` line or is glued to
    // `=`, whatever the tests below would say.
    let may_be_data = ctx.strict || ctx.tight || (ctx.after_colon && ctx.ends_line);
    if !may_be_data && is_identifier_path(v) {
        return false;
    }
    if v.is_empty()
        || is_marker(v)
        || is_reference(v)
        || looks_like_code(v, ctx.strict)
        || is_path(v)
        || is_literal(v)
        || is_type_name(v)
        || echoes_key(v, ctx.key)
    {
        return false;
    }
    let identifier = is_identifier_path(v);
    if ctx.strict {
        return !(is_constant_name(v) || (identifier && ctx.after_colon && !ctx.ends_line));
    }
    if is_version(v) {
        return false;
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        return v.len() > 6;
    }
    if identifier {
        // After a password's name, a word is a password whatever its
        // letters (`password=xABBcdEf`, `password: Hunter`); after other
        // names a camelCase or capitalised word reads as code.
        let password = is_password_key(ctx.key);
        let word = |b: u8| {
            if password {
                b.is_ascii_alphabetic()
            } else {
                b.is_ascii_lowercase()
            }
        };
        return (ctx.after_colon && ctx.ends_line && v.bytes().all(word))
            || (ctx.tight && !reads_like_variable(v, password));
    }
    true
}

/// `user_password`, `dbPassword`, `self.pw`: how code names a variable.
/// After a password's name only the first kind counts: a password may mix
/// cases like a camelCase name.
fn reads_like_variable(v: &str, password: bool) -> bool {
    let b = v.as_bytes();
    v.contains(['_', '.', '$'])
        || (!password && b[0].is_ascii_lowercase() && b.iter().any(u8::is_ascii_uppercase))
}

/// Does a key name a password (`password`, `DB_PASSWD`, `dbPassword`,
/// `--pwd`, `passphrase`)?
fn is_password_key(key: &str) -> bool {
    let norm = Folded::new(key);
    ["password", "passwd", "passphrase", "pwd"]
        .iter()
        .any(|name| norm.ends_with(name))
}

/// A Discord bot token: its first part is the base64 of a numeric id (17
/// to 20 digits, not starting with 0).
pub(super) fn discord_bot_token(v: &str) -> bool {
    let Some((id, _)) = v.split_once('.') else {
        return false;
    };
    let (mut bits, mut held, mut digits) = (0u32, 0u32, 0usize);
    for b in id.bytes() {
        let six = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            _ => return false,
        };
        bits = (bits << 6 | u32::from(six)) & 0xfff;
        held += 6;
        if held >= 8 {
            held -= 8;
            let byte = (bits >> held) & 0xff;
            let first_ok = digits > 0 || byte != u32::from(b'0');
            if !(u32::from(b'0')..=u32::from(b'9')).contains(&byte) || !first_ok {
                return false;
            }
            digits += 1;
        }
    }
    (17..=20).contains(&digits)
}

/// Does a key name a secret by itself (`password`, `api_key`,
/// `AccountKey`), rather than only ending in `key` (`cache_key`)?
fn is_strong_key(key: &str) -> bool {
    const STRONG: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "secret",
        "token",
        "apikey",
        "accesskey",
        "secretkey",
        "privatekey",
        "accountkey",
        "sharedaccesskey",
        "sharedaccesssignature",
        "masterkey",
        "signingkey",
        "encryptionkey",
        "authkey",
        "appkey",
        "licensekey",
        "clientkey",
        "servicekey",
    ];
    let norm = Folded::new(key);
    STRONG.iter().any(|s| norm.ends_with(s))
}

/// The last [`Folded::ROOM`] letters and digits of a key, lower-cased
/// (`DB_PASSWORD` and `dbPassword` both end in `dbpassword`): how key names
/// are compared, without allocating (it runs on every assignment found).
struct Folded {
    tail: [u8; Folded::ROOM],
    len: usize,
    /// More letters and digits came before the tail.
    cut: bool,
}

impl Folded {
    /// Longer than every name compared (`sharedaccesssignature`).
    const ROOM: usize = 32;

    fn new(key: &str) -> Folded {
        let mut tail = [0u8; Folded::ROOM];
        let mut len = 0;
        let mut cut = false;
        for &b in key.as_bytes().iter().rev() {
            if !b.is_ascii_alphanumeric() {
                continue;
            }
            if len == Folded::ROOM {
                cut = true;
                break;
            }
            len += 1;
            tail[Folded::ROOM - len] = b.to_ascii_lowercase();
        }
        Folded { tail, len, cut }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.tail[Folded::ROOM - self.len..]
    }

    fn ends_with(&self, name: &str) -> bool {
        self.as_bytes().ends_with(name.as_bytes())
    }

    /// The whole key folds to exactly `name`.
    fn is(&self, name: &str) -> bool {
        !self.cut && self.as_bytes() == name.as_bytes()
    }
}

/// The value of a weak key: an opaque token, not a digest (`cache_key:
/// <sha>` is an ordinary hash).
fn weak_value_is_secret(v: &str) -> bool {
    opaque_token(v) && !is_hex_digest(v)
}

/// Lower-case hex of a common digest length (git SHA-1, SHA-256, MD5).
fn is_hex_digest(v: &str) -> bool {
    matches!(v.len(), 32 | 40 | 64)
        && v.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The password of `scheme://user:password@`: not a reference, not a port
/// followed by a path (`host:443/pkg/@scope`).
pub(super) fn url_password(v: &str) -> bool {
    let port = v
        .split_once('/')
        .is_some_and(|(head, _)| head.bytes().all(|b| b.is_ascii_digit()));
    !is_reference(v) && !port
}

pub(super) fn has_letter_and_digit(v: &str) -> bool {
    v.bytes().any(|b| b.is_ascii_alphabetic()) && v.bytes().any(|b| b.is_ascii_digit())
}

/// Letters and digits with a long unbroken alphanumeric run: a generated
/// token, not a kebab-case word (`sk-learn-style`) or a path.
pub(super) fn opaque_token(v: &str) -> bool {
    let longest_run = v
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::len)
        .max()
        .unwrap_or(0);
    has_letter_and_digit(v) && longest_run >= 16 && !v.contains("://")
}

/// A value right after a secret's name in prose (`secret key wJalr...`):
/// long, opaque (a digit in its first bytes), not a UUID-less identifier
/// or a path. Hex digests count here: after the word `token` a 40-hex
/// value is a token, not a commit.
pub(super) fn context_secret(v: &str) -> bool {
    let v = v.trim_end_matches(['.', ',']);
    v.len() >= 20
        && !is_marker(v)
        && !is_path(v)
        && !is_reference(v)
        && opaque_token(v)
        // Its pre-check looks this far for a digit (a bounded look per
        // trigger keeps redaction linear).
        && v.bytes()
            .take(super::prechecks::CONTEXT_DIGIT_BYTES)
            .any(|b| b.is_ascii_digit())
}

/// Exactly one marker: `[REDACTED]` or `[REDACTED:family]`. Only whole
/// markers are left alone, so `"[REDACTED] hunter2"` is still redacted.
pub(super) fn is_marker(v: &str) -> bool {
    v.strip_prefix(MARKER_PREFIX)
        .and_then(|rest| rest.strip_suffix(']'))
        .is_some_and(|family| {
            family.is_empty()
                || family
                    .strip_prefix(':')
                    .is_some_and(|f| f.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'))
        })
}

/// Drops trailing whitespace and escaped line ends (`\n`, `\r`), as left
/// after a redacted PEM block inside a JSON string.
pub(super) fn trim_line_ends(mut v: &str) -> &str {
    loop {
        let trimmed = v.trim_end().trim_end_matches("\\n").trim_end_matches("\\r");
        if trimmed.len() == v.len() {
            return v;
        }
        v = trimmed;
    }
}

pub(super) fn not_reference(v: &str) -> bool {
    !is_reference(v)
}

/// Variables and templates stand for a secret without being one.
pub(super) fn is_reference(v: &str) -> bool {
    v.starts_with('$')
        || v.starts_with('{')
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.len() >= 3 && v.starts_with('%') && v.ends_with('%'))
        || matches!(v, "%s" | "%d" | "%r" | "%v" | "%q")
}

pub(super) fn looks_like_code(v: &str, strict: bool) -> bool {
    if v.starts_with('&') || v.starts_with('*') {
        return true; // reference / dereference
    }
    let b = v.as_bytes();
    if b.windows(2)
        .any(|op| matches!(op, b"::" | b"->" | b"=>" | b"?." | b"??"))
    {
        return true;
    }
    // Negation `!flag` (not in env files, where `!` may start a password).
    if !strict
        && b.len() > 1
        && b[0] == b'!'
        && (b[1].is_ascii_alphabetic() || b"_!(".contains(&b[1]))
    {
        return true;
    }
    // Generic type: `Option<String>`, `Vec<u8>`, `z.ZodOptional<...>`.
    let path_len = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(*c, b'_' | b'.' | b'$'))
        .count();
    path_len > 0 && b.get(path_len) == Some(&b'<')
}

/// `name`, `Type`, `self.token`, `node.dot2_token`: identifiers joined by
/// dots. Digits are allowed only in a dotted path with a digit-free segment,
/// so `hunter2` and `p4ss.w0rd` do not count.
pub(super) fn is_identifier_path(v: &str) -> bool {
    // One pass over the bytes: it runs on most values after a key's name.
    let v = v.strip_suffix('.').unwrap_or(v).as_bytes();
    let (mut segments, mut digit_free_segment, mut has_digit) = (0, false, false);
    let mut at = 0;
    loop {
        // A segment: a letter, `_` or `$`, then those or digits.
        if !v
            .get(at)
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(*c, b'_' | b'$'))
        {
            return false;
        }
        let mut digit = false;
        while let Some(&c) = v.get(at).filter(|c| **c != b'.') {
            if c.is_ascii_digit() {
                digit = true;
            } else if !(c.is_ascii_alphabetic() || matches!(c, b'_' | b'$')) {
                return false;
            }
            at += 1;
        }
        segments += 1;
        digit_free_segment |= !digit;
        has_digit |= digit;
        if at == v.len() {
            break;
        }
        at += 1;
    }
    !has_digit || (segments > 1 && digit_free_segment)
}

/// `DEFAULT_TOKEN`, `DUMMY_API_KEY`: a constant referenced by name.
pub(super) fn is_constant_name(v: &str) -> bool {
    v.contains('_')
        && v.as_bytes()[0].is_ascii_uppercase()
        && v.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// `token: token2`, `previousToken: previousToken2`, `password: "password"`.
pub(super) fn echoes_key(v: &str, key: &str) -> bool {
    let name = key.rsplit(['.', '-']).next().unwrap_or(key);
    let v = v.trim_end_matches(|c: char| c.is_ascii_digit());
    !name.is_empty() && v.eq_ignore_ascii_case(name)
}

/// Several words ending like a sentence: a description, not a credential.
pub(super) fn is_prose(v: &str) -> bool {
    let spaces = v.bytes().filter(|b| *b == b' ').count();
    spaces >= 6 || (spaces >= 3 && v.trim_end().ends_with(['.', '!', '?', ':', '…']))
}

pub(super) fn is_path(v: &str) -> bool {
    let b = v.as_bytes();
    v.starts_with('/')
        || v.starts_with("./")
        || v.starts_with("../")
        || v.starts_with("~/")
        || (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/')
}

/// null / boolean literals, including minified `!0` and `!1`.
pub(super) fn is_literal(v: &str) -> bool {
    [
        "null",
        "none",
        "nil",
        "undefined",
        "true",
        "false",
        "~",
        "!0",
        "!1",
    ]
    .iter()
    .any(|k| v.eq_ignore_ascii_case(k))
}

pub(super) fn is_type_name(v: &str) -> bool {
    const TYPES: &[&str] = &[
        "string", "str", "number", "bool", "boolean", "int", "integer", "float", "double", "any",
        "unknown", "object", "char", "byte", "bytes", "void", "never",
    ];
    if TYPES.contains(&v) {
        return true;
    }
    // Sized primitives: u8, i64, usize, f32, uint32, int64, float64.
    let rest = v
        .strip_prefix("uint")
        .or_else(|| v.strip_prefix("int"))
        .or_else(|| v.strip_prefix("float"))
        .or_else(|| v.strip_prefix(['u', 'i', 'f']));
    matches!(rest, Some("8" | "16" | "32" | "64" | "128" | "size"))
}

/// `1.2.3`, `^4.0.0`, `~1.2`, `>=2.0.0-beta.1`, `v1.0`.
pub(super) fn is_version(v: &str) -> bool {
    let v = v.trim_start_matches(['^', '~', '>', '<', '=', 'v', ' ']);
    let core_end = v.find(['-', '+']).unwrap_or(v.len());
    let (core, suffix) = v.split_at(core_end);
    let mut parts = core.split('.');
    let major = parts.next().unwrap_or_default();
    let mut count = 1;
    let core_ok = !major.is_empty()
        && major.bytes().all(|b| b.is_ascii_digit())
        && parts.all(|p| {
            count += 1;
            !p.is_empty() && (p.bytes().all(|b| b.is_ascii_digit()) || p == "x" || p == "*")
        })
        && (2..=4).contains(&count);
    core_ok
        && suffix
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'+')
}

pub(super) fn is_screaming(key: &str) -> bool {
    key.bytes().any(|b| b.is_ascii_uppercase()) && !key.bytes().any(|b| b.is_ascii_lowercase())
}

pub(super) fn mixed_case_and_digit(v: &str) -> bool {
    mixed_case(v) && v.bytes().any(|b| b.is_ascii_digit())
}

pub(super) fn mixed_case(v: &str) -> bool {
    v.bytes().any(|b| b.is_ascii_uppercase()) && v.bytes().any(|b| b.is_ascii_lowercase())
}

pub(super) fn bearer_like(v: &str) -> bool {
    v.len() >= 32 || v.bytes().any(|b| b.is_ascii_digit())
}

pub(super) fn long_opaque(v: &str) -> bool {
    v.len() >= 16 && !is_reference(v)
}

/// `name=value...`: a cookie header value (not `Cookie = jar.get(...)`).
pub(super) fn starts_with_cookie_pair(v: &str) -> bool {
    match v.find('=') {
        Some(0) | None => false,
        Some(i) => v[..i]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&*+-.^_|~".contains(&b)),
    }
}

/// Is `key` (of a JSON object) the name of a secret? Compares the key,
/// lower-cased with separators dropped, against known suffixes, so
/// `DB_PASSWORD`, `x-api-key`, `clientSecret` and `Set-Cookie` qualify while
/// `max_tokens`, `tokenizer` and `token_count` do not.
pub(super) fn is_secret_key(key: &str) -> bool {
    const SUFFIXES: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "secret",
        "token",
        "apikey",
        "accesskey",
        "secretkey",
        "privatekey",
        "authorization",
        "cookie",
    ];
    // Special tokens of tokenizer configs are vocabulary, not credentials.
    const VOCABULARY: &[&str] = &[
        "bostoken",
        "eostoken",
        "padtoken",
        "unktoken",
        "septoken",
        "clstoken",
        "masktoken",
    ];
    let norm = Folded::new(key);
    SUFFIXES.iter().any(|s| norm.ends_with(s)) && !VOCABULARY.iter().any(|v| norm.is(v))
}
