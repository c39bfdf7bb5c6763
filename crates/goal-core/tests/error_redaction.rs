//! Error texts never carry a secret: `GoalError` redacts its message, so an
//! invalid status, an unknown field name or a bad resolution status that
//! holds a token comes back redacted, even when the message quotes only its
//! first characters.

use goal_core::error::GoalError;
use goal_core::record::{Goal, Status};
use goal_core::update::{apply_update, parse_resolutions};
use serde_json::json;

/// A fake GitHub token built from pieces (no token literal in the repo).
fn fake_token() -> String {
    let body: String = "q7Wm2Xk9Lp4Rt8Yz3Nb6Vc1Hd5Jf0Gs"
        .chars()
        .cycle()
        .take(36)
        .collect();
    ["gh", "p_"].concat() + &body
}

fn goal() -> Goal {
    Goal::new(
        "goal-1".into(),
        "s1".into(),
        "/w".into(),
        "ship".into(),
        Status::Active,
        "t".into(),
    )
}

fn assert_no_token(err: &GoalError, token: &str) {
    let text = err.to_string();
    assert!(!text.contains(token), "token in {text:?}");
    // Not even the part that survives truncation.
    assert!(!text.contains(&token[..16]), "token prefix in {text:?}");
    assert!(text.contains("[REDACTED"), "no marker in {text:?}");
}

#[test]
fn an_invalid_status_holding_a_token_is_redacted() {
    let token = fake_token();
    let err = apply_update(&mut goal(), &json!({ "status": token })).expect_err("not a status");
    assert!(err.message.contains("is not a status"), "{}", err.message);
    assert_no_token(&err, &token);
}

#[test]
fn an_unknown_field_named_by_a_token_is_redacted() {
    let token = fake_token();
    let err = apply_update(&mut goal(), &json!({ token.clone(): "x" })).expect_err("unknown field");
    assert!(err.message.contains("unknown field"), "{}", err.message);
    assert_no_token(&err, &token);
}

#[test]
fn a_resolution_status_holding_a_password_assignment_is_redacted() {
    let value = json!([{
        "issue": "flaky test",
        "status": "password=hunter2",
        "evidence": "cargo test passes"
    }]);
    let err = parse_resolutions(&value).expect_err("not a resolution status");
    assert!(!err.message.contains("hunter2"), "{}", err.message);
}

#[test]
fn ordinary_error_texts_are_unchanged() {
    let err = GoalError::invalid("status: \"finished\" is not a status");
    assert_eq!(err.message, "status: \"finished\" is not a status");
    let err = GoalError::invalid("no goal goal-0123456789abcdef0123 for session s1");
    assert_eq!(
        err.message,
        "no goal goal-0123456789abcdef0123 for session s1"
    );
}
