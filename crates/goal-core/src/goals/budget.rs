//! Budgets: the wall time an active goal spends, the tokens the hosts'
//! records report, and the stop a crossed budget makes.

use super::*;

/// Add the wall time since the active stretch began, and start a new stretch
/// only while the goal is active: time waiting on the user never counts.
/// Every write that may change the status calls it before and after.
pub fn tick_time(goal: &mut Goal, now_ms: u64) {
    let budget = &mut goal.budget;
    if let Some(since) = budget.active_since_ms {
        budget.time_used_ms += now_ms.saturating_sub(since);
    }
    let active = goal.closed_at.is_none() && goal.completion_status == Status::Active;
    budget.active_since_ms = active.then_some(now_ms);
}

/// The budget crossed, if any: tokens first, then time.
pub(super) fn crossed_budget(goal: &Goal) -> Option<String> {
    let b = &goal.budget;
    if let Some(limit) = b.token_budget.filter(|l| b.tokens_used >= *l) {
        return Some(format!(
            "token budget reached: {} of {limit} tokens",
            b.tokens_used
        ));
    }
    if let Some(limit) = b.time_budget_seconds.filter(|l| b.time_used_ms >= l * 1000) {
        return Some(format!(
            "time budget reached: {} of {limit} s",
            b.time_used_ms / 1000
        ));
    }
    None
}

/// Account time, then move a working goal past its budget to budget_limited.
/// Returns true when it did so now.
pub(super) fn settle_budget(goal: &mut Goal, now_ms: u64) -> bool {
    tick_time(goal, now_ms);
    if !goal.is_working() {
        return false;
    }
    let Some(reason) = crossed_budget(goal) else {
        return false;
    };
    goal.completion_status = Status::BudgetLimited;
    goal.status_reason = Some(reason);
    goal.stop_guard.blocked_stops = 0;
    goal.budget.wrap_up_sent = false;
    tick_time(goal, now_ms);
    true
}

/// What a hook saw of the host's usage.
#[derive(Debug, Clone, Default)]
pub struct UsageReport {
    /// Where the host records tokens, when the hook knows.
    pub source: Option<crate::usage::Source>,
    /// Model turns ended by this event (a stop is one).
    pub turns: u64,
    /// A user prompt: a source the goal has not met yet starts at its present
    /// end instead of counting the session's earlier usage.
    pub baseline: bool,
}

/// What accounting did.
#[derive(Debug, Clone, Default)]
pub struct Accounted {
    /// The open goal after accounting.
    pub goal: Option<Goal>,
    /// Set once, on the first accounting after a budget was crossed: the
    /// steer to wrap up. Later accountings leave it empty.
    pub wrap_up: Option<String>,
}

/// Account the host's usage on the session's open goal in one locked
/// read-modify-write: tokens not yet counted from the source, turns, wall
/// time; crossing a budget moves a working goal to budget_limited in the same
/// write. Usage after the limit still accrues.
/// Write the goal only when the transition changed it.
pub(super) fn save_if(changed: bool, goal: &Goal) -> Change {
    if changed {
        Change::Save(goal.clone())
    } else {
        Change::None
    }
}

pub fn account_usage(store: &Store, caller: &Caller, report: &UsageReport) -> Result<Accounted> {
    let now = clock::now_ms();
    let (accounted, _warnings) =
        store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
            let Some(mut goal) = current.filter(Goal::is_open) else {
                return Ok((Change::None, Accounted::default()));
            };
            let Some(usage) = account_in(&mut goal, caller, report, now) else {
                return Ok((Change::None, Accounted::default()));
            };
            Ok((
                save_if(usage.changed, &goal),
                Accounted {
                    goal: Some(goal),
                    wrap_up: usage.wrap_up,
                },
            ))
        })?;
    audit_budget_limited(store, &accounted);
    Ok(accounted)
}

/// What accounting changed on a goal in memory.
pub(super) struct Usage {
    /// Worth a write: tokens, turns, sources or the status moved (time alone
    /// is not: the stretch's start is kept, so it is saved with the next change).
    pub(super) changed: bool,
    /// The one steer after the budget was crossed.
    pub(super) wrap_up: Option<String>,
}

/// Account `report` on an open goal in memory; `None` when the goal belongs
/// to another directory (then it is left as it was).
pub(super) fn account_in(
    goal: &mut Goal,
    caller: &Caller,
    report: &UsageReport,
    now: u64,
) -> Option<Usage> {
    if !goal.cwd.is_empty() && !same_cwd(&goal.cwd, &caller.cwd) {
        return None;
    }
    let before = (goal.budget.clone(), goal.completion_status);
    if let Some(source) = report.source.as_ref().filter(|s| !foreign_record(goal, s)) {
        let key = source.key();
        let record = record_print(source);
        if report.baseline && !goal.budget.usage_sources.contains_key(&key) {
            let mark = crate::record::UsageMark {
                record,
                ..source.baseline()
            };
            goal.budget.usage_sources.insert(key, mark);
        } else {
            let mark = goal.budget.usage_sources.entry(key).or_default();
            if mark.record.is_empty() {
                mark.record = record;
            }
            goal.budget.tokens_used += source.count(mark);
        }
    }
    goal.budget.turns += report.turns;
    settle_budget(goal, now);
    let wrap_up = (goal.completion_status == Status::BudgetLimited && !goal.budget.wrap_up_sent)
        .then(|| {
            goal.budget.wrap_up_sent = true;
            messages::budget_wrap_up(goal)
        });
    let mut compare = goal.budget.clone();
    compare.time_used_ms = before.0.time_used_ms;
    compare.active_since_ms = before.0.active_since_ms;
    Some(Usage {
        changed: compare != before.0 || goal.completion_status != before.1,
        wrap_up,
    })
}

/// Whether `source` was read beside another record than the goal's own: the
/// one its user commands were confirmed in (Claude Code's transcript, Copilot
/// CLI's `events.jsonl`, Codex CLI's rollout), else the first transcript or
/// chat recording it counted. The host names one record per session; a
/// payload forged from the agent's shell, with a host folder of its making in
/// its environment, could name a planted one and run the goal into its budget
/// (which ends the stop hold).
fn foreign_record(goal: &Goal, source: &crate::usage::Source) -> bool {
    if source.record().is_none() {
        return false;
    }
    let print = record_print(source);
    if !goal.voice.record_key.is_empty() {
        return print != goal.voice.record_key;
    }
    // One record per goal, whatever a source's key or kind: a running total
    // keyed by the host's session read beside another record, or a source
    // of another host's kind, is not the goal's.
    if goal
        .budget
        .usage_sources
        .values()
        .any(|mark| !mark.record.is_empty() && mark.record != print)
    {
        return true;
    }
    let key = source.key();
    goal.budget
        .usage_sources
        .keys()
        .any(|k| k.starts_with(crate::usage::RECORD_KEY) && *k != key)
}

/// Whether the open `goal` has not yet counted `source` beside its record:
/// the hook then asks the running host where it keeps that record
/// (`hooks::Delivery::vouches`) before the goal relies on it.
pub fn first_sight(goal: &Goal, source: &crate::usage::Source) -> bool {
    source.record().is_some()
        && goal
            .budget
            .usage_sources
            .get(&source.key())
            .is_none_or(|mark| mark.record.is_empty())
}

/// Whether the running host already declined `source`'s record for the open
/// `goal` (`Budget::refused_record`): a tool or stop hook then leaves it
/// uncounted without reading the process chain again.
pub fn refused_before(goal: &Goal, source: &crate::usage::Source) -> bool {
    !goal.budget.refused_record.is_empty() && goal.budget.refused_record == record_print(source)
}

/// Remember that the running host did not vouch for `source`'s record; true
/// when it is news (the user is told then, once per record).
pub fn refuse_record(
    store: &Store,
    caller: &Caller,
    source: &crate::usage::Source,
) -> Result<bool> {
    let print = record_print(source);
    let (news, _warnings) = store.modify(&caller.session_id, Some(&caller.cwd), |current, _| {
        let Some(mut goal) = current.filter(Goal::is_open) else {
            return Ok((Change::None, false));
        };
        let other_folder = !goal.cwd.is_empty() && !same_cwd(&goal.cwd, &caller.cwd);
        if other_folder || goal.budget.refused_record == print {
            return Ok((Change::None, false));
        }
        goal.budget.refused_record = print.clone();
        Ok((Change::Save(goal), true))
    })?;
    Ok(news)
}

/// The fingerprint of the host record `source` was read beside ("" for none).
fn record_print(source: &crate::usage::Source) -> String {
    source
        .record()
        .map(|path| crate::redact::fingerprint(&path.to_string_lossy()))
        .unwrap_or_default()
}

/// The audit line of a budget crossed now.
pub(super) fn audit_budget_limited(store: &Store, accounted: &Accounted) {
    if let Some(goal) = accounted
        .goal
        .as_ref()
        .filter(|_| accounted.wrap_up.is_some())
    {
        store.audit(
            "budget-limited",
            Some(goal),
            goal.status_reason.as_deref().unwrap_or(""),
        );
    }
}
