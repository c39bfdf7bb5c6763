//! Reading a shell command line: its simple commands and what joins them,
//! the words of each, redirections, and the folder each runs in. The words
//! belong to the agent: what they say is used where the machine cannot be
//! observed (see `evidence`), and to find the places worth observing.

use std::path::{Component, Path, PathBuf};

/// What follows a simple command on its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sep {
    /// `&&`
    And,
    /// `||`
    Or,
    /// `;` or a new line
    Seq,
    /// `|`
    Pipe,
    /// `&`: the command runs in the background.
    Background,
    /// The end of the line.
    End,
}

/// One simple command and the operator after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub text: String,
    pub sep: Sep,
}

/// Split a command line into simple commands on `&&`, `||`, `;`, `|`, `&` and
/// new lines, outside quotes; here-document bodies are dropped (their
/// command, `cat > f <<EOF`, already says what happens).
pub fn split(command: &str) -> Vec<Part> {
    let chars: Vec<char> = command.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut heredocs: Vec<String> = Vec::new();
    let mut i = 0;
    let flush = |cur: &mut String, out: &mut Vec<Part>, sep: Sep| {
        if !cur.trim().is_empty() {
            out.push(Part {
                text: cur.trim().to_string(),
                sep,
            });
        } else if let Some(last) = out.last_mut() {
            // `a &\n b`: the stronger operator of the two stays.
            if last.sep == Sep::Seq || sep == Sep::Background {
                last.sep = sep;
            }
        }
        cur.clear();
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if let Some(q) = quote {
            cur.push(c);
            if c == '\\' && q == '"' {
                if let Some(n) = next {
                    cur.push(n);
                    i += 1;
                }
            } else if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                cur.push(c);
            }
            '\\' => {
                cur.push(c);
                if let Some(n) = next {
                    cur.push(n);
                    i += 1;
                }
            }
            '<' if next == Some('<') && chars.get(i + 2) != Some(&'<') => {
                let rest: String = chars[i + 2..].iter().collect();
                let word: String = rest
                    .trim_start_matches('-')
                    .trim_start()
                    .chars()
                    .take_while(|ch| !ch.is_whitespace() && !";&|<>".contains(*ch))
                    .filter(|ch| *ch != '\'' && *ch != '"')
                    .collect();
                if !word.is_empty() {
                    heredocs.push(word);
                }
                cur.push_str("<<");
                i += 1;
            }
            '\n' => {
                flush(&mut cur, &mut out, Sep::Seq);
                if !heredocs.is_empty() {
                    // Skip the bodies up to each delimiter line.
                    let rest: String = chars[i + 1..].iter().collect();
                    let mut consumed = 0;
                    let mut pending = std::mem::take(&mut heredocs).into_iter();
                    let mut want = pending.next();
                    for line in rest.split_inclusive('\n') {
                        if want.is_none() {
                            break;
                        }
                        consumed += line.chars().count();
                        if Some(line.trim()) == want.as_deref() {
                            want = pending.next();
                        }
                    }
                    i += consumed;
                }
            }
            ';' => flush(&mut cur, &mut out, Sep::Seq),
            '|' => {
                let sep = if next == Some('|') {
                    Sep::Or
                } else {
                    Sep::Pipe
                };
                flush(&mut cur, &mut out, sep);
                if matches!(next, Some('|' | '&')) {
                    i += 1;
                }
            }
            '&' => {
                let redirect = cur.ends_with('>') || cur.ends_with('<') || next == Some('>');
                if redirect {
                    cur.push(c);
                } else if next == Some('&') {
                    flush(&mut cur, &mut out, Sep::And);
                    i += 1;
                } else {
                    flush(&mut cur, &mut out, Sep::Background);
                }
            }
            _ => cur.push(c),
        }
        i += 1;
    }
    flush(&mut cur, &mut out, Sep::End);
    if let Some(last) = out.last_mut() {
        if last.sep == Sep::Seq {
            last.sep = Sep::End;
        }
    }
    out
}

/// Words of a simple command, quotes removed.
pub fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in command.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                any = true;
            }
            None if c.is_whitespace() => {
                if !cur.is_empty() || any {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            None => cur.push(c),
        }
    }
    if !cur.is_empty() || any {
        out.push(cur);
    }
    out
}

/// Does a simple command write a file through a redirection (`> f`, `>> f`)?
/// Redirections to descriptors and `/dev/null` do not count.
pub fn writes_by_redirect(command: &str) -> bool {
    let mut quote: Option<char> = None;
    let chars: Vec<char> = command.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '>' => {
                let mut j = i + 1;
                while j < chars.len() && matches!(chars[j], '>' | '|') {
                    j += 1;
                }
                let target: String = chars[j..]
                    .iter()
                    .collect::<String>()
                    .trim_start()
                    .chars()
                    .take_while(|ch| !ch.is_whitespace())
                    .collect();
                let harmless = target.starts_with('&')
                    || target.is_empty()
                    || matches!(target.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr");
                if !harmless {
                    return true;
                }
                i = j;
                continue;
            }
            None => {}
        }
        i += 1;
    }
    false
}

/// Wrappers that run the command after them (`sudo`, `time`, `env X=1`).
const WRAPPERS: &[&str] = &[
    "time", "sudo", "env", "nohup", "nice", "timeout", "command", "builtin", "exec", "xargs",
    "stdbuf", "unbuffer", "xvfb-run", "then", "do", "else", "if", "while", "until", "!", "{", "(",
    "setsid",
];

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// The program's words of a simple command: assignments, wrappers and the
/// wrappers' options dropped (`RUST_BACKTRACE=1 time cargo test` is `cargo
/// test`). Empty for a command of assignments only.
pub fn program_words(words: &[String]) -> &[String] {
    let mut rest: &[String] = words;
    loop {
        let Some(first) = rest.first() else {
            return rest;
        };
        let lower = first.to_ascii_lowercase();
        if is_assignment(first) {
            rest = &rest[1..];
        } else if WRAPPERS.contains(&lower.as_str()) {
            rest = &rest[1..];
            while let Some(w) = rest.first() {
                let numeric = w.chars().next().is_some_and(|c| c.is_ascii_digit());
                if matches!(w.as_str(), "-u" | "-g" | "-n" | "-s" | "-k" | "-I") {
                    rest = rest.get(2..).unwrap_or(&[]);
                } else if w.starts_with('-') || numeric || is_assignment(w) {
                    rest = &rest[1..];
                } else {
                    break;
                }
            }
        } else {
            return rest;
        }
    }
}

/// The program's name without its folder (`./node_modules/.bin/jest` is `jest`).
pub fn program(word: &str) -> String {
    word.rsplit('/').next().unwrap_or(word).to_ascii_lowercase()
}

/// `path` resolved against `base` without touching the disk (`..` removed).
pub fn resolve(base: &Path, path: &str) -> PathBuf {
    let joined = if path == "~" || path.starts_with("~/") {
        match crate::store::config::home_dir() {
            Some(home) => home.join(path.trim_start_matches('~').trim_start_matches('/')),
            None => base.join(path),
        }
    } else {
        base.join(path)
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Is `path` the folder `root` or inside it (both already resolved)?
pub fn inside(path: &Path, root: &Path) -> bool {
    path.starts_with(root)
}

/// The folder each part of a line runs in, starting from `start`, and the
/// folder the line leaves its shell in: `cd` and `pushd` move it (the line
/// is read as written: a `cd` inside `( )` or `sh -c` is taken as moving it
/// too). `None` once a move cannot be followed (`cd -`, `cd "$X"`).
pub fn folders(parts: &[Part], start: &Path) -> (Vec<Option<PathBuf>>, Option<PathBuf>) {
    let mut dir = Some(start.to_path_buf());
    let each = parts
        .iter()
        .map(|part| {
            let here = dir.clone();
            let w = words(&part.text);
            let prog = program_words(&w);
            if let Some(first) = prog.first() {
                if matches!(first.as_str(), "cd" | "pushd") {
                    dir = match prog.get(1).map(String::as_str) {
                        None => crate::store::config::home_dir(),
                        Some(target) if target.contains('$') || target == "-" => None,
                        Some(target) => dir.as_deref().map(|d| resolve(d, target)),
                    };
                }
            }
            here
        })
        .collect();
    (each, dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seps(line: &str) -> Vec<(String, Sep)> {
        split(line).into_iter().map(|p| (p.text, p.sep)).collect()
    }

    #[test]
    fn a_line_splits_into_its_commands_and_their_operators() {
        assert_eq!(
            seps("cd app && npm test 2>&1 | tail -5 || true; echo done &"),
            vec![
                ("cd app".into(), Sep::And),
                ("npm test 2>&1".into(), Sep::Pipe),
                ("tail -5".into(), Sep::Or),
                ("true".into(), Sep::Seq),
                ("echo done".into(), Sep::Background),
            ]
        );
        assert_eq!(
            seps("a\nb\n"),
            vec![("a".into(), Sep::Seq), ("b".into(), Sep::End)]
        );
        assert_eq!(
            seps("cat > f <<'EOF'\nnpm test && rm -rf /\nEOF\nbash f"),
            vec![
                ("cat > f <<'EOF'".into(), Sep::Seq),
                ("bash f".into(), Sep::End)
            ]
        );
        assert_eq!(
            seps("echo 'a && b' > x 2>&1"),
            vec![("echo 'a && b' > x 2>&1".into(), Sep::End)]
        );
    }

    #[test]
    fn programs_are_found_behind_wrappers_and_assignments() {
        let w = words("RUST_LOG=1 sudo -u ci time cargo test -q");
        assert_eq!(program_words(&w), &w[5..]);
        assert!(program_words(&words("A=1 B=2")).is_empty());
    }

    #[test]
    fn folders_follow_cd_along_the_line() {
        let parts = split("cd ../elsewhere && node --test; cd $X && make");
        let (dirs, after) = folders(&parts, Path::new("/w/app"));
        assert_eq!(after, None);
        assert_eq!(
            dirs,
            vec![
                Some(PathBuf::from("/w/app")),
                Some(PathBuf::from("/w/elsewhere")),
                Some(PathBuf::from("/w/elsewhere")),
                None,
            ]
        );
        assert!(inside(
            &resolve(Path::new("/w/app"), "src/../lib"),
            Path::new("/w/app")
        ));
        assert!(!inside(
            &resolve(Path::new("/w/app"), "../app2"),
            Path::new("/w/app")
        ));
    }
}
