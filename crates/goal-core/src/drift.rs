//! Drift: non-goal tool calls since the last goal update. 0-2 nothing, 3-4 a
//! warning in context, 5+ the next non-goal call is denied until the goal is
//! updated. Goal tools never count, however the host prefixes them.

/// Calls since the last update at which a warning is given.
pub const WARN_AT: u64 = 3;
/// Calls since the last update at which the next non-goal call is denied.
pub const DENY_AT: u64 = 5;

/// What the pre-tool hook does about drift for the next non-goal call, given
/// how many non-goal calls were made since the last update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drift {
    Allow,
    Warn(u64),
    Deny(u64),
}

pub fn decide(count: u64) -> Drift {
    if count >= DENY_AT {
        Drift::Deny(count)
    } else if count >= WARN_AT {
        Drift::Warn(count)
    } else {
        Drift::Allow
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds() {
        assert_eq!(decide(0), Drift::Allow);
        assert_eq!(decide(2), Drift::Allow);
        assert_eq!(decide(3), Drift::Warn(3));
        assert_eq!(decide(4), Drift::Warn(4));
        assert_eq!(decide(5), Drift::Deny(5));
        assert_eq!(decide(9), Drift::Deny(9));
    }
}
