//! Stop control: a stop is blocked while the goal is open, with a directive
//! naming the next remaining item, until the loop guard lets it through.

use super::{is_interrupt, note_warnings, usage_report, Decision, Delivery, Payload};
use crate::error::Result;
use crate::goals::{self, Attempt, Caller, Stopped, MAX_BLOCKED_STOPS};
use crate::messages;
use crate::record::Goal;
use crate::store::Store;

pub(super) fn released(goal: &Goal) -> Decision {
    Decision {
        system_message: Some(messages::loop_guard_release(goal, MAX_BLOCKED_STOPS + 1)),
        ..Decision::default()
    }
}

/// Codex CLI's `Interrupt` (the user pressed Esc): the abort is read from the
/// rollout as at a prompt (`goals::note_interrupt`), and pauses the working
/// goal now. The rollout decides: Codex writes its `<turn_aborted>` marker
/// for a user's interrupt only, before this hook runs, and a payload piped
/// in from the agent's shell finds none past what was read (and is filtered
/// first by `provenance::codex::not_a_hook`, leaving the record unread).
pub(super) fn on_interrupt(
    store: &Store,
    delivery: &Delivery,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    let Some(record) = delivery.record_to_pin(store, caller, payload) else {
        return Ok((Decision::default(), None));
    };
    if let Some(why) = crate::provenance::codex::not_a_hook(delivery.origin) {
        return Ok((
            Decision::default(),
            Some(format!("interrupt not taken: {why}")),
        ));
    }
    let Some(goal) = goals::note_interrupt(store, caller, &record, true)? else {
        return Ok((Decision::default(), None));
    };
    let note = messages::paused_by_interrupt(&goal, delivery.spelling());
    Ok((
        Decision {
            system_message: Some(note.clone()),
            ..Decision::default()
        },
        Some(note),
    ))
}

/// A stop in one write: the turn and usage accounted, then an interrupt
/// pauses, a crossed budget steers once, or the loop guard holds the stop.
pub(super) fn on_stop(
    store: &Store,
    delivery: &Delivery,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    let sp = delivery.spelling();
    let usage = usage_report(store, delivery, caller, payload, 1, false);
    let interrupted = is_interrupt(&payload.stop_reason);
    let (stopped, warnings) = goals::stop(store, caller, &usage, interrupted)?;
    note_warnings(warnings);
    let attempt = match stopped {
        Stopped::NotWorking => return Ok((Decision::default(), None)),
        Stopped::Paused(goal) => {
            let note = messages::paused_by_interrupt(&goal, sp);
            return Ok((
                Decision {
                    system_message: Some(note.clone()),
                    ..Decision::default()
                },
                Some(note),
            ));
        }
        // The one steer after the budget was crossed; later stops go through.
        Stopped::WrapUp(accounted) => {
            return Ok((
                Decision {
                    block: accounted.wrap_up,
                    ..Decision::default()
                },
                None,
            ))
        }
        Stopped::Attempt(attempt) => attempt,
    };
    if let Attempt::Held(g) = &attempt {
        store.audit(
            "stop-blocked",
            Some(g),
            &format!(
                "blocked stop {} in a row; next: {}",
                g.stop_guard.blocked_stops,
                messages::next_item(g).unwrap_or("(none)")
            ),
        );
    }
    Ok(match attempt {
        Attempt::NotWorking => (Decision::default(), None),
        Attempt::Released(goal) => {
            let decision = released(&goal);
            let note = decision.system_message.clone();
            (decision, note)
        }
        Attempt::Held(goal) => (
            Decision {
                block: Some(format!(
                    "{}\n{}",
                    messages::continuation_directive(
                        &goal,
                        goal.stop_guard.blocked_stops.max(1),
                        MAX_BLOCKED_STOPS,
                    ),
                    messages::user_controls(sp)
                )),
                ..Decision::default()
            },
            None,
        ),
    })
}
