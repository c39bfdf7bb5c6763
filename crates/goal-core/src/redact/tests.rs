//! Unit tests of redaction: fixtures per family, ordinary text, idempotence,
//! the engine's triggers and windows.

use super::engine::{candidates, window_start, Engine};
use super::prechecks;
use super::rules::Start;
use super::scan::is_word_byte;
use super::*;
use regex::Regex;
use serde_json::json;

// Fake secrets are assembled at run time so no secret-shaped literal
// appears in the source (a pre-commit check rejects those).

/// Deterministic mixed-case alphanumeric filler of length `n`.
fn mix(n: usize) -> String {
    "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zLc"
        .chars()
        .cycle()
        .take(n)
        .collect()
}

fn pem_line(word: &str) -> String {
    format!("-----{} RSA {} KEY-----", word, "PRIVATE")
}

fn pem_block(newline: &str) -> String {
    [
        pem_line("BEGIN"),
        "MIIEowIBAAKCAQEA".to_string() + &mix(48),
        mix(64),
        pem_line("END"),
    ]
    .join(newline)
}

fn marker(family: &str) -> String {
    format!("[REDACTED:{family}]")
}

/// (input, expected output, secret that must be gone)
fn positive_cases() -> Vec<(String, String, String)> {
    let mut cases = Vec::new();
    let mut add = |prefix: &str, secret: String, suffix: &str, family: &str| {
        cases.push((
            format!("{prefix}{secret}{suffix}"),
            format!("{prefix}{}{suffix}", marker(family)),
            secret,
        ));
    };

    let aws_id = ["AK", "IA"].concat() + "IOSFODNN7EXAMPLE";
    add("aws_access_key_id = ", aws_id, "\n", "aws-access-key-id");
    let sts_id = ["AS", "IA"].concat() + &"Q".repeat(16);
    add("id ", sts_id, " used", "aws-access-key-id");
    let aws_secret = mix(20) + "/+" + &mix(18);
    add(
        "aws_secret_access_key = ",
        aws_secret.clone(),
        "",
        "aws-secret-key",
    );
    add("AWS_SECRET_ACCESS_KEY=", aws_secret, "", "aws-secret-key");
    add(
        "key=",
        ["AI", "za"].concat() + &mix(35),
        "&x=1",
        "google-api-key",
    );
    add(
        "",
        ["GOC", "SPX-"].concat() + &mix(28),
        "",
        "google-oauth-secret",
    );
    add(
        "Bearer ",
        ["ya", "29."].concat() + &mix(40),
        "",
        "google-oauth-token",
    );
    add(
        "token ",
        format!("{}{}", "gh", "p_") + &mix(36),
        ".",
        "github-token",
    );
    add(
        "remote ",
        format!("{}{}", "gh", "s_") + &mix(40),
        "",
        "github-token",
    );
    let fine_grained = ["github", "pat", ""].join("_") + &mix(22) + "_" + &mix(59);
    add("GH=", fine_grained, "", "github-token");
    add(
        "",
        ["gl", "pat-"].concat() + &mix(20),
        " ok",
        "gitlab-token",
    );
    let slack = ["xo", "xb-"].concat() + "1234567890-1234567890-" + &mix(24);
    add("slack: ", slack, "", "slack-token");
    let slack_app = ["xa", "pp-"].concat() + "1-A012BC3DE4F-" + &mix(30);
    add("", slack_app, "", "slack-token");
    add(
        "post to https://hooks.slack.com/services/",
        "T00000000/B00000000/".to_string() + &mix(24),
        " now",
        "slack-webhook",
    );
    add(
        "stripe ",
        ["sk", "live", ""].join("_") + &mix(24),
        "",
        "stripe-key",
    );
    add(
        "stripe ",
        ["rk", "test", ""].join("_") + &mix(24),
        "",
        "stripe-key",
    );
    add(
        "openai ",
        ["sk", "proj", ""].join("-") + &mix(48),
        "",
        "openai-key",
    );
    add("legacy ", "sk-".to_string() + &mix(48), "", "openai-key");
    let anthropic = ["sk", "ant", "api03", ""].join("-") + &mix(80) + "-" + &mix(6);
    add("ANTHROPIC key ", anthropic, "", "anthropic-key");
    add(
        "//registry/:_authToken ",
        ["np", "m_"].concat() + &mix(36),
        "",
        "npm-token",
    );
    add("", ["py", "pi-AgEI"].concat() + &mix(70), "", "pypi-token");
    add(
        "hf ",
        ["h", "f_"].concat() + &mix(34),
        "",
        "huggingface-token",
    );
    let jwt = [
        "ey",
        "JhbGciOiJIUzI1NiJ9",
        ".ey",
        "JzdWIiOiIxMjM0NTY3ODkwIn0.",
        &mix(43),
    ]
    .concat();
    add("id_token is ", jwt, " (expires)", "jwt");
    add("", pem_block("\n"), "\n", "private-key");

    // Assignments keep their key.
    add("password=", "hunter2".into(), "", "secret");
    add("DB_PASSWORD=", "hunter".into(), "\n", "secret");
    add("export GITHUB_TOKEN=", "abc123def".into(), "", "secret");
    add("api_key: \"", "abcd".into(), "\"", "secret");
    add(
        "{\"client_secret\": \"",
        "s3cr3t value".into(),
        "\"}",
        "secret",
    );
    add(
        "{\\\"password\\\": \\\"",
        "hunter2".into(),
        "\\\"}",
        "secret",
    );
    add("apiKey = '", "k3y".into(), "';", "secret");
    add("password: ", "postgres".into(), "\nhost: db", "secret");
    add("  POSTGRES_PASSWORD: ", "postgres".into(), "  \n", "secret");
    add("TOKEN: ", "abc123".into(), ",", "secret");
    add("password: ", "postgres".into(), "\r\n", "secret");
    add(
        "//registry.npmjs.org/:_authToken=",
        "abc123".into(),
        "\n",
        "secret",
    );
    add("mysql --password ", "hunter2".into(), " -h db", "secret");
    add("cli --token=", "abc123".into(), " --verbose", "secret");
    add("--client-secret \"", "two words".into(), "\"", "secret");
    add("config.db.password = ", "p4ss!".into(), ";", "secret");
    add("login(user, password=", "Hunter2!".into(), ")", "secret");

    // Headers.
    add(
        "Authorization: Bearer ",
        "abc.def-ghi".into(),
        "",
        "authorization",
    );
    add(
        "authorization: Basic ",
        "dXNlcjpwYXNzd29yZA==".into(),
        "\r\n",
        "authorization",
    );
    add(
        "Authorization: token ",
        "0123abcd".into(),
        "",
        "authorization",
    );
    add(
        "\"Authorization\": \"",
        "secretvalue123".into(),
        "\"",
        "authorization",
    );
    add("X-Api-Key: ", "abc123def456".into(), "", "secret");
    add(
        "Cookie: ",
        "session=abc123; theme=dark".into(),
        "\n",
        "cookie",
    );
    add("curl -H 'Bearer ", mix(40), "'", "bearer-token");

    // URLs.
    add(
        "postgres://admin:",
        "hunter2".into(),
        "@db.internal:5432/app",
        "url-credentials",
    );
    add(
        "https://x-access-token:",
        "t0k3n".into(),
        "@github.com/o/r.git",
        "url-credentials",
    );
    add(
        "https://api.example.com/v1?access_token=",
        mix(32),
        "&page=2",
        "url-param",
    );
    add(
        "https://bucket.s3.amazonaws.com/f?X-Amz-Signature=",
        mix(64),
        "",
        "url-param",
    );
    add("https://example.com/x?sig=", mix(20), "#top", "url-param");
    cases
}

fn negative_cases() -> Vec<String> {
    let hex40 = "0123456789abcdef".repeat(3)[..40].to_string();
    let hex64 = fingerprint("abc")[7..].to_string();
    [
        "let token = get_token();",
        "pub struct Login { password: String, token: Option<String> }",
        "    password: String,",
        "fn secret_key(&self) -> &[u8] { &self.key }",
        "if (!token) return",
        "const tokenizer = new Tokenizer();",
        "max_tokens: 4096",
        "token_count = 12",
        "let token = self.token.clone();",
        "token = token",
        "let password = req.body.password;",
        "api_key = os.environ[\"API_KEY\"]",
        "PASSWORD=${DB_PASSWORD}",
        "TOKEN=$GITHUB_TOKEN",
        "password: &'a str,",
        "token: Option<String>,",
        "password = None",
        "secret: true",
        "token: string;",
        "password?: string;",
        "token: str = \"\"",
        "secretKey: process.env.SECRET_KEY,",
        "const API_KEY: &str = env!(\"X\");",
        "println!(\"token: {}\", token);",
        "log.info(f\"token={token}\")",
        "export const token = createToken();",
        "let cookie: Cookie = jar.get(\"session\");",
        "The tokenizer splits text into tokens; a token: the unit.",
        "Authorization header is missing",
        "use the --token flag to pass it",
        "PWD=/home/user/project",
        "/home/user/.config/secrets/token.json",
        "src/auth/password.rs:42:5: error",
        "123e4567-e89b-12d3-a456-426614174000",
        "npm install @octokit/auth-token jsonwebtoken secret-handshake",
        "\"@octokit/auth-token\": \"^4.0.0\",",
        "\"jsonwebtoken\": \"^9.0.2\",",
        "https://github.com/rust-lang/regex/blob/master/src/lib.rs?plain=1#L10",
        "https://example.com:8080/path?page=2&sort=asc&key=short",
        "git@github.com:org/repo.git",
        "ssh://git@github.com:22/org/repo.git",
        "the sk-learn-style-kebab-identifier-name",
        "Bearer token authentication",
        "--secret-color: #fff;",
        "-----BEGIN CERTIFICATE-----",
        "progressToken: z.ZodOptional<z.ZodUnion<readonly [z.ZodString, z.ZodNumber]>>;",
        "return { previousToken: previousToken2, token: token2 };",
        "refresh_token: refreshToken",
        "dot2_token: node.dot2_token,",
        "{kty:[\"oct\"],secret:!0,currentToken:r?.currentToken??\"\"}",
        "const exclamationToken = !questionToken && x;",
        "pub const NSS_BUFLEN_PASSWD: usize = 1024;",
        "pub const DEFAULT_PARK_TOKEN: ParkToken = ParkToken(0);",
        "COPILOT_PROVIDER_API_KEY: DUMMY_API_KEY,",
        "TOKEN = DEFAULT_TOKEN",
        "password: \"password\",",
        "\"token\": \"Authentication from a GitHub token.\",",
        "secret-handshake = \"1.2.3\"",
        "[REDACTED]",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        format!("commit {hex40}"),
        format!("digest sha256 {hex64}"),
        // Code that mentions a PEM header is not a key.
        format!(
            "if (pem.indexOf(\"{}\") !== 0) throw e;\nmore();",
            pem_line("BEGIN")
        ),
    ])
    .collect()
}

fn all_fixtures() -> Vec<String> {
    let mut all: Vec<String> = positive_cases().into_iter().map(|c| c.0).collect();
    all.extend(negative_cases());
    all
}

#[test]
fn redacts_every_family_and_keeps_context() {
    for (input, expected, secret) in positive_cases() {
        let out = redact(&input);
        assert_eq!(out, expected, "input: {input:?}");
        assert!(!out.contains(&secret), "secret survived in {out:?}");
        assert!(matches!(out, Cow::Owned(_)));
    }
}

#[test]
fn leaves_ordinary_text_alone() {
    for input in negative_cases() {
        let out = redact(&input);
        assert_eq!(out, input.as_str(), "mangled: {input:?}");
        assert!(matches!(out, Cow::Borrowed(_)), "not borrowed: {input:?}");
    }
}

#[test]
fn redaction_is_idempotent() {
    let fixtures = all_fixtures();
    let mut inputs = fixtures.clone();
    // Pairs too: rules must not interact across neighbouring text.
    for a in &fixtures {
        for b in fixtures.iter().step_by(4) {
            inputs.push(format!("{a} {b}"));
            inputs.push(format!("{a}\n{b}"));
            inputs.push(format!("{a}{b}"));
        }
    }
    for input in &inputs {
        let once = redact(input).into_owned();
        let twice = redact(&once);
        assert_eq!(twice, once.as_str(), "not idempotent for {input:?}");
        assert!(matches!(twice, Cow::Borrowed(_)), "{once:?}");
    }
}

#[test]
fn text_after_a_fake_marker_is_still_redacted() {
    assert_eq!(
        redact("\"password\": \"[REDACTED] hunter2\""),
        "\"password\": \"[REDACTED:secret]\""
    );
    let mut value = json!({"token": "[REDACTED] abc"});
    redact_value(&mut value);
    assert_eq!(value, json!({"token": REDACTED}));
}

#[test]
fn markers_never_match() {
    let mut text = REDACTED.to_string();
    for family in [
        "secret",
        "private-key",
        "github-token",
        "authorization",
        "cookie",
    ] {
        text.push(' ');
        text.push_str(&marker(family));
    }
    assert!(matches!(redact(&text), Cow::Borrowed(_)));
}

#[test]
fn pem_json_escaped_and_truncated() {
    let escaped = format!("{{\"key\": \"{}\\n\", \"other\": 1}}", pem_block("\\n"));
    assert_eq!(
        redact(&escaped),
        "{\"key\": \"[REDACTED:private-key]\\n\", \"other\": 1}"
    );

    let truncated = format!("before\n{}\nMIIEowIBAAKCAQEA{}", pem_line("BEGIN"), mix(30));
    assert_eq!(redact(&truncated), "before\n[REDACTED:private-key]");

    // Two blocks with text between them: both go, the text stays.
    let two = format!("{}\nmiddle\n{}", pem_block("\n"), pem_block("\n"));
    assert_eq!(
        redact(&two),
        "[REDACTED:private-key]\nmiddle\n[REDACTED:private-key]"
    );
}

#[test]
fn service_account_json_keeps_the_key_family() {
    let raw = format!(
        "{{\"type\": \"service_account\", \"private_key_id\": \"0123abcd\", \"private_key\": \"{}\\n\"}}",
        pem_block("\\n").replace("RSA ", "")
    );
    assert_eq!(
        redact(&raw),
        "{\"type\": \"service_account\", \"private_key_id\": \"0123abcd\", \"private_key\": \"[REDACTED:private-key]\\n\"}"
    );
    // Parsed, the key name alone is enough.
    let mut value: Value = serde_json::from_str(&raw).expect("valid json");
    redact_value(&mut value);
    assert_eq!(value["private_key"], REDACTED);
    assert_eq!(value["private_key_id"], "0123abcd");
}

#[test]
fn redact_value_walks_nested_json() {
    let gh = format!("{}{}", "gh", "o_") + &mix(36);
    let mut value = json!({
        "name": "deploy",
        "password": "hunter2",
        "DB_PASSWORD": "x",
        "clientSecret": "anything at all",
        "headers": {
            "Authorization": "Bearer abc",
            "x-api-key": "k",
            "Set-Cookie": "sid=1",
            "Accept": "application/json"
        },
        "empty_token": "",
        "max_tokens": 4096,
        "token_count": "12",
        "tokenizer": "bpe",
        "pad_token": "<pad>",
        "steps": [
            {"cmd": format!("git push https://{gh}@github.com/o/r")},
            ["plain", format!("export TOKEN={gh}")],
            {"nested": {"deeper": {"api_key": "abc", "note": "password=hunter2"}}}
        ],
        "token": {"kind": "oauth", "value": gh.clone()}
    });
    redact_value(&mut value);
    let expected = json!({
        "name": "deploy",
        "password": REDACTED,
        "DB_PASSWORD": REDACTED,
        "clientSecret": REDACTED,
        "headers": {
            "Authorization": REDACTED,
            "x-api-key": REDACTED,
            "Set-Cookie": REDACTED,
            "Accept": "application/json"
        },
        "empty_token": "",
        "max_tokens": 4096,
        "token_count": "12",
        "tokenizer": "bpe",
        "pad_token": "<pad>",
        "steps": [
            {"cmd": "git push https://[REDACTED:github-token]@github.com/o/r"},
            ["plain", "export TOKEN=[REDACTED:github-token]"],
            {"nested": {"deeper": {"api_key": REDACTED, "note": "password=[REDACTED:secret]"}}}
        ],
        "token": {"kind": "oauth", "value": "[REDACTED:github-token]"}
    });
    assert_eq!(value, expected);
    assert!(!value.to_string().contains(&gh));

    // Idempotent as well.
    let again = value.clone();
    redact_value(&mut value);
    assert_eq!(value, again);
}

#[test]
fn secret_key_names() {
    for key in [
        "password",
        "Passwd",
        "pwd",
        "DB_PASSWORD",
        "secret",
        "client_secret",
        "clientSecret",
        "token",
        "GITHUB_TOKEN",
        "accessToken",
        "api_key",
        "apiKey",
        "x-api-key",
        "access_key",
        "private_key",
        "authorization",
        "Cookie",
        "set-cookie",
    ] {
        assert!(is_secret_key(key), "{key}");
    }
    for key in [
        "name",
        "max_tokens",
        "token_count",
        "tokenizer",
        "tokens",
        "public_key",
        "password_hash",
        "eos_token",
        "secretary",
    ] {
        assert!(!is_secret_key(key), "{key}");
    }
}

#[test]
fn truncate_counts_chars() {
    assert_eq!(truncate("héllo wörld", 20), "héllo wörld");
    assert_eq!(truncate("héllo wörld", 11), "héllo wörld");
    assert_eq!(truncate("héllo wörld", 5), "héll…");
    assert_eq!(truncate("日本語のテキスト", 4), "日本語…");
    assert_eq!(truncate("👍👍👍", 2), "👍…");
    assert_eq!(truncate("abc", 1), "…");
    assert_eq!(truncate("abc", 0), "");
    assert_eq!(truncate("", 0), "");
    assert_eq!(truncate("日本語のテキスト", 4).chars().count(), 4);
}

#[test]
fn preview_collapses_whitespace_and_redacts() {
    assert_eq!(
        preview("  hello \n\t world   again  ", 100),
        "hello world again"
    );
    assert_eq!(preview("  hello \n\t world   again  ", 8), "hello w…");
    assert_eq!(
        preview("run\n  --password   hunter2\n now", 100),
        "run --password [REDACTED:secret] now"
    );
    assert_eq!(preview(" \n\t ", 10), "");
    assert_eq!(preview("ünïcödé  ünïcödé", 9), "ünïcödé …");
}

#[test]
fn fingerprint_is_sha256_hex() {
    assert_eq!(
        fingerprint("abc"),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        fingerprint(""),
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn adversarial_megabyte_inputs_finish() {
    // The regex crate guarantees linear-time matching; these inputs make
    // sure the rules and the checks around them stay linear too (a
    // quadratic rule would not finish). No timing assertion.
    const MB: usize = 1 << 20;
    let fill = |unit: &str, size: usize| unit.repeat(size / unit.len());
    let unchanged = |input: &str| matches!(redact(input), Cow::Borrowed(_));
    let redacts_to = |input: &str, expected: &str| redact(input) == expected;

    // Nothing to redact.
    for unit in [
        "a=",
        "eyJ",
        "eyJ.",
        "-----BEGIN",
        "sk-",
        "token ",
        "--token ",
        "https://a:",
    ] {
        assert!(unchanged(&fill(unit, MB)), "{unit:?}");
    }
    assert!(
        unchanged(&fill(&pem_line("BEGIN"), MB)),
        "headers without a body"
    );

    // One huge match each.
    let begin_no_end = format!("x {}\n{}", pem_line("BEGIN"), "A".repeat(MB));
    assert!(redacts_to(&begin_no_end, "x [REDACTED:private-key]"));
    let header_lines = fill(&(pem_line("BEGIN") + "\n"), MB);
    assert!(redacts_to(&header_lines, "[REDACTED:private-key]"));
    assert!(redacts_to(
        &fill("password=", MB),
        "password=[REDACTED:secret]"
    ));
    let spaces = format!("password=a1{}x", " ".repeat(MB));
    assert!(redacts_to(
        &spaces,
        &format!("password=[REDACTED:secret]{}x", " ".repeat(MB))
    ));

    // Many small matches (smaller inputs: every match is real work).
    const SIZE: usize = MB / 4;
    assert!(
        unchanged(&fill("\"password\": \"", SIZE)),
        "only empty values"
    );
    let cookie = format!("Cookie: {}", fill("a=b; ", SIZE));
    assert!(redacts_to(&cookie, "Cookie: [REDACTED:cookie]"));
    let unit = "password=x1 ";
    let expected = "password=[REDACTED:secret] ".repeat(SIZE / unit.len());
    assert!(redacts_to(&fill(unit, SIZE), &expected));
    let unit = "\"password\": \"x1\", ";
    let expected = "\"password\": \"[REDACTED:secret]\", ".repeat(SIZE / unit.len());
    assert!(redacts_to(&fill(unit, SIZE), &expected));
    let creds = redact(&fill("https://a:b@", SIZE)).into_owned();
    assert!(creds.starts_with("https://a:[REDACTED:url-credentials]@https://"));
    let auth = redact(&fill("Authorization: Bearer ", SIZE)).into_owned();
    assert!(auth.contains("[REDACTED:authorization]"));
    let blocks = redact(&fill(&(pem_block("\n") + "\n"), MB)).into_owned();
    assert!(blocks.starts_with("[REDACTED:private-key]\n[REDACTED:private-key]"));
    assert!(!blocks.contains("MIIE"));
}

/// Each rule's pattern, unanchored, compiled once for the tests.
fn free_patterns() -> &'static [Regex] {
    static FREE: OnceLock<Vec<Regex>> = OnceLock::new();
    FREE.get_or_init(|| {
        engine()
            .rules
            .iter()
            .map(|r| Regex::new(&r.pattern).expect("valid pattern"))
            .collect()
    })
}

/// Every match of every rule's pattern in `text` (starting a word, when it
/// starts with a word byte) is found by the engine's windows: a trigger of
/// the rule lies at its start (rules anchored at their trigger) or within
/// its first `back` bytes (the others).
fn assert_triggers_necessary(engine: &Engine, text: &str) {
    let mut hits: Vec<Vec<usize>> = vec![Vec::new(); engine.rules.len()];
    engine.scan(text, |at, rule| hits[rule].push(at));
    let bytes = text.as_bytes();
    for (index, (rule, re)) in engine.rules.iter().zip(free_patterns()).enumerate() {
        for m in re.find_iter(text) {
            let mid_word = m.start() > 0
                && is_word_byte(bytes[m.start() - 1])
                && is_word_byte(bytes[m.start()]);
            let found = match rule.start {
                Start::Back { class, max, lead } => hits[index].iter().any(|&h| {
                    h >= m.start()
                        && h < m.end()
                        && candidates(text, h, class, max, lead).any(|c| c == m.start())
                }),
                Start::AtTrigger => mid_word || hits[index].contains(&m.start()),
                Start::Before(back) => hits[index].iter().any(|&h| {
                    h >= m.start() && h < m.end() && window_start(text, h, back) <= m.start()
                }),
            };
            assert!(
                found,
                "rule {index} ({}) matches {:?} in {text:?} but no trigger finds it",
                rule.family,
                m.as_str()
            );
        }
    }
    // The pre-checks, run by the scan, turn away only triggers whose rule
    // would redact nothing there.
    assert_eq!(
        engine.redact_with(text, true),
        engine.redact_with(text, false),
        "a pre-check changed the redaction of {text:?}"
    );
}

#[test]
fn triggers_are_necessary_for_every_fixture() {
    let engine = engine();
    let fixtures = all_fixtures();
    let mut inputs = fixtures.clone();
    inputs.extend(fixtures.iter().map(|f| redact(f).into_owned()));
    for a in &fixtures {
        for b in fixtures.iter().step_by(5) {
            inputs.push(format!("{a} {b}"));
            inputs.push(format!("{a}{b}"));
        }
    }
    inputs.extend([
        format!("{{\"key\": \"{}\\n\", \"other\": 1}}", pem_block("\\n")),
        format!("before\n{}\nMIIEowIBAAKCAQEA{}", pem_line("BEGIN"), mix(30)),
        format!("{}\nmiddle\n{}", pem_block("\n"), pem_block("\n")),
        format!(
            "{{\"type\": \"service_account\", \"private_key\": \"{}\\n\"}}",
            pem_block("\\n").replace("RSA ", "")
        ),
        "\"password\": \"[REDACTED] hunter2\"".to_string(),
        "run\n  --password   hunter2\n now".to_string(),
        "Proxy-Authorization: Basic dXNlcjpwYXNz".to_string(),
        "Set-Cookie: sid=1".to_string(),
        "aws_secret_key\\\" => \\\"".to_string() + &mix(40),
    ]);
    for input in &inputs {
        assert_triggers_necessary(engine, input);
    }
}

#[test]
fn triggers_are_necessary_for_generated_text() {
    // Random concatenations of trigger-like pieces, separators and
    // token bodies: near misses of every rule (deterministic generator).
    let body = mix(40);
    // Key names and token prefixes, spelled out from the patterns (not
    // from the triggers), in several cases.
    let names = concat!(
        "password Passwd PASSPHRASE pwd Pwd secret Token TOKEN api_key api-key apiKey ",
        "ApiKey accessKey access_key access-token secret-key SecretKey private_key ",
        "PrivateKey passwords client_secret clientSecret auth-token ",
        "aws_secret_access_key AWSSECRETKEY awsSecretKey key keys authorization ",
        "Proxy-Authorization AUTHORIZATION Bearer BEARER basic cookie Set-Cookie COOKIE ",
        "db x my eyJ eyJhbGciOiJIUzI1NiJ9 AKIA ASIA QQQQQQQQQQQQQQQQ AIza GOCSPX- ya29. ",
        "ghp_ gho_ ghu_ ghs_ ghr_ github_pat_ glpat- gldt- glrt- glptt- glft- glcbt- ",
        "glsoat- xoxa- xoxb- xoxp- xoxo- xoxs- xoxr- xapp-1- sk_live_ sk_test_ rk_live_ ",
        "rk_test_ pk_live_ pk_test_ whsec_ sk- sk-ant- sk-proj- sk-svcacct- sk-admin- ",
        "npm_ pypi-Ag hf_ hooks.slack.com/services/ hooks.slack.com/workflows/ ",
        "hooks.slack.com/triggers/ -----BEGIN -----END MIIEow access_token= refresh_token= id_token= auth_token= token= ",
        "api_key= apikey= key= sig= signature= secret= client_secret= password= ",
        "X-Amz-Signature= x-amz-credential= x-amz-security-token= x-goog-signature= ",
        "X-Goog-Credential= hunter2 abc 0123456789 ü 日本 [REDACTED:secret] [REDACTED]"
    );
    // Built from pieces: no key-header literal in the source.
    let rsa_begin = ["-----BEGIN RSA ", "PRIVATE KEY-----"].concat();
    let ec_end = ["-----END EC ", "PRIVATE KEY-----"].concat();
    let mut fragments: Vec<&str> = names.split(' ').collect();
    fragments.extend([
        "=",
        ":",
        ":=",
        "=>",
        " ",
        "  ",
        "\t",
        "\"",
        "'",
        "\\\"",
        "\\'",
        "\\",
        "\n",
        "\r\n",
        "\\n",
        "--",
        "-",
        "_",
        ".",
        "/",
        "@",
        "?",
        "&",
        "#",
        ";",
        "://",
        "https",
        "(",
        "[",
        "$",
        "-----",
        "PRIVATE",
        "KEY",
        " BLOCK",
        &body,
        &rsa_begin,
        &ec_end,
        "-----BEGINPRIVATE KEY-----",
    ]);
    let engine = engine();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % n as u64).expect("small")
    };
    for _ in 0..20_000 {
        let mut text = String::new();
        for _ in 0..1 + next(10) {
            text.push_str(fragments[next(fragments.len())]);
        }
        assert_triggers_necessary(engine, &text);
    }
}

#[test]
fn only_triggered_rules_are_compiled() {
    let engine = Engine::new(rules::table());
    let compiled = |engine: &Engine| -> Vec<&str> {
        engine
            .rules
            .iter()
            .filter(|r| r.is_compiled())
            .map(|r| r.family)
            .collect()
    };
    for clean in [
        "bash: cargo test",
        "bash: cargo build --release -p goal-hook",
        "view: /work/main/crates/goal-core/src/redact.rs",
        "edit: src/keys.rs",
        "",
    ] {
        assert!(engine.triggered(clean).iter().all(|t| !t), "{clean:?}");
        assert!(matches!(engine.redact(clean), Cow::Borrowed(_)));
    }
    assert!(compiled(&engine).is_empty());

    // Words that trigger a rule compile that rule only.
    let mention = "bash: git commit -m \"Add the tokenizer and password hashing\"";
    assert!(matches!(engine.redact(mention), Cow::Borrowed(_)));
    let triggered = engine.triggered(mention);
    for rule in engine
        .rules
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_compiled())
    {
        assert!(
            triggered[rule.0],
            "{} compiled without a trigger",
            rule.1.family
        );
    }

    let engine = Engine::new(rules::table());
    let token = format!("bash: echo {}{}", "gh", "p_") + &mix(36) + " | gh auth login";
    assert!(matches!(engine.redact(&token), Cow::Owned(_)));
    assert!(compiled(&engine).contains(&"github-token"));
    let triggered = engine.triggered(&token);
    for rule in engine
        .rules
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_compiled())
    {
        assert!(
            triggered[rule.0],
            "{} compiled without a trigger",
            rule.1.family
        );
    }
}

/// The pre-check of the token formats (`prechecks::token_follows`) never turns
/// away a match: every format matches only visible ASCII (no blank, no
/// byte outside ASCII), at least `TOKEN_MIN_BYTES` of it.
#[test]
fn token_formats_match_enough_visible_ascii() {
    use regex_syntax::hir::{Class, Hir, HirKind};
    fn visible(hir: &Hir) -> bool {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => true,
            HirKind::Literal(lit) => lit.0.iter().all(u8::is_ascii_graphic),
            HirKind::Class(Class::Unicode(c)) => c
                .ranges()
                .iter()
                .all(|r| r.start() >= '!' && r.end() <= '~'),
            HirKind::Class(Class::Bytes(c)) => c
                .ranges()
                .iter()
                .all(|r| r.start() >= b'!' && r.end() <= b'~'),
            HirKind::Repetition(r) => visible(&r.sub),
            HirKind::Capture(c) => visible(&c.sub),
            HirKind::Concat(all) | HirKind::Alternation(all) => all.iter().all(visible),
        }
    }
    let mut checked = 0;
    for rule in rules::table() {
        let Some(precheck) = rule.precheck else {
            continue;
        };
        if !std::ptr::fn_addr_eq(
            precheck,
            prechecks::token_follows as fn(&[u8], usize) -> bool,
        ) {
            continue;
        }
        assert!(matches!(rule.start, Start::AtTrigger), "{}", rule.family);
        let hir = regex_syntax::parse(&rule.pattern).expect("a valid pattern");
        assert!(
            visible(&hir),
            "{}: {} may match a blank",
            rule.family,
            rule.pattern
        );
        assert!(
            hir.properties().minimum_len() >= Some(prechecks::TOKEN_MIN_BYTES),
            "{}: {} may match fewer than {} bytes",
            rule.family,
            rule.pattern,
            prechecks::TOKEN_MIN_BYTES
        );
        checked += 1;
    }
    assert!(checked > 100, "only {checked} token formats checked");
}

/// A Discord bot token is redacted standing alone; a string of its shape
/// whose first part is not the base64 of a numeric id is left alone.
#[test]
fn discord_bot_tokens_alone_and_lookalikes() {
    let mut rng = super::corpus::Rng(0xd15c_0bd0_7042_1e55);
    for (digits, hmac) in [(17, 27), (18, 27), (19, 38), (20, 38)] {
        let token = super::corpus::discord_bot_token(&mut rng, digits, hmac);
        for line in [
            token.clone(),
            format!("bot.run({token:?})"),
            format!("the bot logs in with {token} now"),
        ] {
            let out = redact(&line);
            assert!(!out.contains(&token), "{line:?} -> {out:?}");
            assert!(out.contains("[REDACTED:discord-bot-token]"), "{out:?}");
        }
    }
    let lookalike = format!("M{}.{}.{}", "z".repeat(23), mix(6), mix(30));
    assert_eq!(redact(&lookalike), lookalike.as_str());
    for prose in ["Other notes on mdBook", "Not ready; odd ojos.", "NZ.Nd.Mt"] {
        assert_eq!(redact(prose), prose);
    }
}
