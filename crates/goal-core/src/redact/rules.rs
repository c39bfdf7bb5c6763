//! The rule table: what a secret looks like, and which literal must occur
//! for each rule to be worth running.
//!
//! Token families were learned from the shapes the public gitleaks and
//! noseyparker rule sets describe (prefix, alphabet, length); the patterns
//! are written here. Every rule names literal triggers; the engine runs a
//! rule's regex only in a window around an occurrence of one of them.
//!
//! Order is priority: when spans of two rules overlap, the earlier rule
//! names the family of the merged marker, so exact token formats come first,
//! then headers and URLs, then generic assignments and context rules.

use super::assignment;
use super::heuristics::{bearer_like, long_opaque, not_reference};
use super::kinds::{key_byte, name_byte, Kind};
use super::locate;
use super::prechecks::{
    bearer_value_follows, dashes_before, header_value_follows, login_password_follows,
    opaque_run_follows, BEARER_MIN_BYTES, FLAG_NAME_BYTES,
};
pub(super) use super::rule::*;

/// The rule table, in priority order.
pub(super) fn table() -> Vec<Rule> {
    let mut rules = super::families::families();
    rules.extend([
        Rule {
            precheck: Some(header_value_follows),
            locate: Some(locate::authorization),
            ..rule(
            "authorization",
            format!(
                r#"{B}(?i-u:(?:proxy-)?authorization){Q}[ \t]*[:=][ \t]*{Q}(?P<scheme>(?i-u:bearer|basic|token|bot|digest|negotiate|ntlm|apikey|sso-key|ssws)[ \t]+)?(?P<s>[^\s"'`,;\\()\[\]{{}}<>]+)"#
            ),
            Kind::Authorization,
            triggers(&["authorization"], false, Then::Operator),
            back(header_byte, 16),
        )
        },
        Rule {
            precheck: Some(bearer_value_follows),
            locate: Some(locate::bearer),
            ..rule(
                "bearer-token",
                format!(r"(?i-u:bearer)[ \t]+(?P<s>[A-Za-z0-9._~+/-]{{{BEARER_MIN_BYTES},}}=*)"),
                Kind::Checked(bearer_like),
                triggers(&["bearer"], true, Then::Blank),
                Start::AtTrigger,
            )
        },
        rule(
            "cookie",
            format!(r#"{B}(?i-u:(?:set-)?cookie){Q}[ \t]*:[ \t]*{Q}(?P<s>[^\r\n"'\\]+)"#),
            Kind::Cookie,
            triggers(&["cookie"], false, Then::Operator),
            back(header_byte, 16),
        ),
        // `curl -u user:password`.
        rule(
            "secret",
            r#"(?:-u|--user)[ \t]+['"]?[^\s:'"]+:(?P<s>[^\s'"@]+)"#.to_string(),
            Kind::Checked(not_reference),
            vec![
                Trigger {
                    lit: "-u",
                    word_start: false,
                    then: Then::Blank,
                },
                Trigger {
                    lit: "--user",
                    word_start: false,
                    then: Then::Blank,
                },
            ],
            Start::AtTrigger,
        ),
        // .netrc: `machine host login user password secret`.
        Rule {
            precheck: Some(login_password_follows),
            ..rule(
                "secret",
                r"(?i-u:login)[ \t]+[^\s]+[ \t]+(?i-u:password)[ \t]+(?P<s>[^\s]+)".to_string(),
                Kind::Checked(not_reference),
                triggers(&["login"], true, Then::Blank),
                Start::AtTrigger,
            )
        },
        // Query/fragment parameters with long values.
        rule(
            "url-param",
            r#"[?&#;](?i-u:access_token|refresh_token|id_token|auth_token|token|api_key|apikey|key|sig|signature|secret|client_secret|password|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)=(?P<s>[^\s&#"'<>\[\]\\]+)"#
                .to_string(),
            Kind::Checked(long_opaque),
            triggers(
                &["token=", "key=", "sig=", "signature=", "secret=", "password=", "credential="],
                false,
                Then::Anything,
            ),
            Start::Back {
                class: name_byte,
                max: 32,
                lead: b"?&#;",
            },
        ),
        Rule {
            precheck: Some(dashes_before),
            ..rule(
                "secret",
                format!(
                    r"--(?P<key>(?:[A-Za-z0-9]+-)*(?i-u:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token))[ \t]+{FLAG_VALUE}"
                ),
                Kind::Flag,
                triggers(KEY_ENDINGS, false, Then::Blank),
                back(name_byte, FLAG_NAME_BYTES),
            )
        },
        Rule {
            by_hand: true,
            ..rule(
            "secret",
            format!(
                r"(?P<lead>[/@])?{B}(?P<key>{}){B}{Q}[ \t]*(?P<op>:=|=>|=|:)[ \t]*{VALUE}",
                assignment::key_pattern()
            ),
            Kind::Assignment,
            triggers(KEY_ENDINGS, false, Then::Operator),
            Start::Back {
                class: key_byte,
                max: 4096,
                lead: b"/@",
            },
        )
        },
        // Windows and fish: `setx API_TOKEN value`, `set -x API_KEY value`.
        rule(
            "secret",
            format!(
                r"(?i-u:setx|set[ \t]+-[gUx]+)[ \t]+(?P<key>[A-Za-z0-9_]*(?i-u:{}))[ \t]+{VALUE}",
                assignment::key_names_pattern()
            ),
            Kind::Assignment,
            triggers(&["setx", "set"], true, Then::Blank),
            Start::AtTrigger,
        ),
        // Prose and logs: `secret key wJalr...`, `the token is 3f9c...`,
        // `API key: ...`: a long opaque value right after a secret's name
        // (at most `prechecks::CONTEXT_REACH` bytes after it).
        Rule {
            precheck: Some(opaque_run_follows),
            locate: Some(locate::context),
            ..rule(
            "secret",
            r#"(?i-u:(?:aws[ _-]?)?secret(?:[ _-]?access)?(?:[ _-]?key)?|(?:(?:access|refresh|auth|bearer|api|bot)[ _-]?)?token|api[ _-]?key|access[ _-]?key|private[ _-]?key|password|passphrase|credentials?)(?:[ \t]{1,4}(?i-u:is|was|are|=|:|->|of|for|to|now|here|value)){0,3}[ \t]{0,4}[:=]?[ \t]{0,4}["'`]?(?P<s>[A-Za-z0-9/+_=~-](?:\.?[A-Za-z0-9/+_=~-]){19,})"#
                .to_string(),
            Kind::Checked(super::heuristics::context_secret),
            triggers(
                &[
                    "aws", "secret", "token", "access", "refresh", "auth", "bearer", "api", "bot",
                    "private", "password", "passphrase", "credential",
                ],
                true,
                Then::Anything,
            ),
            Start::AtTrigger,
        )
        },
    ]);
    rules
}
