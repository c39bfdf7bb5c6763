//! Where a line ran and what it touched: the goal's folder or elsewhere,
//! the files its commands name, data a run leaves, files read back.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::program::{self, project_run, Line};
use super::{declared_paths, Candidate, Context};
use crate::commands::{self, Step};
use crate::shell::{self, Part};

/// Options naming another folder or manifest to run in.
pub(super) const ELSEWHERE_OPTIONS: &[&str] = &[
    "-C",
    "--prefix",
    "--cwd",
    "--dir",
    "--manifest-path",
    "--project",
    "--rootdir",
    "--root-dir",
    "--workspace-root",
    "-p",
    "--chdir",
];

/// Where a candidate ran when that is not the goal's folder: its folder, a
/// folder option (`-C x`, `--prefix x`), or a path operand that exists outside.
pub(super) fn outside_root(
    text: &str,
    dir: &Path,
    root: &Path,
    candidate: Candidate,
) -> Option<String> {
    if !shell::inside(dir, root) {
        return Some(format!("in {}", dir.display()));
    }
    let words = shell::without_redirects(&shell::words(text));
    let prog_words = shell::program_words(&words);
    let mut it = prog_words.iter().skip(1).peekable();
    while let Some(w) = it.next() {
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_string())),
            _ => (w.as_str(), None),
        };
        let value = if ELSEWHERE_OPTIONS.contains(&flag) {
            inline.or_else(|| it.peek().map(|v| v.to_string()))
        } else if candidate == Candidate::Check
            && !w.starts_with('-')
            && (w.contains('/') || w.starts_with(".."))
        {
            // A test or source path elsewhere; a program's operands are its
            // input (`python3 main.py /tmp/data.csv` still runs the program here).
            Some(w.clone())
        } else {
            None
        };
        if let Some(v) = value {
            let path = shell::resolve(dir, &v);
            if !shell::inside(&path, root) && path.exists() && !path.starts_with("/dev") {
                return Some(format!("on {}", path.display()));
            }
        }
    }
    None
}

/// A program of the line that would be a project run in its own folder,
/// run outside the goal's: where it ran, for the refusal.
pub(super) fn ran_elsewhere(
    parts: &[Part],
    dirs: &[Option<PathBuf>],
    ctx: &Context,
    line: &Line,
) -> Option<String> {
    parts.iter().zip(dirs).rev().find_map(|(part, dir)| {
        let dir = dir.as_deref()?;
        let anywhere = Context {
            root: Path::new("/"),
            ..ctx.clone()
        };
        if program::never_runs(&part.text) {
            return None;
        }
        let inside = shell::inside(dir, ctx.root);
        let runs = (!inside && commands::step(&part.text, 0) == Step::Verify)
            || project_run(&part.text, Some(dir), &anywhere, line, 0);
        if !runs {
            return None;
        }
        match inside {
            false => Some(format!("{:?} in {}", part.text, dir.display())),
            true => Some(format!("{:?}, a program outside it", part.text)),
        }
    })
}

/// Does a changing command name `path` (relative to the root) as one of its words?
pub(super) fn names(text: &str, dir: Option<&Path>, root: &Path, path: &str) -> bool {
    let Some(dir) = dir else { return false };
    let want = root.join(path);
    shell::words(text).iter().any(|w| {
        let w = w.trim_start_matches(|c: char| c.is_ascii_digit() || "<>&|".contains(c));
        !w.is_empty() && shell::resolve(dir, w) == want
    })
}

/// Data a program writes as it runs, not its source: its own data file, a
/// lock file, a generated page or report. A run that rewrites these still
/// shows the program working.
pub(super) fn is_data(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    const LOCKS: &[&str] = &[
        "cargo.lock",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "uv.lock",
        "go.sum",
        "gemfile.lock",
        "composer.lock",
        "pipfile.lock",
        "flake.lock",
        "bun.lockb",
    ];
    const MANIFESTS: &[&str] = &[
        "package.json",
        "tsconfig.json",
        "jsconfig.json",
        "deno.json",
        "composer.json",
        "cmakelists.txt",
    ];
    if LOCKS.contains(&name.as_str()) {
        return true;
    }
    if MANIFESTS.contains(&name.as_str())
        || name.starts_with("requirements")
        || name.starts_with("constraints")
    {
        return false;
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    matches!(
        ext,
        Some(
            "json"
                | "jsonl"
                | "ndjson"
                | "csv"
                | "tsv"
                | "txt"
                | "log"
                | "db"
                | "sqlite"
                | "sqlite3"
                | "html"
                | "htm"
                | "xml"
                | "dat"
                | "out"
                | "pyc"
        )
    )
}

/// Files an editor names outside the goal's folder but inside the same
/// repository (a session started in `app/` editing `lib/util.py`), as
/// paths from the goal's folder: the agent changed the project there too.
pub(super) fn elsewhere_in_repo(args: &Value, root: &Path) -> Vec<String> {
    let Some(top) = root.ancestors().skip(1).find(|d| d.join(".git").exists()) else {
        return Vec::new();
    };
    let Some(all) = declared_paths(args, Path::new("/")) else {
        return Vec::new();
    };
    all.iter()
        .map(|p| Path::new("/").join(p))
        .filter(|p| shell::inside(p, top) && !shell::inside(p, root))
        .map(|p| {
            let up = root.strip_prefix(top).map_or(0, |r| r.components().count());
            let rel = p
                .strip_prefix(top)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            format!("{}{rel}", "../".repeat(up))
        })
        .collect()
}

/// Files the reading parts of a line name (for documentation read back).
pub(super) fn read_operands(
    parts: &[Part],
    steps: &[Step],
    dirs: &[Option<PathBuf>],
    root: &Path,
) -> Vec<String> {
    let mut out = Vec::new();
    for ((part, step), dir) in parts.iter().zip(steps).zip(dirs) {
        let (Step::Inspect, Some(dir)) = (step, dir) else {
            continue;
        };
        for word in shell::words(&part.text).iter().skip(1) {
            if word.starts_with('-') {
                continue;
            }
            if let Some(rel) = relative(&shell::resolve(dir, word), root) {
                if !out.contains(&rel) {
                    out.push(rel);
                }
            }
        }
    }
    out
}

/// `path` relative to `root`, when inside it and an existing file.
pub(super) fn relative(path: &Path, root: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    (path.is_file() && !rel.as_os_str().is_empty())
        .then(|| rel.to_string_lossy().replace('\\', "/"))
}
