//! Does a simple command run the project's own program? A script or
//! executable inside the goal's folder, a runner of a manifest the project
//! has, or a request to a server the goal started.

use std::path::{Path, PathBuf};

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
    project_program(text, dir, ctx, line, depth).is_some()
}

/// A project run, and the file it runs when it is one script or executable
/// of the goal's folder (`bash greet.sh`, `./run`); `Some(None)` for a
/// runner of a manifest or a request to a server.
pub(super) fn project_program(
    text: &str,
    dir: Option<&Path>,
    ctx: &Context,
    line: &Line,
    depth: u8,
) -> Option<Option<PathBuf>> {
    let dir = dir?;
    let words = shell::without_redirects(&shell::words(text));
    let prog_words = shell::program_words(&words);
    let first = prog_words.first()?;
    let prog = shell::program(first);
    let args = &prog_words[1..];
    let in_tree = |p: &str| {
        let path = shell::resolve(dir, p);
        (shell::inside(&path, ctx.root) && path.is_file()).then_some(path)
    };
    let runner = |runs: bool| runs.then_some(None);
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
        return None;
    }
    if let Some(code) = inline_code(&prog, args, text, line) {
        return runner(uses_project(&code, dir, ctx.root, prog.starts_with("py")));
    }
    // `python3 - main.py`, `bash -s greet.sh`: the program comes from
    // standard input, and the file is only its argument.
    let from_stdin = args.iter().any(|a| a == "-")
        || (matches!(prog.as_str(), "bash" | "sh" | "zsh" | "dash" | "ksh")
            && args.iter().any(|a| a == "-s"));
    if from_stdin && INTERPRETERS.contains(&prog.as_str()) {
        return None;
    }
    match prog.as_str() {
        "bash" | "sh" | "zsh" | "dash" | "ksh" if args.iter().any(|a| a == "-c") => {
            let pos = args.iter().position(|a| a == "-c").expect("present");
            if depth >= 3 {
                return None;
            }
            let parts = shell::split(args.get(pos + 1)?);
            let (dirs, _) = shell::folders(&parts, dir);
            parts
                .iter()
                .zip(&dirs)
                .find_map(|(p, d)| project_program(&p.text, d.as_deref(), ctx, line, depth + 1))
        }
        "python" | "python3" | "py" | "pypy" | "pypy3" if args.iter().any(|a| a == "-m") => {
            let pos = args.iter().position(|a| a == "-m").expect("present");
            let rel = args.get(pos + 1)?.replace('.', "/");
            in_tree(&format!("{rel}.py"))
                .or_else(|| in_tree(&format!("{rel}/__main__.py")))
                .map(Some)
        }
        "go" => runner(
            args.first().is_some_and(|a| a == "run")
                && (has_file(&["go.mod"]) || operands.iter().skip(1).any(|o| in_tree(o).is_some())),
        ),
        "cargo" => runner(
            operands.first().is_some_and(|a| matches!(*a, "run" | "r"))
                && has_file(&["Cargo.toml"]),
        ),
        "dotnet" => runner(operands.first() == Some(&"run")),
        "npm" | "pnpm" | "yarn" | "bun" => {
            let script = match operands.first().copied() {
                Some("run" | "run-script") => operands.get(1).copied(),
                Some("start") => Some("start"),
                Some(s) if prog != "npm" => Some(s),
                _ => None,
            };
            match (prog.as_str(), script) {
                ("bun", Some(s)) if in_tree(s).is_some() => in_tree(s).map(Some),
                (_, Some(s)) => runner(package_script(dir, ctx.root, s)),
                _ => None,
            }
        }
        "make" | "gmake" => runner(has_file(&["Makefile", "makefile", "GNUmakefile"])),
        "just" => runner(has_file(&["justfile", "Justfile", ".justfile"])),
        "curl" | "wget" | "http" | "https" | "xh" => {
            runner((ctx.background_runs > 0 || line.background) && local_url(args))
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
            target.and_then(in_tree).map(Some)
        }
        _ if first.contains('/') => in_tree(first).map(Some),
        _ => None,
    }
}

/// Does the nearest package.json (inside the goal's folder) define `script`?
/// `npm start` also runs `server.js` when no start script is set.
fn package_script(dir: &Path, root: &Path, script: &str) -> bool {
    match script_body(dir, root, script) {
        Some(Some(body)) if !body.trim().is_empty() => true,
        Some(_) => {
            script == "start"
                && manifest_dir(dir, root).is_some_and(|d| d.join("server.js").is_file())
        }
        None => false,
    }
}

/// The nearest folder with a package.json, inside the goal's folder.
fn manifest_dir(dir: &Path, root: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .take_while(|d| shell::inside(d, root))
        .find(|d| d.join("package.json").is_file())
        .map(Path::to_path_buf)
}

/// The body of `script` in the nearest package.json: `None` without a
/// readable manifest, `Some(None)` when it defines no such script.
fn script_body(dir: &Path, root: &Path, script: &str) -> Option<Option<String>> {
    let text = std::fs::read_to_string(manifest_dir(dir, root)?.join("package.json")).ok()?;
    let json = serde_json::from_str::<Value>(&text).ok()?;
    Some(
        json.get("scripts")
            .and_then(|s| s.get(script))
            .and_then(Value::as_str)
            .map(str::to_string),
    )
}

/// A package manager's test script that only prints or exits 0
/// (`"test": "echo ok"`): it runs no tests. Returns the script.
pub(super) fn idle_test_script(text: &str, dir: Option<&Path>, ctx: &Context) -> Option<String> {
    let words = shell::without_redirects(&shell::words(text));
    let prog_words = shell::program_words(&words);
    let prog = shell::program(prog_words.first()?);
    if !matches!(prog.as_str(), "npm" | "pnpm" | "yarn" | "bun") {
        return None;
    }
    let ops: Vec<&str> = prog_words[1..]
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let script = match ops.as_slice() {
        ["test" | "t", ..] => "test",
        ["run" | "run-script", s, ..] => s,
        _ => return None,
    };
    let body = script_body(dir?, ctx.root, script)??;
    let idle = !body.trim().is_empty()
        && shell::split(&body).iter().all(|part| {
            let words = shell::words(&part.text);
            match words.first().map(|w| w.as_str()) {
                Some("echo" | "printf" | "true" | ":") => true,
                Some("exit") => words.get(1).is_none_or(|c| c == "0"),
                _ => false,
            }
        });
    idle.then_some(body)
}

/// A program the goal itself created (`ok.sh`), run while other files the
/// goal changed still exist, verifies them only if it uses one of them: its
/// text names the file, its stem or one of its folders. Returns why not.
/// `created` and `changed` are what the call itself set up before the run.
pub(super) fn unrelated_new_program(
    file: &Path,
    ctx: &Context,
    created: &[String],
    changed: &[String],
) -> Option<String> {
    let rel = file
        .strip_prefix(ctx.root)
        .ok()?
        .to_string_lossy()
        .replace('\\', "/");
    if !ctx.created.contains(&rel) && !created.contains(&rel) {
        return None;
    }
    let mut others: Vec<&String> = Vec::new();
    for f in ctx.changed.iter().chain(changed) {
        let code = !super::is_doc(f) && !super::is_data(f);
        if *f != rel && code && !others.contains(&f) && ctx.root.join(f).is_file() {
            others.push(f);
        }
    }
    if others.is_empty() {
        return None;
    }
    // A program's first 256 KB: enough to find what it loads or runs.
    let mut text = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| {
            std::io::Read::read_to_end(&mut std::io::Read::take(f, 256 * 1024), &mut text)
        })
        .ok()?;
    let text = String::from_utf8_lossy(&text);
    if others.iter().any(|f| uses(&text, f)) {
        return None;
    }
    let others: Vec<String> = others.into_iter().cloned().collect();
    Some(format!(
        "it ran {rel}, which this goal created, and {rel} uses none of the files the goal changed ({}): run the program you changed, or a test that uses it",
        super::list(&others)
    ))
}

/// Does a program's text name `path` (relative): its name, its stem or one
/// of its folders?
fn uses(text: &str, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    // `my-tool` is `my_tool` to the code that loads it.
    path.split('/')
        .chain([stem])
        .filter(|t| t.len() >= 2)
        .any(|t| text.contains(t) || text.contains(&t.replace('-', "_")))
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
