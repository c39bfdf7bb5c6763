//! goal-core errors become JS `Error`s whose `.code` is the stable error code.

use goal_core::GoalError;
use napi::bindgen_prelude::*;

/// Build a JS Error carrying `code` (e.g. `LIMIT_EXCEEDED`) and the message.
pub fn to_js(env: &Env, err: GoalError) -> Error {
    let build = || -> Result<Error> {
        let mut obj = env.create_error(Error::new(Status::GenericFailure, err.message.clone()))?;
        obj.set_named_property("code", err.code.as_str())?;
        Ok(Error::from(obj.to_unknown()))
    };
    build().unwrap_or_else(|_| Error::new(Status::GenericFailure, err.to_string()))
}
