//! The stop: whether the host may end the turn while the goal is open, the
//! loop guard that lets a stuck stop through, and the user's prompts that
//! reset its count.

use super::*;

/// Consecutive blocked stops (with no tool call between) before the loop guard
/// lets the stop through and marks the goal blocked.
pub const MAX_BLOCKED_STOPS: u32 = 3;
/// Blocked stops per goal per user prompt, however much tool activity lies
/// between them. Past it the stop goes through and the goal is blocked
/// (resumable), so a model that makes one trivial call between stops cannot
/// keep itself running for ever.
pub const MAX_STOPS_PER_PROMPT: u32 = 10;

/// A new prompt from the user: the absolute stop bound starts again. Never
/// fails the prompt (a store fault only skips the reset).
pub fn note_user_prompt(store: &Store, caller: &Caller, prompt: &str) {
    if messages::is_host_continuation(prompt) {
        return;
    }
    let now = clock::now_ms();
    let _ = store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
        let Some(mut goal) = current.filter(Goal::is_open) else {
            return Ok((Change::None, ()));
        };
        let mut changed = goal.stop_guard.since_prompt > 0;
        goal.stop_guard.since_prompt = 0;
        if goal.is_working() {
            // What changed while the agent was not working (the user's own
            // edits) needs a verification of its own.
            let before = goal.tool_history.clone();
            let mut tree = Tree::new(store, &goal);
            history::observe_between(&mut tree, &mut goal, "between the agent's turns", now);
            tree.save(&mut goal)?;
            changed |= goal.tool_history != before;
        }
        Ok((save_if(changed, &goal), ()))
    });
}

/// What the loop guard made of a stop attempt.
pub enum Attempt {
    /// The goal is not draft/active (any more): nothing to hold.
    NotWorking,
    /// Counted; the goal as stored now (its guard level tells the escalation).
    Held(Goal),
    /// The bound was passed: the goal is now blocked (resumable) and the stop goes through.
    Released(Goal),
}

/// Count a stop attempt (a stop, or a completion claim) on the loop guard, in
/// one locked read-modify-write.
pub fn stop_attempt(
    store: &Store,
    caller: &Caller,
    goal_id: &str,
) -> Result<(Attempt, Vec<String>)> {
    let (attempt, warnings) =
        store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
            let Some(mut goal) = current.filter(|g| g.id == goal_id && g.is_working()) else {
                return Ok((Change::None, Attempt::NotWorking));
            };
            let attempt = count_attempt(&mut goal);
            Ok((Change::Save(goal), attempt))
        })?;
    audit_release(store, &attempt);
    Ok((attempt, warnings))
}

fn audit_release(store: &Store, attempt: &Attempt) {
    if let Attempt::Released(g) = attempt {
        store.audit(
            "loop-guard",
            Some(g),
            "stop let through; goal blocked (resumable)",
        );
    }
}

/// The loop guard's count of one stop attempt on a working goal; the goal is
/// changed in place (always: at least the counters move).
fn count_attempt(goal: &mut Goal) -> Attempt {
    let guard = &mut goal.stop_guard;
    // Only tool activity between two attempts counts as progress.
    if guard.blocked_stops > 0 && goal.tool_history.seq == guard.seq_at_last_block {
        guard.blocked_stops += 1;
    } else {
        guard.blocked_stops = 1;
    }
    guard.seq_at_last_block = goal.tool_history.seq;
    guard.total_blocked += 1;
    guard.since_prompt += 1;
    let level = guard.blocked_stops;
    let absolute = guard.since_prompt > MAX_STOPS_PER_PROMPT;
    goal.updated_at = clock::now_iso();
    if absolute {
        tick_time(goal, clock::now_ms());
        goal.completion_status = Status::Blocked;
        goal.status_reason = Some(messages::stop_bound_reason(MAX_STOPS_PER_PROMPT));
        goal.stop_guard.blocked_stops = 0;
        goal.stop_guard.since_prompt = 0;
        return Attempt::Released(goal.clone());
    }
    if level > MAX_BLOCKED_STOPS {
        // The reason lives in statusReason only: it is the guard's, not a
        // blocker of the work, so resuming (status active) clears it.
        tick_time(goal, clock::now_ms());
        goal.completion_status = Status::Blocked;
        goal.status_reason = Some(messages::loop_guard_reason(level));
        goal.stop_guard.blocked_stops = 0;
        return Attempt::Released(goal.clone());
    }
    Attempt::Held(goal.clone())
}

/// What a stop did to the session's goal (see [`stop`]).
pub enum Stopped {
    /// No working goal: the stop goes through.
    NotWorking,
    /// The user interrupted: the working goal is paused now.
    Paused(Goal),
    /// The budget was crossed: the one steer to wrap up (the stop is held
    /// once), with the goal as stored.
    WrapUp(Accounted),
    /// The loop guard counted the stop.
    Attempt(Attempt),
}

/// A stop (the end of a model turn) in one locked read-modify-write: the
/// turn and the host's usage accounted, then an interrupt pauses the working
/// goal, a budget crossed now steers once to wrap up, and otherwise the loop
/// guard counts the attempt. Returns the store's warnings too.
pub fn stop(
    store: &Store,
    caller: &Caller,
    usage: &UsageReport,
    interrupted: bool,
) -> Result<(Stopped, Vec<String>)> {
    let now = clock::now_ms();
    let (stopped, warnings) =
        store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
            let Some(mut goal) = current.filter(Goal::is_open) else {
                return Ok((Change::None, Stopped::NotWorking));
            };
            let accounted = account_in(&mut goal, caller, usage, now);
            let elsewhere = !goal.cwd.is_empty() && !same_cwd(&goal.cwd, &caller.cwd);
            let changed = accounted.as_ref().is_some_and(|a| a.changed);
            let save = |goal: Goal, stopped| {
                let change = if changed {
                    Change::Save(goal)
                } else {
                    Change::None
                };
                Ok((change, stopped))
            };
            if interrupted {
                if elsewhere || !goal.is_working() {
                    return save(goal, Stopped::NotWorking);
                }
                pause(&mut goal);
                return Ok((Change::Save(goal.clone()), Stopped::Paused(goal)));
            }
            if let Some(wrap_up) = accounted.and_then(|a| a.wrap_up) {
                let accounted = Accounted {
                    goal: Some(goal.clone()),
                    wrap_up: Some(wrap_up),
                };
                return Ok((Change::Save(goal), Stopped::WrapUp(accounted)));
            }
            if !goal.is_working() {
                return save(goal, Stopped::NotWorking);
            }
            let attempt = count_attempt(&mut goal);
            Ok((Change::Save(goal), Stopped::Attempt(attempt)))
        })?;
    match &stopped {
        Stopped::Paused(g) => {
            store.audit("pause", Some(g), messages::INTERRUPT_REASON);
        }
        Stopped::WrapUp(accounted) => audit_budget_limited(store, accounted),
        Stopped::Attempt(attempt) => audit_release(store, attempt),
        Stopped::NotWorking => {}
    }
    Ok((stopped, warnings))
}

/// Pause a working goal because the user interrupted it.
pub(super) fn pause(goal: &mut Goal) {
    tick_time(goal, clock::now_ms());
    goal.completion_status = Status::Paused;
    goal.status_reason = Some(messages::INTERRUPT_REASON.into());
    goal.stop_guard.blocked_stops = 0;
    tick_time(goal, clock::now_ms());
    stamp(goal);
}
