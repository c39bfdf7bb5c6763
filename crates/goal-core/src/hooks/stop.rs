//! Stop control: a stop is blocked while the goal is open, with a directive
//! naming the next remaining item, until the loop guard lets it through.

use super::{account, is_interrupt, load_goal, note_warnings, Decision, Host, Payload};
use crate::error::Result;
use crate::goals::{self, Attempt, Caller, MAX_BLOCKED_STOPS};
use crate::messages;
use crate::record::Goal;
use crate::store::Store;

pub(super) fn released(goal: &Goal) -> Decision {
    Decision {
        system_message: Some(messages::loop_guard_release(goal, MAX_BLOCKED_STOPS + 1)),
        ..Decision::default()
    }
}

pub(super) fn on_stop(
    store: &Store,
    host: Host,
    caller: &Caller,
    payload: &Payload,
) -> Result<(Decision, Option<String>)> {
    // A stop ends a turn: count it and the host's usage first, whatever follows.
    let accounted = account(store, host, caller, payload, 1);
    if is_interrupt(&payload.stop_reason) {
        if let Some(goal) = goals::pause_on_interrupt(store, caller)? {
            let note = messages::paused_by_interrupt(&goal);
            return Ok((
                Decision {
                    system_message: Some(note.clone()),
                    ..Decision::default()
                },
                Some(note),
            ));
        }
        return Ok((Decision::default(), None));
    }
    if let Some(wrap_up) = accounted.wrap_up {
        // The one steer after the budget was crossed; later stops go through.
        return Ok((
            Decision {
                block: Some(wrap_up),
                ..Decision::default()
            },
            None,
        ));
    }
    let Some(goal) = load_goal(store, caller)?.filter(Goal::is_working) else {
        return Ok((Decision::default(), None));
    };
    let (attempt, warnings) = goals::stop_attempt(store, caller, &goal.id)?;
    note_warnings(warnings);
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
                block: Some(messages::continuation_directive(
                    &goal,
                    goal.stop_guard.blocked_stops.max(1),
                    MAX_BLOCKED_STOPS,
                )),
                ..Decision::default()
            },
            None,
        ),
    })
}
