//! No secret is ever echoed: a fake secret of every family (every token
//! format, sampled from its own pattern at run time, and the corpus's
//! contextual secrets, Discord bot tokens and letters-only passwords) goes
//! through every way text the goal system was given comes back out: the
//! `goal-system` command's error and output lines (which pass the core's
//! message redaction and redaction), a hook's stderr and fault log when a
//! state copy of the wrong shape quotes it, an unknown host named to the
//! hook, and the HTML report.

use std::fs;
use std::path::Path;

use regex_syntax::hir::{Class, Hir, HirKind};

use super::corpus::{discord_bot_token, planted, tokens, Rng};
use super::{echoing, engine, redact};
use crate::hooks::Host;
use crate::payload;
use crate::progress::report::render;
use crate::progress::timeline::build;
use crate::record::{Goal, Status};
use crate::store::StoreConfig;

/// A random string the pattern matches.
fn sample(hir: &Hir, rng: &mut Rng, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(std::str::from_utf8(&lit.0).expect("UTF-8")),
        // A char of the class, each as likely (token formats are ASCII).
        HirKind::Class(Class::Unicode(class)) => {
            let ranges: Vec<(u32, u32)> = class
                .ranges()
                .iter()
                .map(|r| (u32::from(r.start()), u32::from(r.end().min('\u{7f}'))))
                .filter(|(a, b)| a <= b)
                .collect();
            let total: u32 = ranges.iter().map(|(a, b)| b - a + 1).sum();
            let mut at = rng.below(total as usize) as u32;
            for (a, b) in ranges {
                if at <= b - a {
                    out.push(char::from_u32(a + at).expect("ASCII"));
                    break;
                }
                at -= b - a + 1;
            }
        }
        HirKind::Class(Class::Bytes(class)) => {
            let total: usize = class
                .ranges()
                .iter()
                .map(|r| usize::from(r.end() - r.start()) + 1)
                .sum();
            let mut at = rng.below(total);
            for r in class.ranges() {
                let span = usize::from(r.end() - r.start()) + 1;
                if at < span {
                    out.push(char::from(r.start() + at as u8));
                    break;
                }
                at -= span;
            }
        }
        HirKind::Repetition(rep) => {
            let max = rep.max.unwrap_or(rep.min + 12).min(rep.min + 12);
            let n = rep.min + rng.below((max - rep.min + 1) as usize) as u32;
            for _ in 0..n {
                sample(&rep.sub, rng, out);
            }
        }
        HirKind::Capture(cap) => sample(&cap.sub, rng, out),
        HirKind::Concat(all) => all.iter().for_each(|h| sample(h, rng, out)),
        HirKind::Alternation(all) => sample(&all[rng.below(all.len())], rng, out),
    }
}

/// (family, text holding a secret of it): one per family.
fn secrets_of_every_family() -> Vec<(String, String)> {
    let engine = engine();
    let mut rng = Rng(0xec40_5ec2_e75a_11ed);
    let mut out: Vec<(String, String)> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut missing = Vec::new();
    // Every token format, sampled from its pattern until one is a secret
    // standing alone (the format's own check may want more than the
    // pattern: mixed case, a decodable id).
    for rule in &engine.rules {
        let token_format = rule.precheck.is_some_and(|p| {
            std::ptr::fn_addr_eq(
                p,
                super::prechecks::token_follows as fn(&[u8], usize) -> bool,
            )
        });
        if !token_format || !seen.insert(rule.family.to_string()) {
            continue;
        }
        let hir = regex_syntax::parse(&rule.pattern).expect("a valid pattern");
        let marker = format!("[REDACTED:{}]", rule.family);
        let found = (0..2000).find_map(|_| {
            let mut text = String::new();
            sample(&hir, &mut rng, &mut text);
            redact(&text).contains(&marker).then_some(text)
        });
        match found {
            Some(text) => out.push((rule.family.to_string(), text)),
            // Left to the corpus's own generator (checked below).
            None => {
                seen.remove(rule.family);
                missing.push(rule.family);
            }
        }
    }
    // The corpus: its fake tokens and its secrets in context (headers, URLs,
    // assignments, prose), one per family the redaction names.
    let mut corpus: Vec<String> = tokens(&mut rng).into_iter().map(|(_, t)| t).collect();
    corpus.extend(planted(&mut rng).into_iter().map(|(line, _)| line));
    corpus.push(discord_bot_token(&mut rng, 19, 38));
    corpus.extend(
        [
            "password={}",
            "--password {} -h db",
            "  password: {}",
            "Password={};",
        ]
        .map(|t| t.replace("{}", "xABBcdEfGh")),
    );
    for text in corpus {
        let redacted = redact(&text).into_owned();
        let family = redacted
            .split("[REDACTED:")
            .nth(1)
            .and_then(|rest| rest.split(']').next())
            .unwrap_or_default()
            .to_string();
        if seen.insert(family.clone()) || family == "secret" && seen.insert(text.clone()) {
            out.push((family, text));
        }
    }
    for family in missing {
        assert!(seen.contains(family), "no secret of {family} to test with");
    }
    out
}

/// The secrets redaction takes from `text` (long enough to look for).
fn secrets(text: &str) -> Vec<&str> {
    let found = engine().secrets(text);
    assert!(!found.is_empty(), "no secret in {text:?}");
    found
        .into_iter()
        .map(|(secret, _)| secret)
        .filter(|s| s.len() >= 6)
        .collect()
}

fn assert_hidden(what: &str, shown: &str, text: &str) {
    for secret in secrets(text) {
        assert!(
            !shown.contains(secret),
            "{what} shows {secret:?} of {text:?}: {shown:?}"
        );
    }
}

/// The lines the `goal-system` command builds around an argument, as it
/// prints them (`echoing` its arguments; errors as messages).
#[test]
fn command_lines_never_echo_a_secret() {
    let errors = [
        "goal-system show: no goal with id or session \"{}\"",
        "goal-system close: --status must be one of complete, blocked, cancelled (got \"{}\")",
        "goal-system: unknown command \"{}\".",
        "goal-system close: unexpected argument \"{}\"",
        "goal-system show: Unknown option '--{}'",
        "goal-system budget: --tokens takes a whole number (got \"{}\")",
        "goal-system update: --input-json: not valid JSON: Unexpected token '{}', \"{}\" is not valid JSON",
        "goal-system install: --project {}: no such folder",
        "warning: state/by-session/s.json is not a valid goal record (invalid type: string \"{}\", expected u32)",
    ];
    let outputs = [
        "No goals for {} in /state.",
        "Report of goal goal-1 written to {}",
    ];
    let families = secrets_of_every_family();
    assert!(families.len() > 100, "only {} families", families.len());
    for (family, text) in &families {
        // Given as one argument, or as the words of several (`show
        // --status x` splits a command line).
        let words: Vec<&str> = text.split_whitespace().collect();
        for inputs in [vec![text.as_str()], words] {
            for template in errors {
                let line = template.replace("{}", text);
                let shown = echoing(&line, &inputs, true);
                assert_hidden(&format!("{family}: an error"), &shown, text);
            }
            for template in outputs {
                let line = template.replace("{}", text);
                let shown = echoing(&line, &inputs, false);
                assert_hidden(&format!("{family}: an output line"), &shown, text);
            }
        }
    }
}

/// A hook that meets a state copy of the wrong shape, whose value serde
/// quotes in its error, says so on stderr and in the fault log without the
/// value; a host name given to the hook is not echoed either.
#[test]
fn hook_stderr_and_fault_log_never_echo_a_secret() {
    let dir = std::env::temp_dir().join(format!("goal-echo-{}", crate::clock::new_goal_id()));
    for (i, (family, text)) in secrets_of_every_family().iter().enumerate() {
        let root = dir.join(format!("f{i}")).join("goal-system");
        let session = format!("s{i}");
        let copy = root.join("by-session").join(format!("{session}.json"));
        fs::create_dir_all(copy.parent().expect("a folder")).expect("state folder");
        let record = serde_json::json!({
            "version": text, "id": "goal-0123456789abcdef0123", "sessionId": session, "cwd": "/w",
        });
        fs::write(&copy, record.to_string()).expect("a copy");
        let payload = serde_json::json!({
            "sessionId": session, "cwd": "/w", "toolName": "bash", "toolArgs": "{\"command\":\"ls\"}",
        });
        let config = StoreConfig::new(root.parent().expect("session state"), &root);
        let out = payload::run_bytes_with(
            Host::CopilotCli,
            "preToolUse",
            payload.to_string().as_bytes(),
            Ok(config),
        );
        assert!(
            out.stderr.contains("not a valid goal record"),
            "{family}: the hook says nothing of the copy: {:?}",
            out.stderr
        );
        assert_hidden(&format!("{family}: hook stderr"), &out.stderr, text);
        let faults = fs::read_to_string(root.join("faults.log")).unwrap_or_default();
        assert_hidden(&format!("{family}: faults.log"), &faults, text);
        let unknown = payload::run_named(text, "preToolUse", b"{}");
        assert_hidden(&format!("{family}: unknown host"), &unknown.stderr, text);
    }
    let _ = fs::remove_dir_all(Path::new(&dir));
}

/// The report shows every text of a record redacted, whatever wrote it
/// (here: straight into the record, past the redaction of updates).
#[test]
fn the_report_never_shows_a_secret() {
    for (family, text) in secrets_of_every_family() {
        let mut goal = Goal::new(
            "goal-0123456789abcdef0123".into(),
            "s1".into(),
            "/w".into(),
            format!("ship it; {text}"),
            Status::Active,
            "2026-11-22T05:00:00.000Z".into(),
        );
        goal.requirements = vec![text.clone()];
        goal.done_so_far = vec![format!("ran with {text}")];
        goal.blockers = vec![text.clone()];
        goal.status_reason = Some(text.clone());
        let html = render(&goal, &build(&goal, &[]), 0);
        assert_hidden(&format!("{family}: the report"), &html, &text);
    }
}
