//! Does a simple command run the project's own program? A script or
//! executable inside the goal's folder, a runner of a manifest the project
//! has, or a request to a server the goal started.

use std::path::Path;

use serde_json::Value;

use super::Context;
use crate::shell;

/// Interpreters whose first operand is the program they run.
const INTERPRETERS: &[&str] = &[
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "python",
    "python3",
    "py",
    "pypy",
    "pypy3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "ruby",
    "perl",
    "php",
    "rscript",
    "julia",
    "lua",
    "luajit",
    "tclsh",
    "ts-node",
    "tsx",
    "swift",
    "elixir",
    "groovy",
    "java",
    "pwsh",
    "powershell",
    "osascript",
];
/// Options of interpreters that take a value.
const INTERPRETER_VALUED: &[&str] = &["-W", "-X", "-r", "--require", "--import", "--loader", "-I"];

/// Does this simple command run the project's own program: a script or
/// executable inside the goal's folder (it must exist there), a runner of a
/// manifest the project has (`cargo run`, `go run .`, `npm start`, `make`),
/// or a request to a server the goal started?
pub(super) fn project_run(
    text: &str,
    dir: Option<&Path>,
    ctx: &Context,
    line: &Line,
    depth: u8,
) -> bool {
    let Some(dir) = dir else { return false };
    let words = shell::without_redirects(&shell::words(text));
    let prog_words = shell::program_words(&words);
    let Some(first) = prog_words.first() else {
        return false;
    };
    let prog = shell::program(first);
    let args = &prog_words[1..];
    let in_tree = |p: &str| {
        let path = shell::resolve(dir, p);
        shell::inside(&path, ctx.root) && path.is_file()
    };
    let has_file = |names: &[&str]| {
        dir.ancestors()
            .take_while(|d| shell::inside(d, ctx.root))
            .any(|d| names.iter().any(|n| d.join(n).is_file()))
    };
    let operands: Vec<&str> = {
        let mut out = Vec::new();
        let mut skip = false;
        for a in args {
            if skip {
                skip = false;
            } else if INTERPRETER_VALUED.contains(&a.as_str()) {
                skip = true;
            } else if !a.starts_with('-') {
                out.push(a.as_str());
            }
        }
        out
    };
    if no_run(&prog, args) {
        return false;
    }
    if let Some(code) = inline_code(&prog, args, text, line) {
        return uses_project(&code, dir, ctx.root, prog.starts_with("py"));
    }
    // `python3 - main.py`, `bash -s greet.sh`: the program comes from
    // standard input, and the file is only its argument.
    let from_stdin = args.iter().any(|a| a == "-")
        || (matches!(prog.as_str(), "bash" | "sh" | "zsh" | "dash" | "ksh")
            && args.iter().any(|a| a == "-s"));
    if from_stdin && INTERPRETERS.contains(&prog.as_str()) {
        return false;
    }
    match prog.as_str() {
        "bash" | "sh" | "zsh" | "dash" | "ksh" if args.iter().any(|a| a == "-c") => {
            let pos = args.iter().position(|a| a == "-c").expect("present");
            depth < 3
                && args.get(pos + 1).is_some_and(|inner| {
                    let parts = shell::split(inner);
                    let (dirs, _) = shell::folders(&parts, dir);
                    parts
                        .iter()
                        .zip(&dirs)
                        .any(|(p, d)| project_run(&p.text, d.as_deref(), ctx, line, depth + 1))
                })
        }
        "python" | "python3" | "py" | "pypy" | "pypy3" if args.iter().any(|a| a == "-m") => {
            let pos = args.iter().position(|a| a == "-m").expect("present");
            args.get(pos + 1).is_some_and(|module| {
                let rel = module.replace('.', "/");
                in_tree(&format!("{rel}.py")) || in_tree(&format!("{rel}/__main__.py"))
            })
        }
        "go" => {
            args.first().is_some_and(|a| a == "run")
                && (has_file(&["go.mod"]) || operands.iter().skip(1).any(|o| in_tree(o)))
        }
        "cargo" => {
            operands.first().is_some_and(|a| matches!(*a, "run" | "r")) && has_file(&["Cargo.toml"])
        }
        "dotnet" => operands.first() == Some(&"run"),
        "npm" | "pnpm" | "yarn" | "bun" => {
            let script = match operands.first().copied() {
                Some("run" | "run-script") => operands.get(1).copied(),
                Some("start") => Some("start"),
                Some(s) if prog != "npm" => Some(s),
                _ => None,
            };
            match (prog.as_str(), script) {
                ("bun", Some(s)) if in_tree(s) => true,
                (_, Some(s)) => package_script(dir, ctx.root, s),
                _ => false,
            }
        }
        "make" | "gmake" => has_file(&["Makefile", "makefile", "GNUmakefile"]),
        "just" => has_file(&["justfile", "Justfile", ".justfile"]),
        "curl" | "wget" | "http" | "https" | "xh" => {
            (ctx.background_runs > 0 || line.background) && local_url(args)
        }
        p if INTERPRETERS.contains(&p) => {
            let target = match (p, operands.first().copied()) {
                ("deno" | "bun", Some("run")) => operands.get(1).copied(),
                ("java", _) if args.iter().any(|a| a == "-jar") => {
                    let pos = args.iter().position(|a| a == "-jar").expect("present");
                    args.get(pos + 1).map(String::as_str)
                }
                (_, target) => target,
            };
            target.is_some_and(in_tree)
        }
        _ => first.contains('/') && in_tree(first),
    }
}

/// Does the nearest package.json (inside the goal's folder) define `script`?
/// `npm start` also runs `server.js` when no start script is set.
fn package_script(dir: &Path, root: &Path, script: &str) -> bool {
    for d in dir.ancestors().take_while(|d| shell::inside(d, root)) {
        let Ok(text) = std::fs::read_to_string(d.join("package.json")) else {
            continue;
        };
        let Ok(json) = serde_json::from_str::<Value>(&text) else {
            return false;
        };
        let defined = json
            .get("scripts")
            .and_then(|s| s.get(script))
            .and_then(Value::as_str)
            .is_some_and(|s| !s.trim().is_empty());
        return defined || (script == "start" && d.join("server.js").is_file());
    }
    false
}

/// What a line tells each of its commands.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Line<'a> {
    /// The bodies of the line's here-documents, by delimiter.
    pub bodies: &'a [(String, String)],
    /// The project's program was started in the background earlier on the line.
    pub background: bool,
}

/// A request to this machine over HTTP: an operand (not an option's value)
/// whose host is localhost or a loopback address.
fn local_url(args: &[String]) -> bool {
    const VALUED: &[&str] = &[
        "-H",
        "--header",
        "-d",
        "--data",
        "--data-raw",
        "--data-binary",
        "-e",
        "--referer",
        "-A",
        "--user-agent",
        "-u",
        "--user",
        "-o",
        "--output",
        "-X",
        "--request",
        "-b",
        "--cookie",
        "-w",
        "--write-out",
        "-m",
        "--max-time",
        "-O",
        "--output-document",
    ];
    let mut skip = false;
    args.iter().any(|a| {
        if std::mem::take(&mut skip) {
            return false;
        }
        if VALUED.contains(&a.as_str()) {
            skip = true;
            return false;
        }
        if a.starts_with('-') {
            return false;
        }
        let rest = a
            .strip_prefix("http://")
            .or_else(|| a.strip_prefix("https://"))
            .unwrap_or(a);
        if rest.len() < a.len() || !a.contains("://") {
            ["localhost", "127.0.0.1", "0.0.0.0", "[::1]"]
                .iter()
                .any(|h| {
                    rest.strip_prefix(h)
                        .is_some_and(|r| r.is_empty() || r.starts_with([':', '/']))
                })
        } else {
            false
        }
    })
}

/// Options that make a program print its version or help, only check its
/// syntax, or list what it would do: it never runs.
fn no_run(prog: &str, args: &[String]) -> bool {
    let any = |flags: &[&str]| {
        args.iter().any(|a| {
            flags
                .iter()
                .any(|f| a == f || a.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
        })
    };
    if any(&[
        "--version",
        "--help",
        "--dry-run",
        "--just-print",
        "--recon",
    ]) {
        return true;
    }
    if args
        .first()
        .is_some_and(|a| matches!(a.as_str(), "help" | "-h" | "-V"))
    {
        return true;
    }
    match prog {
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "make" | "gmake" => any(&["-n"]),
        "node" | "nodejs" => any(&["--check"]) || args.first().is_some_and(|a| a == "-c"),
        "python" | "python3" | "py" | "pypy" | "pypy3" | "ruby" | "perl" | "php" => {
            any(&["-V", "-v"]) && args.len() == 1
        }
        _ => false,
    }
}

/// The code an interpreter runs from its command line (`python3 -c`, `node
/// -e`/`-p`, `ruby -e`, `perl -e`) or from a here-document on its standard
/// input (`python3 - <<'EOF'`).
fn inline_code(prog: &str, args: &[String], text: &str, line: &Line) -> Option<String> {
    let flags: &[&str] = match prog {
        "python" | "python3" | "py" | "pypy" | "pypy3" => &["-c"],
        "node" | "nodejs" | "bun" | "deno" => &["-e", "--eval", "-p", "--print", "eval"],
        "ruby" | "perl" => &["-e", "-E"],
        "php" => &["-r"],
        _ => return None,
    };
    if let Some(pos) = args.iter().position(|a| flags.contains(&a.as_str())) {
        return args.get(pos + 1).cloned();
    }
    let stdin = args.iter().all(|a| a.starts_with('-')) || args.first().is_some_and(|a| a == "-");
    if !stdin || !text.contains("<<") {
        return None;
    }
    let raw = shell::words(text);
    let delimiter = raw.iter().enumerate().find_map(|(i, w)| {
        let rest = w.strip_prefix("<<")?.trim_start_matches('-');
        match rest.is_empty() {
            true => raw.get(i + 1).cloned(),
            false => Some(rest.to_string()),
        }
    })?;
    line.bodies
        .iter()
        .find(|(d, _)| *d == delimiter)
        .map(|(_, body)| body.clone())
}

/// Source extensions a project's code is written in.
const CODE: &[&str] = &[
    "js", "mjs", "cjs", "ts", "mts", "cts", "jsx", "tsx", "py", "rb", "pl", "pm", "php", "lua",
    "sh",
];

/// Does the code load one of the project's source files: a path that
/// resolves to one (`require('./lib')`, `exec(open('main.py').read())`), or
/// for Python a module it imports (`from greet import greet`)?
fn uses_project(code: &str, dir: &Path, root: &Path, python: bool) -> bool {
    let source = |p: &Path| {
        shell::inside(p, root)
            && p.is_file()
            && p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| CODE.contains(&e))
    };
    let tokens: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || "._/-@".contains(c)))
        .filter(|t| !t.is_empty())
        .collect();
    let path_like = tokens.iter().any(|t| {
        let base = shell::resolve(dir, t);
        let mut tries = vec![base.clone()];
        for ext in CODE {
            tries.push(base.with_file_name(format!(
                "{}.{ext}",
                base.file_name().and_then(|n| n.to_str()).unwrap_or_default()
            )));
        }
        tries.push(base.join("index.js"));
        tries.iter().any(|p| source(p))
    });
    if path_like || !python {
        return path_like;
    }
    tokens.windows(2).any(|w| {
        matches!(w[0], "import" | "from")
            && !w[1].starts_with('.')
            && (1..=w[1].split('.').count()).any(|n| {
                let module: Vec<&str> = w[1].split('.').take(n).collect();
                let rel = module.join("/");
                source(&dir.join(format!("{rel}.py"))) || source(&dir.join(rel).join("__init__.py"))
            })
    })
}

/// A simple command that never runs what it names: a version, help, dry
/// run, syntax check or listing (`make -n`, `pytest --collect-only`).
pub(super) fn never_runs(text: &str) -> bool {
    let words = shell::without_redirects(&shell::words(text));
    let prog_words = shell::program_words(&words);
    let Some(first) = prog_words.first() else {
        return false;
    };
    let args = &prog_words[1..];
    let listing = args.iter().any(|a| {
        matches!(
            a.as_str(),
            "--collect-only" | "--co" | "--listTests" | "--list-tests" | "--list"
        )
    });
    listing || no_run(&shell::program(first), args)
}

/// The inner line of `sh -c '…'` and its last command that verifies, with
/// the folder it runs in.
fn inner_candidate(
    text: &str,
    dir: Option<&Path>,
    ctx: &Context,
    line: &Line,
) -> Option<(Vec<shell::Part>, usize, Option<std::path::PathBuf>)> {
    let dir = dir?;
    let words = shell::without_redirects(&shell::words(text));
    let prog_words = shell::program_words(&words);
    let prog = shell::program(prog_words.first()?);
    if !matches!(prog.as_str(), "bash" | "sh" | "zsh" | "dash" | "ksh") {
        return None;
    }
    let pos = prog_words.iter().position(|a| a == "-c")?;
    let inner = prog_words.get(pos + 1)?;
    let parts = shell::split(inner);
    let (dirs, _) = shell::folders(&parts, dir);
    let at = parts.iter().zip(&dirs).rposition(|(p, d)| {
        crate::commands::step(&p.text, 0) == crate::commands::Step::Verify
            || project_run(&p.text, d.as_deref(), ctx, line, 1)
    })?;
    let dir = dirs[at].clone();
    Some((parts, at, dir))
}

/// Is the exit status of the command that verifies inside `sh -c '…'`
/// hidden by that inner line (`sh -c 'python3 main.py; true'`)?
pub(super) fn masked_inside(text: &str, dir: Option<&Path>, ctx: &Context, line: &Line) -> bool {
    inner_candidate(text, dir, ctx, line).is_some_and(|(parts, at, inner_dir)| {
        super::is_masked(&parts, at)
            || masked_inside(&parts[at].text, inner_dir.as_deref(), ctx, line)
    })
}

/// `if`/`!` taking the exit status inside `sh -c '…'`.
pub(super) fn status_taken_inside(
    text: &str,
    dir: Option<&Path>,
    ctx: &Context,
    line: &Line,
) -> Option<&'static str> {
    let (parts, at, inner_dir) = inner_candidate(text, dir, ctx, line)?;
    super::status_taken(&parts[at].text)
        .or_else(|| status_taken_inside(&parts[at].text, inner_dir.as_deref(), ctx, line))
}

/// `sh -c 'cmd; true'`: the inner line erases the exit status.
pub(super) fn erased_inside(
    text: &str,
    dir: Option<&Path>,
    ctx: &Context,
    line: &Line,
) -> Option<String> {
    let (parts, at, inner_dir) = inner_candidate(text, dir, ctx, line)?;
    super::erased(&parts, at)
        .or_else(|| erased_inside(&parts[at].text, inner_dir.as_deref(), ctx, line))
}
