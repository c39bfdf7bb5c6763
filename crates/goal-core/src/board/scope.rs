//! Which repository and branch a board belongs to: the origin remote (without
//! credentials) or the repository's folder, and the branch, read from `.git`
//! without running git.

use super::*;

/// The repository and branch a board belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The origin remote (normalized, without credentials), else the
    /// repository's top-level path, else (outside git) the cwd.
    pub repository: String,
    /// The checked-out branch; `default` outside git or on a detached HEAD.
    pub branch: String,
}

impl Scope {
    /// The scope of `cwd`, read from the git files themselves (no `git`
    /// process: a hook cannot afford one). `branch` overrides the branch.
    pub fn detect(cwd: &str, branch: Option<&str>) -> Result<Scope> {
        validate_cwd(cwd)?;
        // A hook (one payload, then exit) asks for its folder's scope more
        // than once (the board and its size): the git files are read once.
        // A long-lived process reads them each time (the branch may change).
        thread_local! {
            static SEEN: std::cell::RefCell<Option<(String, Scope)>> = const { std::cell::RefCell::new(None) };
        }
        let memo = branch.is_none() && crate::buffer::is_short_lived();
        if memo {
            let seen = SEEN.with(|seen| {
                seen.borrow()
                    .as_ref()
                    .filter(|(at, _)| at == cwd)
                    .map(|(_, scope)| scope.clone())
            });
            if let Some(scope) = seen {
                return Ok(scope);
            }
        }
        let scope = Scope::read(cwd, branch);
        if memo {
            SEEN.with(|seen| *seen.borrow_mut() = Some((cwd.to_string(), scope.clone())));
        }
        Ok(scope)
    }

    fn read(cwd: &str, branch: Option<&str>) -> Scope {
        let mut scope = match find_git(Path::new(normalize_cwd(cwd))) {
            Some(git) => Scope {
                repository: origin_url(&git.common_dir)
                    .map(|url| normalize_remote(&url))
                    .filter(|url| !url.is_empty())
                    .unwrap_or_else(|| git.top_level().to_string_lossy().into_owned()),
                branch: head_branch(&git.git_dir).unwrap_or_else(|| DEFAULT_BRANCH.into()),
            },
            None => Scope {
                repository: normalize_cwd(cwd).to_string(),
                branch: DEFAULT_BRANCH.into(),
            },
        };
        if let Some(branch) = branch.map(str::trim).filter(|b| !b.is_empty()) {
            scope.branch = branch.to_string();
        }
        // Whatever a remote URL carried, nothing secret reaches disk or the model.
        scope.repository = redact::redact(&scope.repository).into_owned();
        scope.branch = redact::redact(&scope.branch).into_owned();
        scope
    }

    /// `<repo-hash>--<branch-hash>.json`.
    pub(super) fn file_name(&self) -> String {
        format!(
            "{}--{}.json",
            hash16(&self.repository),
            hash16(&self.branch)
        )
    }
}

pub(super) fn hash16(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

struct GitDirs {
    /// The worktree's own git folder (HEAD lives here).
    git_dir: PathBuf,
    /// The repository's shared git folder (config lives here); differs from
    /// `git_dir` in a linked worktree.
    common_dir: PathBuf,
}

impl GitDirs {
    /// The main worktree's top level, shared by every linked worktree, so that
    /// all worktrees of one repository are one repository (their branches differ).
    fn top_level(&self) -> PathBuf {
        let common = &self.common_dir;
        match common.file_name() {
            Some(name) if name == ".git" => common.parent().unwrap_or(common).to_path_buf(),
            _ => common.clone(),
        }
    }
}

fn read_small(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    (text.len() <= 1 << 20).then_some(text)
}

/// Walk up from `cwd` to the first `.git` (a folder, or a worktree's file
/// `gitdir: <path>`), then follow `commondir` to the shared folder.
fn find_git(cwd: &Path) -> Option<GitDirs> {
    for dir in cwd.ancestors() {
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        let git_dir = if meta.is_dir() {
            dot_git
        } else {
            let text = read_small(&dot_git)?;
            let target = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("gitdir:"))?;
            dir.join(target.trim())
        };
        let common_dir = match read_small(&git_dir.join("commondir")) {
            Some(rel) if !rel.trim().is_empty() => git_dir.join(rel.trim()),
            _ => git_dir.clone(),
        };
        let common_dir = std::fs::canonicalize(&common_dir).unwrap_or(common_dir);
        return Some(GitDirs {
            git_dir,
            common_dir,
        });
    }
    None
}

/// The branch HEAD points at, or None when detached or unreadable.
fn head_branch(git_dir: &Path) -> Option<String> {
    let head = read_small(&git_dir.join("HEAD"))?;
    let name = head.trim().strip_prefix("ref:")?.trim();
    let name = name.strip_prefix("refs/heads/").unwrap_or(name);
    (!name.is_empty()).then(|| name.to_string())
}

/// `url` of `[remote "origin"]` in the repository's `config`.
fn origin_url(common_dir: &Path) -> Option<String> {
    let config = read_small(&common_dir.join("config"))?;
    let mut in_origin = false;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let header: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            in_origin = header.eq_ignore_ascii_case("[remote\"origin\"]");
            continue;
        }
        if !in_origin {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            if key.trim().eq_ignore_ascii_case("url") {
                return Some(value.trim().trim_matches('"').to_string());
            }
        }
    }
    None
}

/// One name for every way to spell a remote: `https://u:p@GitHub.com/o/r.git`,
/// `git@github.com:o/r` and `ssh://git@github.com/o/r/` all become
/// `github.com/o/r`. Credentials never survive.
pub fn normalize_remote(url: &str) -> String {
    let url = url.trim();
    let (rest, had_scheme) = match url.split_once("://") {
        Some((_, rest)) => (rest, true),
        None => (url, false),
    };
    if !had_scheme && (url.starts_with('/') || url.starts_with('.')) {
        // A local path remote: keep it as it is.
        return url.trim_end_matches('/').to_string();
    }
    let (host_part, path_part) = if had_scheme {
        rest.split_once('/').unwrap_or((rest, ""))
    } else {
        // scp-like `user@host:path`.
        match rest.split_once(':') {
            Some((host, path)) if !host.contains('/') => (host, path),
            _ => (rest, ""),
        }
    };
    let host = host_part.rsplit_once('@').map_or(host_part, |(_, h)| h);
    let path = path_part.trim_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    if path.is_empty() {
        host.to_ascii_lowercase()
    } else {
        format!("{}/{}", host.to_ascii_lowercase(), path)
    }
}
