//! Read-side views of the store for the `goal-system` command: list, find,
//! continuation candidates and where state lives.

use goal_core::continuation::{self, Continuation};
use goal_core::store::{Store, StoreConfig};
use goal_core::{gate, messages, Goal};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::error::to_js;

/// Where to look. Input only.
#[napi(object, object_to_js = false)]
pub struct StoreOptions {
    /// Override of the goal-system state folder.
    pub state_root: Option<String>,
}

/// One goal as listed by `listGoals`.
#[napi(object)]
pub struct GoalListing {
    /// The version-3 goal record.
    #[napi(ts_type = "Goal")]
    pub goal: Value,
    /// Human status: `active`, `blocked (resumable)`, `complete`, ...
    pub status: String,
    pub open: bool,
    /// Fields of the unmet completion conditions (empty when closed).
    pub unmet: Vec<String>,
    /// Readable summary.
    pub summary: String,
}

/// Folders the store uses.
#[napi(object)]
pub struct StatePaths {
    /// The host's session-state folder (`~/.copilot/session-state`).
    pub session_state: String,
    /// The goal-system folder.
    pub root: String,
}

/// The store configuration from the environment, with the goal-system folder
/// replaced by `state_root` when given (the other variables still apply).
pub(crate) fn config_for(state_root: Option<String>) -> goal_core::Result<StoreConfig> {
    match state_root {
        Some(root) => StoreConfig::from_vars(|name| {
            if name == "GOAL_SYSTEM_STATE_ROOT" {
                Some(root.clone().into())
            } else {
                std::env::var_os(name)
            }
        }),
        None => StoreConfig::from_env(),
    }
}

fn open_store(options: Option<StoreOptions>) -> goal_core::Result<Store> {
    config_for(options.and_then(|o| o.state_root)).map(Store::new)
}

fn listing(goal: Goal) -> GoalListing {
    let unmet = if goal.is_open() {
        gate::check(&goal).into_iter().map(|u| u.field).collect()
    } else {
        Vec::new()
    };
    GoalListing {
        status: goal.status_label().to_string(),
        open: goal.is_open(),
        summary: messages::summary(&goal),
        unmet,
        goal: serde_json::to_value(&goal).unwrap_or(Value::Null),
    }
}

/// The folders the store reads and writes, from the environment or `stateRoot`.
#[napi]
pub fn state_paths(env: Env, options: Option<StoreOptions>) -> Result<StatePaths> {
    let store = open_store(options).map_err(|e| to_js(&env, e))?;
    Ok(StatePaths {
        session_state: store.config.session_state.to_string_lossy().into_owned(),
        root: store.config.root.to_string_lossy().into_owned(),
    })
}

/// Every stored goal (one entry per goal id, newest copy), newest first;
/// only those of `cwd` when given.
#[napi]
pub fn list_goals(
    env: Env,
    cwd: Option<String>,
    options: Option<StoreOptions>,
) -> Result<Vec<GoalListing>> {
    let store = open_store(options).map_err(|e| to_js(&env, e))?;
    let mut goals = match cwd {
        Some(cwd) => store.goals_in_cwd(&cwd),
        None => store.list_all(),
    }
    .map_err(|e| to_js(&env, e))?;
    goals.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
    Ok(goals.into_iter().map(listing).collect())
}

/// One goal by goal id or session id, or null.
#[napi]
pub fn find_goal(
    env: Env,
    id_or_session: String,
    options: Option<StoreOptions>,
) -> Result<Option<GoalListing>> {
    let store = open_store(options).map_err(|e| to_js(&env, e))?;
    let goal = store.find(&id_or_session).map_err(|e| to_js(&env, e))?;
    Ok(goal.map(listing))
}

/// Open goals that an explicit continue prompt in `cwd` could load: zero, one,
/// or several (then the user must name one).
#[napi]
pub fn continuation_candidates(
    env: Env,
    cwd: String,
    options: Option<StoreOptions>,
) -> Result<Vec<GoalListing>> {
    let store = open_store(options).map_err(|e| to_js(&env, e))?;
    let found = continuation::find_for_continuation(&store, &cwd).map_err(|e| to_js(&env, e))?;
    Ok(match found {
        Continuation::None => Vec::new(),
        Continuation::One(g) => vec![listing(g)],
        Continuation::Ambiguous(goals) => goals.into_iter().map(listing).collect(),
    })
}
