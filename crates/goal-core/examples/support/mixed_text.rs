//! The bench's mixed agent output, generated at run time (shared by
//! `bench_redact` and the test that holds redaction's output to its
//! reference, `tests/redact_reference.rs`).

/// Deterministic xorshift, so every run times the same text.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % n as u64).expect("small")
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.next(items.len())]
    }

    /// Random characters of `alphabet`.
    fn chars(&mut self, alphabet: &str, n: usize) -> String {
        let bytes = alphabet.as_bytes();
        (0..n)
            .map(|_| char::from(bytes[self.next(bytes.len())]))
            .collect()
    }
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &str = "0123456789abcdef";

/// One line of ordinary agent output: mostly code, build and test output;
/// one line in four names a secret in code or prose without holding one.
fn ordinary(rng: &mut Rng) -> String {
    if rng.next(4) > 0 {
        return plain(rng);
    }
    match rng.next(12) {
        0 => format!(
            "    let token = self.{}.get_token(&request)?;",
            rng.pick(&["auth", "client", "session"])
        ),
        1 => "pub struct Login { password: String, token: Option<String>, api_key: Secret }"
            .to_string(),
        2 => format!(
            "   Compiling goal-core v0.1.0 (/work/main/crates/goal-core)  [{}ms]",
            rng.next(900)
        ),
        3 => format!(
            "{{\"tool\":\"bash\",\"args\":{{\"command\":\"cargo test -p goal-core {}\"}},\"result\":\"test result: ok. {} passed; 0 failed\"}}",
            rng.pick(&["redact", "store", "hooks"]),
            rng.next(200)
        ),
        4 => format!(
            "commit {}\nAuthor: Dev <dev@example.com>\n\n    Fix the tokenizer's max_tokens: 4096 limit",
            rng.chars(HEX, 40)
        ),
        5 => format!(
            "src/redact/{}.rs:{}:{}: warning: unused variable `secret_key`",
            rng.pick(&["engine", "rules", "heuristics"]),
            rng.next(900),
            rng.next(80)
        ),
        6 => format!(
            "request {}-{}-{}-{}-{} finished in {} ms",
            rng.chars(HEX, 8),
            rng.chars(HEX, 4),
            rng.chars(HEX, 4),
            rng.chars(HEX, 4),
            rng.chars(HEX, 12),
            rng.next(500)
        ),
        7 => "The agent reads the key file, checks the password policy and refreshes the access token when it expires.".to_string(),
        8 => "      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}".to_string(),
        9 => format!(
            "drwxr-xr-x  2 user user 4096 Nov 24 06:{:02} /home/user/project/node_modules/.bin",
            rng.next(60)
        ),
        10 => "const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };".to_string(),
        _ => format!(
            "  {} | {}",
            rng.next(1000),
            rng.pick(&[
                "fn main() { println!(\"hello\"); }",
                "if (!token) return res.status(401).end();",
                "export PATH=$HOME/.cargo/bin:$PATH",
                "diff --git a/src/lib.rs b/src/lib.rs",
            ])
        ),
    }
}

/// A line without any secret-like word.
fn plain(rng: &mut Rng) -> String {
    match rng.next(6) {
        0 => format!(
            "test store::tests::writer_{} ... ok",
            rng.pick(&["keeps_copies", "survives_kill", "merges_lists"])
        ),
        1 => format!(
            "    at Object.<anonymous> (/home/user/project/src/index.js:{}:{})",
            rng.next(400),
            rng.next(80)
        ),
        2 => format!(
            "    for (i, item) in items.iter().enumerate().take({}) {{ out.push(item.clone()); }}",
            rng.next(64)
        ),
        3 => format!(
            "+        let value = map.get(&id).copied().unwrap_or({});",
            rng.next(9)
        ),
        4 => format!(
            "{} files changed, {} insertions(+), {} deletions(-)",
            rng.next(30),
            rng.next(900),
            rng.next(400)
        ),
        _ => {
            "warning: `goal-core` (lib) generated 1 warning (run `cargo fix` to apply 1 suggestion)"
                .to_string()
        }
    }
}

/// One line carrying a fake secret, built from random pieces.
fn secret(rng: &mut Rng) -> String {
    match rng.next(6) {
        0 => format!(
            "export GITHUB_TOKEN={}{}",
            ["gh", "p_"].concat(),
            rng.chars(ALNUM, 36)
        ),
        1 => format!("DB_PASSWORD={}", rng.chars(ALNUM, 12)),
        2 => format!(
            "curl -H \"Authorization: Bearer {}\" https://api.example.com",
            rng.chars(ALNUM, 40)
        ),
        3 => format!(
            "psql postgres://admin:{}@db.internal:5432/app",
            rng.chars(ALNUM, 16)
        ),
        4 => format!(
            "{{\"api_key\": \"{}{}\"}}",
            ["sk", "-proj-"].concat(),
            rng.chars(ALNUM, 48)
        ),
        _ => format!("aws_secret_access_key = {}", rng.chars(ALNUM, 40)),
    }
}

pub fn mixed_text(size: usize) -> String {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut text = String::with_capacity(size + 4096);
    while text.len() < size {
        // About one secret per 3 KB.
        let line = if rng.next(40) == 0 {
            secret(&mut rng)
        } else {
            ordinary(&mut rng)
        };
        text.push_str(&line);
        text.push('\n');
    }
    text
}
