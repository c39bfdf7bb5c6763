//! The memory layers end to end inside the core: storage, authority, the
//! injected blocks and the hooks' refusals.

use std::fs;
use std::path::PathBuf;

use serde_json::json;

use super::*;
use crate::board;
use crate::store::StoreConfig;
use crate::testing::TempDir;

struct Repo0 {
    dir: TempDir,
    store: Store,
    cwd: String,
}

/// A repository (a `.git` folder is all `Repo::find` needs) and a store.
fn repo(tag: &str) -> Repo0 {
    let dir = TempDir::new(tag);
    let top = dir.path().join("repo");
    fs::create_dir_all(top.join(".git")).unwrap();
    fs::create_dir_all(top.join("src/deep")).unwrap();
    fs::write(top.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let store = Store::new(StoreConfig::new(
        dir.path().join("ss"),
        dir.path().join("ss/goal-system"),
    ));
    let cwd = top.join("src/deep").to_string_lossy().into_owned();
    Repo0 { dir, store, cwd }
}

impl Repo0 {
    fn file(&self) -> PathBuf {
        self.dir.path().join("repo").join(RELATIVE_PATH)
    }
    fn text(&self) -> String {
        fs::read_to_string(self.file()).unwrap_or_default()
    }
    fn tool(&self, caller: &Caller, tool: &str, request: serde_json::Value) -> Result<Outcome> {
        run_tool(&self.store, &self.cwd, caller, tool, &request)
    }
    fn store_fact(&self, subject: &str, fact: &str) -> Outcome {
        self.tool(&agent(), STORE_TOOL, json!({"subject": subject, "fact": fact, "citations": "src/lib.rs:1", "reason": "future tasks need it"}))
            .unwrap()
    }
}

fn agent() -> Caller {
    Caller {
        role: Role::Agent,
        agent_type: String::new(),
        session_id: "s-1".into(),
        host: "claude-code".into(),
    }
}

fn user() -> Caller {
    Caller {
        role: Role::User,
        ..agent()
    }
}

fn subagent(agent_type: &str) -> Caller {
    Caller {
        role: Role::Subagent,
        agent_type: agent_type.into(),
        ..agent()
    }
}

#[test]
fn a_stored_memory_is_one_json_line_at_the_repository_root_with_its_source() {
    let r = repo("store");
    let out = r.store_fact("test command", "Run sh test.sh from the repository root.");
    assert!(out.text.starts_with("Stored memory mem-"), "{}", out.text);
    let text = r.text();
    assert_eq!(text.lines().count(), 1);
    let line: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(line["subject"], "test command");
    assert_eq!(line["citations"], "src/lib.rs:1");
    assert_eq!(line["source"]["host"], "claude-code");
    assert_eq!(line["source"]["session"], "s-1");
    assert!(line["source"]["time"].as_str().unwrap().starts_with("20"));
    assert_eq!(line["votes"], json!({"up": 0, "down": 0}));
    assert_eq!(line["id"], out.memories[0].id);
    // Nothing is left behind but the file (the temp file was renamed over it).
    let names: Vec<String> = fs::read_dir(r.file().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["copilot-memories.jsonl".to_string()]);
}

#[test]
fn storing_the_same_fact_again_merges_into_one_memory() {
    let r = repo("dupe");
    let first = r.store_fact("tests", "Run sh test.sh.");
    let again = r
        .tool(&agent(), STORE_TOOL, json!({"subject": "testing", "fact": "run  SH test.sh", "citations": "README.md:3", "reason": "r"}))
        .unwrap();
    assert!(
        again.text.starts_with("Already remembered as"),
        "{}",
        again.text
    );
    assert_eq!(again.memories[0].id, first.memories[0].id);
    assert_eq!(again.memories[0].citations, "src/lib.rs:1; README.md:3");
    assert_eq!(r.text().lines().count(), 1);
}

#[test]
fn two_branches_merged_by_git_become_one_line_at_the_next_write() {
    let r = repo("gitmerge");
    let first = r.store_fact("tests", "Run sh test.sh.");
    let mut dup: serde_json::Value = serde_json::from_str(r.text().trim()).unwrap();
    dup["citations"] = json!("other-branch.md:9");
    dup["votes"] = json!({"up": 2, "down": 0});
    fs::write(r.file(), format!("{}{dup}\n", r.text())).unwrap();
    let out = r.store_fact("release", "Tag releases as vX.Y.Z.");
    assert!(
        out.warnings.iter().any(|w| w.contains("duplicate")),
        "{:?}",
        out.warnings
    );
    let listed = run(&r.store, &r.cwd, &user(), Command::List).unwrap();
    assert_eq!(listed.total, 2);
    let merged = listed
        .memories
        .iter()
        .find(|m| m.id == first.memories[0].id)
        .unwrap();
    assert_eq!(merged.votes.up, 2);
    assert!(merged.citations.contains("other-branch.md:9"));
}

#[test]
fn a_malformed_line_is_kept_aside_and_reported_never_dropped_silently() {
    let r = repo("malformed");
    r.store_fact("tests", "Run sh test.sh.");
    let broken = "<<<<<<< HEAD";
    fs::write(r.file(), format!("{}{broken}\n", r.text())).unwrap();
    let listed = run(&r.store, &r.cwd, &agent(), Command::List).unwrap();
    assert_eq!(listed.total, 1);
    assert!(
        listed.warnings[0].contains("malformed"),
        "{:?}",
        listed.warnings
    );
    assert!(r.text().contains(broken), "reading never writes");
    let out = r.store_fact("release", "Tag releases as vX.Y.Z.");
    let warning = out
        .warnings
        .iter()
        .find(|w| w.contains("malformed"))
        .unwrap();
    assert!(
        warning.contains("line 2") && warning.contains("set-aside"),
        "{warning}"
    );
    assert!(!r.text().contains(broken));
    let aside =
        fs::read_to_string(file::set_aside_path(&r.store, &Repo::find(&r.cwd).unwrap())).unwrap();
    assert!(
        aside.contains(broken) && aside.contains("\"line\":2"),
        "{aside}"
    );
    let faults = fs::read_to_string(r.store.faults_path()).unwrap();
    assert!(faults.contains("malformed"), "{faults}");
}

#[test]
fn a_secret_in_a_store_never_reaches_the_file() {
    let r = repo("secret");
    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0".repeat(2));
    let out = r
        .tool(&agent(), STORE_TOOL, json!({"subject": "deploy", "fact": format!("Deploy with GITHUB_TOKEN={token}"), "citations": format!("User input: {token}"), "reason": "r"}))
        .unwrap();
    assert!(!out.text.contains(&token));
    let text = r.text();
    assert!(
        !text.contains(&token) && text.contains("REDACTED"),
        "{text}"
    );
}

#[test]
fn votes_count_and_a_memory_voted_down_more_than_up_is_marked() {
    let r = repo("votes");
    r.store_fact("tests", "Run sh test.sh.");
    let up = r
        .tool(
            &agent(),
            VOTE_TOOL,
            json!({"fact": "Run sh test.sh.", "direction": "upvote", "reason": "it worked"}),
        )
        .unwrap();
    assert!(up.text.contains("+1/-0"), "{}", up.text);
    for _ in 0..2 {
        r.tool(&agent(), VOTE_TOOL, json!({"fact": "run sh test.sh", "direction": "downvote", "reason": "moved to make test"}))
            .unwrap();
    }
    let listed = run(&r.store, &r.cwd, &user(), Command::List).unwrap();
    let m = &listed.memories[0];
    assert_eq!((m.votes.up, m.votes.down), (1, 2));
    assert!(m.disputed());
    assert_eq!(m.vote_log.len(), 3);
    assert_eq!(m.vote_log[0].reason, "it worked");
    let missing = r.tool(
        &agent(),
        VOTE_TOOL,
        json!({"fact": "never stored", "direction": "upvote", "reason": "r"}),
    );
    assert_eq!(missing.unwrap_err().code, ErrorCode::NotFound);
    let by_id = run(
        &r.store,
        &r.cwd,
        &user(),
        Command::Vote {
            target: Target::Id(m.id.clone()),
            direction: Direction::Up,
            reason: "by hand".into(),
        },
    )
    .unwrap();
    assert_eq!(by_id.memories[0].vote_log.last().unwrap().by, "user");
}

#[test]
fn subagents_may_not_store_or_vote_but_the_consolidator_may_store() {
    let r = repo("subagent");
    r.store_fact("tests", "Run sh test.sh.");
    let store = json!({"subject": "s", "fact": "A new fact.", "citations": "c", "reason": "r"});
    let err = r
        .tool(&subagent("general-purpose"), STORE_TOOL, store.clone())
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Subagent);
    let vote = json!({"fact": "Run sh test.sh.", "direction": "upvote", "reason": "r"});
    let err = r
        .tool(&subagent("goal-consolidator"), VOTE_TOOL, vote)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Subagent);
    r.tool(
        &subagent("goal-system:goal-consolidator"),
        STORE_TOOL,
        store,
    )
    .unwrap();
    assert_eq!(r.text().lines().count(), 2);
}

#[test]
fn the_hooks_refuse_a_subagent_s_writes_but_let_the_consolidator_work_the_board() {
    let add = json!({"command": "add", "name": "x", "description": "d", "context": "c"});
    let get = json!({"command": "get", "name": "x"});
    assert!(subagent_refusal(
        "general-purpose",
        "mcp__goalSystem__store_memory",
        &json!({})
    )
    .is_some());
    assert!(subagent_refusal(
        "goal-consolidator",
        "mcp__goalSystem__vote_memory",
        &json!({})
    )
    .is_some());
    assert!(subagent_refusal(
        "goal-consolidator",
        "mcp__goalSystem__store_memory",
        &json!({})
    )
    .is_none());
    assert!(subagent_refusal("Explore", "mcp__goalSystem__context_board", &add).is_some());
    assert!(subagent_refusal("Explore", "mcp__goalSystem__context_board", &get).is_none());
    assert!(subagent_refusal("goal-consolidator", "goalSystem-context_board", &add).is_none());
    assert!(subagent_refusal("", "bash", &json!({})).is_none());
    assert_eq!(
        board_actor(false, true, "goal-consolidator"),
        board::Actor::Consolidator
    );
    assert_eq!(board_actor(true, true, "other"), board::Actor::Subagent);
    assert_eq!(board_actor(true, false, ""), board::Actor::User);
}

#[test]
fn the_user_can_turn_the_model_s_writes_off_and_alone_forgets() {
    let r = repo("settings");
    let stored = r.store_fact("tests", "Run sh test.sh.");
    let id = stored.memories[0].id.clone();
    let err = run(&r.store, &r.cwd, &agent(), Command::Forget(id.clone())).unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    settings::set(&r.store, Some(false), None).unwrap();
    let err = r
        .tool(
            &agent(),
            STORE_TOOL,
            json!({"subject": "s", "fact": "Another.", "citations": "c", "reason": "r"}),
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    assert!(
        err.message.contains("goal-system memory writes on"),
        "{}",
        err.message
    );
    let err = r
        .tool(
            &agent(),
            VOTE_TOOL,
            json!({"fact": "Run sh test.sh.", "direction": "upvote", "reason": "r"}),
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Forbidden);
    // The user's own command still works.
    run(
        &r.store,
        &r.cwd,
        &user(),
        Command::Vote {
            target: Target::Id(id.clone()),
            direction: Direction::Down,
            reason: "old".into(),
        },
    )
    .unwrap();
    let gone = run(&r.store, &r.cwd, &user(), Command::Forget(id.clone())).unwrap();
    assert_eq!(gone.total, 0);
    assert_eq!(r.text(), "");
    let err = run(&r.store, &r.cwd, &user(), Command::Show(id)).unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
}

#[test]
fn outside_a_repository_there_is_nowhere_to_store() {
    let dir = TempDir::new("norepo");
    let store = Store::new(StoreConfig::new(
        dir.path().join("ss"),
        dir.path().join("ss/goal-system"),
    ));
    let plain = dir.path().join("plain");
    fs::create_dir_all(&plain).unwrap();
    let err = run_tool(
        &store,
        plain.to_str().unwrap(),
        &agent(),
        STORE_TOOL,
        &json!({"subject": "s", "fact": "f", "citations": "c", "reason": "r"}),
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound);
    assert!(err.message.contains("no git repository"), "{}", err.message);
    assert_eq!(session_note(&store, plain.to_str().unwrap(), "s", ""), None);
}

#[test]
fn a_repository_keeps_at_most_its_limit() {
    let r = repo("limit");
    let lines: String = (0..MAX_MEMORIES)
        .map(|i| format!("{{\"id\":\"mem-{i}\",\"subject\":\"s{i}\",\"fact\":\"fact number {i}\",\"citations\":\"c\",\"reason\":\"r\"}}\n"))
        .collect();
    fs::create_dir_all(r.file().parent().unwrap()).unwrap();
    fs::write(r.file(), lines).unwrap();
    let err = r
        .tool(
            &agent(),
            STORE_TOOL,
            json!({"subject": "s", "fact": "one too many", "citations": "c", "reason": "r"}),
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded);
    // The same fact again is a merge, not a new memory.
    r.tool(
        &agent(),
        STORE_TOOL,
        json!({"subject": "s", "fact": "fact number 7", "citations": "d", "reason": "r"}),
    )
    .unwrap();
}

#[test]
fn the_session_block_is_bounded_ordered_by_usefulness_and_says_what_it_left_out() {
    let r = repo("session");
    for i in 0..40 {
        r.store_fact(
            &format!("topic {i}"),
            &format!("Fact {i}: {}", "a fairly long explanation ".repeat(4)),
        );
    }
    let note = session_note(&r.store, &r.cwd, "s-1", "").unwrap();
    assert!(
        note.starts_with("<repository_memories repository="),
        "{note}"
    );
    let lines: Vec<&str> = note.lines().filter(|l| l.starts_with("- ")).collect();
    let body: usize = lines.iter().map(|l| l.chars().count() + 1).sum();
    assert!(body <= inject::SESSION_BUDGET_CHARS, "{body}");
    assert!(lines.len() < 40 && !lines.is_empty());
    assert!(
        note.contains(&format!(
            "{} more not shown: `goal-system memory list`",
            40 - lines.len()
        )),
        "{note}"
    );
    // A vote changes the order: the oldest memory, voted up, comes first.
    assert!(!lines[0].contains("(topic 0 ") && !lines[0].starts_with("- topic 0 "));
    r.tool(&agent(), VOTE_TOOL, json!({"fact": format!("Fact 0: {}", "a fairly long explanation ".repeat(4)), "direction": "upvote", "reason": "helped"})).unwrap();
    let note = session_note(&r.store, &r.cwd, "s-1", "").unwrap();
    let first = note.lines().find(|l| l.starts_with("- ")).unwrap();
    assert!(first.starts_with("- topic 0 ("), "{first}");
    // Voted down more than up: left out.
    for _ in 0..2 {
        r.tool(&agent(), VOTE_TOOL, json!({"fact": format!("Fact 0: {}", "a fairly long explanation ".repeat(4)), "direction": "downvote", "reason": "wrong"})).unwrap();
    }
    let note = session_note(&r.store, &r.cwd, "s-1", "").unwrap();
    assert!(!note.contains("- topic 0 ("), "{note}");
}

#[test]
fn the_session_block_prefers_what_the_first_prompt_is_about() {
    let r = repo("relevance");
    r.store_fact("auth tokens", "Tokens refresh in src/auth/refresh.rs.");
    for i in 0..3 {
        r.store_fact(&format!("misc {i}"), &format!("Unrelated fact {i}."));
    }
    let note = session_note(&r.store, &r.cwd, "s-1", "why does the auth token expire").unwrap();
    let first = note.lines().find(|l| l.starts_with("- ")).unwrap();
    assert!(first.starts_with("- auth tokens"), "{note}");
}

#[test]
fn recall_names_the_relevant_board_item_and_memory_and_nothing_otherwise() {
    let r = repo("recall");
    let scope = board::Scope::detect(&r.cwd, None).unwrap();
    board::run(&r.store, &scope, board::Actor::Agent, "", &json!({"command": "add", "name": "run-migrations", "description": "How to run the database migrations", "context": "sqlx migrate run"})).unwrap();
    board::run(&r.store, &scope, board::Actor::Agent, "", &json!({"command": "add", "name": "release-steps", "description": "Tagging a release", "context": "git tag"})).unwrap();
    r.store_fact(
        "auth tokens",
        "Tokens refresh in src/auth/refresh.rs; never log them.",
    );
    r.store_fact("style", "Use four spaces in Python files.");
    assert_eq!(recall_note(&r.store, &r.cwd, "s-1", "say hello"), None);
    let note = recall_note(
        &r.store,
        &r.cwd,
        "s-1",
        "the database migration fails, and the auth token too",
    )
    .unwrap();
    assert!(
        note.starts_with("<memory_recall>") && note.ends_with("</memory_recall>"),
        "{note}"
    );
    assert!(
        note.contains("context board item run-migrations (agent)"),
        "{note}"
    );
    assert!(
        note.contains("\"command\": \"get\", \"src\": \"agent\", \"name\": \"run-migrations\""),
        "{note}"
    );
    assert!(
        note.contains("memory mem-")
            && note.contains("(auth tokens)")
            && note.contains("goal-system memory show"),
        "{note}"
    );
    assert!(
        !note.contains("release-steps") && !note.contains("(style)"),
        "{note}"
    );
    assert!(note.lines().filter(|l| l.starts_with("- ")).count() <= inject::RECALL_LINES);
    // Copilot CLI's autopilot wrapper: only the objective counts.
    let wrapped = "The user set this explicit autopilot objective with /autopilot:\n\nfix the auth token refresh\n\nWork autonomously toward this objective in clear checkpoints.";
    assert!(recall_note(&r.store, &r.cwd, "s-1", wrapped)
        .unwrap()
        .contains("(auth tokens)"));
    settings::set(&r.store, None, Some(false)).unwrap();
    assert_eq!(
        recall_note(&r.store, &r.cwd, "s-1", "the auth token"),
        None,
        "recall off"
    );
    assert_eq!(
        session_note(&r.store, &r.cwd, "s-1", ""),
        None,
        "recall off"
    );
}

#[test]
fn the_ranking_cache_follows_the_file() {
    let r = repo("cache");
    r.store_fact("auth tokens", "Tokens refresh in src/auth/refresh.rs.");
    let idx = r
        .store
        .config
        .root
        .join("memories")
        .join(format!("{}.idx", Repo::find(&r.cwd).unwrap().key()));
    assert!(
        idx.is_file(),
        "the store wrote the cache: no hook has to parse the file"
    );
    let before = fs::metadata(&idx).unwrap().modified().unwrap();
    assert!(recall_note(&r.store, &r.cwd, "s", "auth token").is_some());
    assert_eq!(
        fs::metadata(&idx).unwrap().modified().unwrap(),
        before,
        "and the hook used it as it was"
    );
    // The file edited by hand (a pull request merged): the next read sees it.
    fs::write(r.file(), "{\"id\":\"mem-x\",\"subject\":\"release\",\"fact\":\"Tag releases.\",\"citations\":\"c\",\"reason\":\"r\"}\n").unwrap();
    assert_eq!(recall_note(&r.store, &r.cwd, "s", "auth token"), None);
    assert!(recall_note(&r.store, &r.cwd, "s", "release tag")
        .unwrap()
        .contains("mem-x"));
    // A damaged cache is rebuilt.
    fs::write(&idx, b"GSMI garbage").unwrap();
    assert!(recall_note(&r.store, &r.cwd, "s", "release tag").is_some());
}

#[test]
fn a_symlinked_memory_file_is_never_read() {
    let r = repo("symlink");
    fs::create_dir_all(r.file().parent().unwrap()).unwrap();
    let private = r.dir.path().join("private.txt");
    fs::write(&private, "{\"id\":\"x\",\"subject\":\"secret stuff\",\"fact\":\"private\",\"citations\":\"c\",\"reason\":\"r\"}\n").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&private, r.file()).unwrap();
        assert_eq!(session_note(&r.store, &r.cwd, "s", ""), None);
        let err = run(&r.store, &r.cwd, &user(), Command::List).unwrap_err();
        assert_eq!(err.code, ErrorCode::Corrupt);
    }
}

#[test]
fn recall_names_a_board_item_and_a_memory_sharing_the_prompt_s_words() {
    let r = repo("recall-small");
    let scope = board::Scope::detect(&r.cwd, None).unwrap();
    board::run(&r.store, &scope, board::Actor::Agent, "", &json!({"command": "add", "name": "run-the-tests", "description": "How to run the greeting tests", "context": "sh test.sh"})).unwrap();
    r.store_fact(
        "test command",
        "Run sh test.sh from the project root to test the greeting.",
    );
    r.store_fact(
        "release tags",
        "Releases are tagged vX.Y.Z after the tests pass.",
    );
    let note = recall_note(
        &r.store,
        &r.cwd,
        "s",
        "which test command should I run for the greeting?",
    )
    .unwrap();
    assert!(
        note.contains("context board item run-the-tests (agent)"),
        "{note}"
    );
    assert!(
        note.contains("(test command)") && !note.contains("(release tags)"),
        "{note}"
    );
}
