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
pub(super) fn project_run(text: &str, dir: Option<&Path>, ctx: &Context, depth: u8) -> bool {
    let Some(dir) = dir else { return false };
    let words = shell::words(text);
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
                        .any(|(p, d)| project_run(&p.text, d.as_deref(), ctx, depth + 1))
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
            ctx.background_runs > 0
                && args.iter().any(|a| {
                    ["localhost", "127.0.0.1", "0.0.0.0", "[::1]"]
                        .iter()
                        .any(|h| a.contains(h))
                })
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
