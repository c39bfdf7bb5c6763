//! A corpus generated at run time: fake tokens of the families the public
//! rule sets (gitleaks, noseyparker) describe, built from random pieces
//! (never a literal token in the repository), planted in realistic
//! contexts; plus benign lines that must come back unchanged. The test
//! prints recall and benign lines changed, and fails under the thresholds.
//! The generators are shared with the property tests.

use super::redact;

/// Deterministic xorshift (the corpus is the same on every run).
pub(super) struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % n as u64).expect("small")
    }

    /// `n` random characters of `alphabet`, with at least one digit and one
    /// letter of each case the alphabet has (real tokens mix them).
    pub fn chars(&mut self, alphabet: &str, n: usize) -> String {
        let bytes = alphabet.as_bytes();
        loop {
            let s: String = (0..n)
                .map(|_| char::from(bytes[self.below(bytes.len())]))
                .collect();
            let wants =
                |pred: fn(&u8) -> bool| !bytes.iter().any(pred) || s.bytes().any(|b| pred(&b));
            if n < 8
                || (wants(u8::is_ascii_digit)
                    && wants(u8::is_ascii_lowercase)
                    && wants(u8::is_ascii_uppercase))
            {
                return s;
            }
        }
    }
}

pub(super) const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LOWER_ALNUM: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const HEX: &str = "0123456789abcdef";
const B64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// A prefix given in two pieces, so no token prefix is spelled whole in
/// the source.
fn p(a: &str, b: &str) -> String {
    [a, b].concat()
}

/// One fake token of every family, freshly generated: (family, token).
pub(super) fn tokens(r: &mut Rng) -> Vec<(&'static str, String)> {
    let uuid = |r: &mut Rng| {
        format!(
            "{}-{}-{}-{}-{}",
            r.chars(HEX, 8),
            r.chars(HEX, 4),
            r.chars(HEX, 4),
            r.chars(HEX, 4),
            r.chars(HEX, 12)
        )
    };
    let jwt_part = |r: &mut Rng, n: usize| p("ey", "J") + &r.chars(B64URL, n);
    vec![
        ("aws-access-key-id", p("AK", "IA") + &r.chars(BASE32, 16)),
        ("aws-access-key-id", p("AS", "IA") + &r.chars(BASE32, 16)),
        ("aws-access-key-id", p("AR", "OA") + &r.chars(BASE32, 16)),
        ("github", p("gh", "p_") + &r.chars(ALNUM, 36)),
        ("github", p("gh", "o_") + &r.chars(ALNUM, 36)),
        ("github", p("gh", "s_") + &r.chars(ALNUM, 36)),
        (
            "github",
            p("github_", "pat_") + &r.chars(ALNUM, 22) + "_" + &r.chars(ALNUM, 59),
        ),
        ("gitlab", p("gl", "pat-") + &r.chars(B64URL, 20)),
        ("gitlab", p("gl", "rt-") + &r.chars(ALNUM, 20)),
        ("gitlab", p("GR13", "48941") + &r.chars(ALNUM, 20)),
        (
            "slack",
            p("xo", "xb-")
                + &r.chars("0123456789", 11)
                + "-"
                + &r.chars("0123456789", 12)
                + "-"
                + &r.chars(ALNUM, 24),
        ),
        (
            "slack",
            p("xo", "xp-")
                + &r.chars("0123456789", 11)
                + "-"
                + &r.chars("0123456789", 12)
                + "-"
                + &r.chars(HEX, 32),
        ),
        (
            "slack",
            p("xa", "pp-1-")
                + &r.chars(UPPER_ALNUM, 11)
                + "-"
                + &r.chars("0123456789", 13)
                + "-"
                + &r.chars(HEX, 64),
        ),
        (
            "slack-webhook",
            p("https://hooks.sl", "ack.com/services/")
                + &r.chars(UPPER_ALNUM, 9)
                + "/"
                + &r.chars(UPPER_ALNUM, 11)
                + "/"
                + &r.chars(ALNUM, 24),
        ),
        ("stripe", p("sk_", "live_") + &r.chars(ALNUM, 24)),
        ("stripe", p("rk_", "live_") + &r.chars(ALNUM, 24)),
        ("stripe", p("wh", "sec_") + &r.chars(ALNUM, 32)),
        ("openai", p("sk-", "proj-") + &r.chars(B64URL, 48)),
        (
            "openai",
            p("s", "k-") + &r.chars(ALNUM, 20) + &p("T3Blb", "kFJ") + &r.chars(ALNUM, 20),
        ),
        ("openrouter", p("sk-or-", "v1-") + &r.chars(HEX, 64)),
        (
            "anthropic",
            p("sk-ant-", "api03-") + &r.chars(B64URL, 93) + "AA",
        ),
        ("google-api-key", p("AI", "za") + &r.chars(B64URL, 35)),
        ("google-oauth", p("GOC", "SPX-") + &r.chars(B64URL, 28)),
        ("google-oauth", p("ya", "29.") + &r.chars(B64URL, 60)),
        ("npm", p("np", "m_") + &r.chars(ALNUM, 36)),
        ("pypi", p("pypi-AgEIcHlwaS5v", "cmc") + &r.chars(B64URL, 70)),
        ("huggingface", p("h", "f_") + &r.chars(ALNUM, 34)),
        (
            "sendgrid",
            p("S", "G.") + &r.chars(B64URL, 22) + "." + &r.chars(B64URL, 43),
        ),
        ("twilio", p("S", "K") + &r.chars(HEX, 32)),
        ("mailgun", p("ke", "y-") + &r.chars(HEX, 32)),
        ("mailchimp", r.chars(HEX, 32) + &p("-u", "s12")),
        ("shopify", p("shp", "at_") + &r.chars(HEX, 32)),
        ("digitalocean", p("dop_", "v1_") + &r.chars(HEX, 64)),
        ("doppler", p("dp.", "pt.") + &r.chars(ALNUM, 43)),
        (
            "dynatrace",
            p("dt0", "c01.") + &r.chars(UPPER_ALNUM, 24) + "." + &r.chars(UPPER_ALNUM, 64),
        ),
        ("databricks", p("da", "pi") + &r.chars(HEX, 32)),
        (
            "atlassian",
            p("ATA", "TT3") + &r.chars(B64URL, 180) + "=" + &r.chars(HEX, 8),
        ),
        ("linear", p("lin_", "api_") + &r.chars(ALNUM, 40)),
        (
            "notion",
            p("nt", "n_") + &r.chars("0123456789", 11) + &r.chars(ALNUM, 35),
        ),
        (
            "postman",
            p("PM", "AK-") + &r.chars(HEX, 24) + "-" + &r.chars(HEX, 34),
        ),
        ("pulumi", p("pu", "l-") + &r.chars(HEX, 40)),
        (
            "grafana",
            p("gl", "sa_") + &r.chars(ALNUM, 32) + "_" + &r.chars(HEX, 8),
        ),
        ("grafana", p("gl", "c_") + &r.chars(B64, 60) + "=="),
        ("vault", p("hv", "s.") + &r.chars(B64URL, 90)),
        (
            "terraform",
            r.chars(LOWER_ALNUM, 14) + &p(".atlas", "v1.") + &r.chars(B64URL, 67),
        ),
        ("planetscale", p("pscale_", "tkn_") + &r.chars(B64URL, 43)),
        ("prefect", p("pn", "u_") + &r.chars(ALNUM, 36)),
        ("rubygems", p("ruby", "gems_") + &r.chars(HEX, 48)),
        (
            "sentry",
            p("sntr", "ys_") + &p("ey", "J") + &r.chars(B64, 60),
        ),
        ("shippo", p("shippo_", "live_") + &r.chars(HEX, 40)),
        ("square", p("sq0", "atp-") + &r.chars(B64URL, 22)),
        ("square", p("EA", "AA") + &r.chars(B64URL, 60)),
        ("facebook", p("EA", "ACEdEose0cBA") + &r.chars(ALNUM, 120)),
        (
            "flutterwave",
            p("FLWSE", "CK_TEST-") + &r.chars(HEX, 32) + "-X",
        ),
        ("frameio", p("fio", "-u-") + &r.chars(B64URL, 64)),
        ("duffel", p("duffel_", "test_") + &r.chars(B64URL, 43)),
        ("easypost", p("EZ", "AK") + &r.chars(ALNUM, 54)),
        (
            "age",
            p("AGE-SECRET-", "KEY-1") + &r.chars("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
        ),
        ("alibaba", p("LT", "AI") + &r.chars(ALNUM, 20)),
        ("clojars", p("CLOJ", "ARS_") + &r.chars(LOWER_ALNUM, 60)),
        ("contentful", p("CF", "PAT-") + &r.chars(B64URL, 43)),
        ("docker", p("dckr_", "pat_") + &r.chars(B64URL, 27)),
        ("flyio", p("fo", "1_") + &r.chars(B64URL, 43)),
        ("heroku", p("HR", "KU-") + &r.chars(B64URL, 60)),
        ("jfrog", p("AK", "Cp") + &r.chars(ALNUM, 69)),
        ("newrelic", p("NR", "AK-") + &r.chars(UPPER_ALNUM, 27)),
        ("openshift", p("sha256", "~") + &r.chars(B64URL, 43)),
        ("perplexity", p("pp", "lx-") + &r.chars(ALNUM, 48)),
        ("groq", p("gs", "k_") + &r.chars(ALNUM, 52)),
        ("xai", p("xa", "i-") + &r.chars(ALNUM, 80)),
        ("replicate", p("r", "8_") + &r.chars(ALNUM, 37)),
        (
            "langsmith",
            p("lsv2_", "pt_") + &r.chars(HEX, 32) + "_" + &r.chars(HEX, 10),
        ),
        ("tavily", p("tv", "ly-") + &r.chars(ALNUM, 32)),
        ("sonarqube", p("sq", "p_") + &r.chars(HEX, 40)),
        (
            "telegram",
            r.chars("0123456789", 10) + ":" + &p("A", "A") + &r.chars(B64URL, 33),
        ),
        ("typeform", p("tf", "p_") + &r.chars(ALNUM, 59)),
        ("yandex", p("AQ", "VN") + &r.chars(B64URL, 36)),
        (
            "azure-ad",
            r.chars(ALNUM, 3) + &r.chars("0123456789", 1) + &p("Q", "~") + &r.chars(ALNUM, 34),
        ),
        (
            "1password",
            p("A", "3-")
                + &r.chars(UPPER_ALNUM, 6)
                + "-"
                + &r.chars(UPPER_ALNUM, 11)
                + "-"
                + &r.chars(UPPER_ALNUM, 5)
                + "-"
                + &r.chars(UPPER_ALNUM, 5)
                + "-"
                + &r.chars(UPPER_ALNUM, 5),
        ),
        (
            "airtable",
            p("pa", "t") + &r.chars(ALNUM, 14) + "." + &r.chars(HEX, 64),
        ),
        ("dropbox", p("s", "l.") + &r.chars(B64URL, 138)),
        ("plaid", p("access-", "sandbox-") + &uuid(r)),
        (
            "brevo",
            p("xkey", "sib-") + &r.chars(HEX, 64) + "-" + &r.chars(ALNUM, 16),
        ),
        (
            "tailscale",
            p("tskey-", "auth-") + &r.chars(ALNUM, 12) + "-" + &r.chars(ALNUM, 32),
        ),
        ("nuget", p("oy", "2") + &r.chars(LOWER_ALNUM, 43)),
        (
            "sourcegraph",
            p("sg", "p_") + &r.chars(HEX, 16) + "_" + &r.chars(HEX, 40),
        ),
        ("supabase", p("sb", "p_") + &r.chars(HEX, 40)),
        ("buildkite", p("bk", "ua_") + &r.chars(HEX, 40)),
        ("netlify", p("nf", "p_") + &r.chars(ALNUM, 36)),
        ("launchdarkly", p("ap", "i-") + &uuid(r)),
        (
            "jwt",
            jwt_part(r, 30) + "." + &jwt_part(r, 60) + "." + &r.chars(B64URL, 43),
        ),
        (
            "mapbox",
            p("sk.", "eyJ") + &r.chars(B64URL, 60) + "." + &r.chars(B64URL, 22),
        ),
        (
            "bcrypt",
            p("$2", "b$12$")
                + &r.chars(
                    "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                    53,
                ),
        ),
        (
            "discord-webhook",
            p("https://discord.com/api/", "webhooks/")
                + &r.chars("0123456789", 18)
                + "/"
                + &r.chars(B64URL, 68),
        ),
        ("private-key", {
            let line = |w: &str| format!("-----{w} OPENSSH {} KEY-----", "PRIVATE");
            format!(
                "{}\n{}\n{}\n{}",
                line("BEGIN"),
                r.chars(B64, 70),
                r.chars(B64, 70),
                line("END")
            )
        }),
        ("discord-bot-token", discord_bot_token(r, 18, 27)),
        ("discord-bot-token", discord_bot_token(r, 19, 38)),
        ("discord-bot-token", discord_bot_token(r, 17, 27)),
    ]
}

/// Standard base64, unpadded.
fn base64(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(
                B64.as_bytes()[(n >> (18 - 6 * i) & 63) as usize],
            ));
        }
    }
    out
}

/// A fake Discord bot token: the base64 of a numeric id of `digits`
/// digits, a timestamp part and an HMAC part of `hmac` characters.
pub(super) fn discord_bot_token(r: &mut Rng, digits: usize, hmac: usize) -> String {
    let id = r.chars("123456789", 1) + &r.chars("0123456789", digits - 1);
    format!(
        "{}.{}.{}",
        base64(id.as_bytes()),
        r.chars(B64URL, 6),
        r.chars(B64URL, hmac)
    )
}

/// Realistic places a token is found in: (template with `{}` for the token).
const TOKEN_CONTEXTS: &[&str] = &[
    "{}",
    "echo {}",
    "export SERVICE_CRED={}",
    "  value: {}",
    "\"value\": \"{}\",",
    "remote: using {} for the upload",
    "[INFO] loaded credentials {} from cache",
    "curl -H \"X-Custom: {}\" https://api.example.com/v1",
    "config = {{ auth: '{}' }}",
    "docker run -e API={} image",
    "| {} |",
];

/// Secrets assigned to a secret-like name, in every syntax: (template with
/// `{}` for the value, whether the value may be a plain word).
const ASSIGNMENTS: &[&str] = &[
    "DB_PASSWORD={}",
    "export GITHUB_TOKEN={}",
    "password={}",
    "mysql --password {} -h db",
    "cli --token={} --verbose",
    "  password: {}",
    "api_key: \"{}\"",
    "{{\"client_secret\": \"{}\"}}",
    "{{\\\"password\\\": \\\"{}\\\"}}",
    "apiKey = '{}';",
    "setx SECRET_KEY {}",
    "Authorization: Bearer {}",
    "Authorization: Basic {}",
    "X-Api-Key: {}",
    "postgres://admin:{}@db.internal:5432/app",
    "https://user:{}@example.com/repo.git",
    "Server=db;Database=app;User Id=sa;Password={};",
    "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net",
    "jdbc:mysql://db/app?user=root&password={}",
    "curl -u deploy:{} https://ci.example.com",
    "machine api.example.com login deploy password {}",
    "the secret key is {}",
    "my token: {}",
    "aws_secret_access_key = {}",
    "STRIPE_KEY={}",
    "  client_key: {}",
    "$env:API_TOKEN = \"{}\"",
    "set -x OPENAI_API_KEY {}",
];

/// Passwords after a password's name: every syntax, with values of
/// letters only in any case (a password is often a word).
const PASSWORD_ASSIGNMENTS: &[&str] = &[
    "password={}",
    "PASSWORD={}",
    "db_password={}",
    "dbPassword={}",
    "passwd={}",
    "pwd={}",
    "passphrase={}",
    "--password={}",
    "mysql --password {} -h db",
    "mysql --db-password {}",
    "  password: {}",
    "password: '{}'",
    "{{\"password\": \"{}\"}}",
    "jdbc:mysql://db/app?user=root&password={}",
    "Server=db;Database=app;User Id=sa;Password={};",
    "password={} rest",
];

/// A letters-only password, each case style in turn.
fn letters_password(r: &mut Rng, style: usize) -> String {
    let n = 6 + r.below(9);
    let lower = r.chars("abcdefghijklmnopqrstuvwxyz", n);
    match style % 4 {
        0 => lower,
        1 => lower.to_ascii_uppercase(),
        // camelCase-looking: `xABBcdEf`.
        2 => {
            r.chars("abcdefghijklmnopqrstuvwxyz", 1)
                + &r.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", n)
        }
        _ => r.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 1) + &lower,
    }
}

/// Values for [`ASSIGNMENTS`]: letters-only words included.
fn assigned_value(r: &mut Rng) -> String {
    match r.below(5) {
        0 => {
            let n = 6 + r.below(8);
            r.chars("abcdefghijklmnopqrstuvwxyz", n)
        }
        1 => r.chars(ALNUM, 40),
        2 => r.chars(ALNUM, 12) + "!" + &r.chars(ALNUM, 3),
        3 => r.chars(B64, 40),
        _ => r.chars(ALNUM, 20),
    }
}

/// Values a secret needs context for: a bare 40-character key.
fn secret_key_value(r: &mut Rng) -> String {
    r.chars(B64, 40)
}

/// Planted secrets: (line, secret that must not survive).
pub(super) fn planted(r: &mut Rng) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (_, token) in tokens(r) {
        for context in TOKEN_CONTEXTS {
            out.push((context.replace("{}", &token), token.clone()));
        }
    }
    for assignment in PASSWORD_ASSIGNMENTS {
        for style in 0..8 {
            let value = letters_password(r, style);
            let line = assignment
                .replace("{{", "{")
                .replace("}}", "}")
                .replacen("{}", &value, 1);
            out.push((line, value));
        }
    }
    for assignment in ASSIGNMENTS {
        for _ in 0..4 {
            let value = if assignment.contains("secret key") || assignment.contains("aws_secret") {
                secret_key_value(r)
            } else {
                assigned_value(r)
            };
            let line = assignment
                .replace("{{", "{")
                .replace("}}", "}")
                .replacen("{}", &value, 1);
            out.push((line, value));
        }
    }
    out
}

/// Ordinary lines an agent reads and writes; none holds a secret.
pub(super) fn benign(r: &mut Rng) -> Vec<String> {
    let mut out: Vec<String> = [
        "let token = get_token();",
        "pub struct Login { password: String, token: Option<String> }",
        "fn secret_key(&self) -> &[u8] { &self.key }",
        "const tokenizer = new Tokenizer({ maxTokens: 4096 });",
        "password = None",
        "api_key = os.environ[\"API_KEY\"]",
        "PASSWORD=${DB_PASSWORD}",
        "TOKEN=$GITHUB_TOKEN",
        "  NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}",
        "  token: ${{ secrets.GITHUB_TOKEN }}",
        "password: \"password\",",
        "export const token = createToken();",
        "let cookie: Cookie = jar.get(\"session\");",
        "The tokenizer splits text into tokens; a token: the unit.",
        "use the --token flag to pass it",
        "PWD=/home/user/project",
        "/home/user/.config/secrets/token.json",
        "src/auth/password.rs:42:5: error",
        "npm install @octokit/auth-token jsonwebtoken secret-handshake",
        "\"@octokit/auth-token\": \"^4.0.0\",",
        "https://github.com/rust-lang/regex/blob/master/src/lib.rs?plain=1#L10",
        "git@github.com:org/repo.git",
        "https://registry.example.com:443/pkg/@scope/name",
        "the sk-learn-style-kebab-identifier-name",
        "Bearer token authentication",
        "--secret-color: #fff;",
        "    cache_key: cargo-registry",
        "  primary_key: id",
        "sortKey: name,",
        "credentials: 'include',",
        "if (!token) return res.status(401).end();",
        "headers = { Authorization: `Bearer ${token}` }",
        "login(user, password=password)",
        "max_tokens: 4096",
        "export PATH=$HOME/.cargo/bin:$PATH",
        "secret: true",
        "token_count = 12",
        "key: value",
        "The password policy requires twelve characters.",
        "Use an access token with the repo scope.",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for _ in 0..20 {
        let uuid = format!(
            "{}-{}-{}-{}-{}",
            r.chars(HEX, 8),
            r.chars(HEX, 4),
            r.chars(HEX, 4),
            r.chars(HEX, 4),
            r.chars(HEX, 12)
        );
        let sha = r.chars(HEX, 40);
        let sha256 = r.chars(HEX, 64);
        out.extend([
            format!("commit {sha}"),
            format!("Merge: {} {}", &sha[..7], &r.chars(HEX, 7)),
            format!("request id {uuid} finished"),
            format!("\"id\": \"{uuid}\","),
            format!("digest: sha256:{sha256}"),
            format!("    cache_key: {sha}"),
            format!("image@sha256:{sha256}"),
            format!(
                "src/{}/mod.rs:{}:{}: warning: unused",
                r.chars("abcdefghij", 6),
                r.below(900),
                r.below(80)
            ),
            format!("https://github.com/org/repo/commit/{sha}"),
            format!("goal-{}", r.chars(HEX, 20)),
            format!("\"integrity\": \"sha512-{}==\",", r.chars(B64, 86)),
        ]);
    }
    out
}

#[test]
fn corpus_recall_and_benign_lines() {
    let mut rng = Rng(0x5eed_c0de_1234_5678);
    let planted = planted(&mut rng);
    let mut missed = Vec::new();
    for (line, secret) in &planted {
        let out = redact(line);
        if out.contains(secret.as_str()) {
            missed.push(line.clone());
        }
        // Idempotent on the way.
        assert_eq!(redact(&out), out.as_ref(), "not idempotent: {line:?}");
    }
    let benign = benign(&mut rng);
    let changed: Vec<&String> = benign.iter().filter(|l| redact(l) != l.as_str()).collect();
    let recall = 100.0 * (planted.len() - missed.len()) as f64 / planted.len() as f64;
    println!(
        "redaction corpus: recall {recall:.2}% ({} of {} planted secrets redacted), benign lines changed: {} of {}",
        planted.len() - missed.len(),
        planted.len(),
        changed.len(),
        benign.len()
    );
    for line in missed.iter().take(20) {
        println!("  missed: {line}");
    }
    for line in changed.iter().take(20) {
        println!("  changed: {line} -> {}", redact(line));
    }
    assert!(
        missed.is_empty(),
        "recall {recall:.2}%: every planted secret must go"
    );
    assert!(changed.is_empty(), "{} benign lines changed", changed.len());
}
