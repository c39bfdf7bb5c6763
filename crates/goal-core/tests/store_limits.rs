//! List limits are checked on the raw request, before redaction, de-duplication
//! or the lock; de-duplication is linear and keeps its meaning.

use goal_core::clock::now_iso;
use goal_core::update::{apply_update, check_limits, MAX_ITEMS};
use goal_core::{ErrorCode, Goal, Status};
use serde_json::json;

fn goal() -> Goal {
    Goal::new(
        "goal-l".into(),
        "s1".into(),
        "/work/limits".into(),
        "stay within limits".into(),
        Status::Active,
        now_iso(),
    )
}

#[test]
fn a_list_of_24000_or_100000_items_is_refused_naming_the_field_and_the_limit() {
    for count in [24_000usize, 100_000] {
        let items: Vec<String> = (0..count).map(|i| format!("item {i}")).collect();
        for field in ["doneSoFar", "remaining", "issueResolutions"] {
            let request = json!({ field: items });
            let err = check_limits(&request).unwrap_err();
            assert_eq!(err.code, ErrorCode::LimitExceeded, "{field}");
            assert!(
                err.message.contains(field) && err.message.contains(&MAX_ITEMS.to_string()),
                "{}",
                err.message
            );
            let mut g = goal();
            let err = apply_update(&mut g, &request).unwrap_err();
            assert_eq!(err.code, ErrorCode::LimitExceeded, "{field}");
            assert!(g.done_so_far.is_empty() && g.remaining.is_empty());
        }
    }
}

#[test]
fn requests_within_the_limits_pass_the_early_check() {
    let items: Vec<String> = (0..MAX_ITEMS).map(|i| format!("item {i}")).collect();
    assert!(check_limits(&json!({"doneSoFar": items, "remaining": ["x"]})).is_ok());
    assert!(check_limits(&json!("not an object")).is_ok());
    let mut g = goal();
    apply_update(&mut g, &json!({"doneSoFar": items})).unwrap();
    assert_eq!(g.done_so_far.len(), MAX_ITEMS);
}

#[test]
fn de_duplication_ignores_case_and_spacing_within_and_across_updates() {
    let mut g = goal();
    apply_update(
        &mut g,
        &json!({"doneSoFar": ["Ran the tests", "ran  the   TESTS", "fixed the bug"]}),
    )
    .unwrap();
    assert_eq!(g.done_so_far, vec!["Ran the tests", "fixed the bug"]);
    let applied = apply_update(
        &mut g,
        &json!({"doneSoFar": ["FIXED the bug", "wrote the docs"]}),
    )
    .unwrap();
    assert_eq!(
        g.done_so_far,
        vec!["Ran the tests", "fixed the bug", "wrote the docs"]
    );
    assert_eq!(applied.changes, vec!["doneSoFar: +1".to_string()]);
    apply_update(&mut g, &json!({"remaining": ["a", "A", "b"]})).unwrap();
    assert_eq!(g.remaining, vec!["a", "b"]);
}

#[test]
fn a_full_list_of_distinct_items_is_kept_whole_and_one_more_is_refused() {
    let mut g = goal();
    let items: Vec<String> = (0..MAX_ITEMS).map(|i| format!("step {i}")).collect();
    apply_update(&mut g, &json!({"doneSoFar": items})).unwrap();
    // Re-sending the same items adds nothing and is accepted.
    let applied = apply_update(&mut g, &json!({"doneSoFar": items})).unwrap();
    assert!(applied.is_empty());
    let err = apply_update(&mut g, &json!({"doneSoFar": ["one step too many"]})).unwrap_err();
    assert_eq!(err.code, ErrorCode::LimitExceeded);
    assert_eq!(g.done_so_far.len(), MAX_ITEMS);
}
