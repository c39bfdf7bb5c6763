//! Progress views for the `goal-system` command: the status line, a goal's
//! timeline (text and data) and the HTML report. All built by
//! goal_core::progress; this file only converts.

use goal_core::progress::{self, statusline, timeline};
use goal_core::store::Store;
use goal_core::{clock, GoalError};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::error::to_js;
use crate::store::{config_for, StoreOptions};

fn store(options: Option<StoreOptions>) -> goal_core::Result<Store> {
    config_for(options.and_then(|o| o.state_root)).map(Store::new)
}

/// The session's goal line for a status bar, from Claude Code's statusLine
/// JSON (`session_id`, ...). Empty when the session has no goal or the input
/// is not JSON: a status bar never shows an error.
#[napi]
pub fn status_line(input: String, options: Option<StoreOptions>) -> String {
    store(options)
        .map(|s| statusline::for_payload(&s, &input, clock::now_ms()))
        .unwrap_or_default()
}

/// A goal's timeline. `text` is what `goal-system log` prints; `timeline`
/// holds every event (`{at, atMs, kind, toolKind?, name, detail, status?}`)
/// and the tool totals; `checklist` is the completion gate, condition by
/// condition (`{field, label, met, unmet, evidence}`).
#[napi(object)]
pub struct GoalLog {
    #[napi(ts_type = "Goal")]
    pub goal: Value,
    pub text: String,
    #[napi(ts_type = "Timeline")]
    pub timeline: Value,
    #[napi(ts_type = "GateItem[]")]
    pub checklist: Value,
    /// Each requirement with the coverage entries that name it.
    #[napi(ts_type = "Coverage[]")]
    pub coverage: Value,
    /// Token use against the budget, when there is a budget or any usage.
    #[napi(ts_type = "BudgetUse")]
    pub budget: Option<Value>,
}

fn json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The timeline of a goal (by goal id or session id) from the audit log and
/// its tool history. Error `NO_GOAL` when nothing matches.
#[napi]
pub fn goal_log(env: Env, id_or_session: String, options: Option<StoreOptions>) -> Result<GoalLog> {
    let run = || -> std::result::Result<GoalLog, GoalError> {
        let store = store(options)?;
        let goal = progress::find_goal(&store, &id_or_session)?;
        let t = timeline::for_goal(&store, &goal);
        let now = clock::now_ms();
        Ok(GoalLog {
            text: timeline::render_text(&goal, &t, now),
            timeline: json(&t),
            checklist: json(&progress::checklist(&goal)),
            coverage: json(&progress::coverage(&goal)),
            budget: progress::budget_use(&goal).map(|b| json(&b)),
            goal: json(&goal),
        })
    };
    run().map_err(|e| to_js(&env, e))
}

/// The self-contained HTML report of a goal (by goal id or session id).
/// Error `NO_GOAL` when nothing matches.
#[napi]
pub fn goal_report(
    env: Env,
    id_or_session: String,
    options: Option<StoreOptions>,
) -> Result<String> {
    let run = || -> std::result::Result<String, GoalError> {
        let store = store(options)?;
        let goal = progress::find_goal(&store, &id_or_session)?;
        let t = timeline::for_goal(&store, &goal);
        Ok(progress::report::render(&goal, &t, clock::now_ms()))
    };
    run().map_err(|e| to_js(&env, e))
}
