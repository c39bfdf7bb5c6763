//! Property tests: over generated texts (benign lines, fake tokens, planted
//! assignments and random noise, joined by random separators), redaction is
//! idempotent, no planted secret survives, and benign text comes back
//! unchanged. The case count is small so CI runs them in seconds.

use proptest::prelude::*;

use super::corpus::{benign, planted, Rng};
use super::redact;

/// Pieces generated once (the generators are the corpus test's).
struct Pieces {
    benign: Vec<String>,
    planted: Vec<(String, String)>,
}

fn pieces() -> &'static Pieces {
    static PIECES: std::sync::OnceLock<Pieces> = std::sync::OnceLock::new();
    PIECES.get_or_init(|| {
        let mut rng = Rng(0x0bad_cafe_f00d_d00d);
        Pieces {
            benign: benign(&mut rng),
            planted: planted(&mut rng),
        }
    })
}

const SEPARATORS: &[&str] = &["\n", " ", "\r\n", "\t", "; ", " | ", "\n\n"];

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn redaction_is_idempotent_on_any_text(
        noise in "[ -~\n\u{e9}\u{65e5}]{0,200}",
        picks in proptest::collection::vec((0usize..10_000, 0usize..10_000, 0usize..7), 0..6),
    ) {
        let p = pieces();
        let mut text = noise;
        for (b, s, sep) in picks {
            text.push_str(SEPARATORS[sep]);
            text.push_str(&p.benign[b % p.benign.len()]);
            text.push_str(SEPARATORS[(sep + 1) % SEPARATORS.len()]);
            text.push_str(&p.planted[s % p.planted.len()].0);
        }
        let once = redact(&text).into_owned();
        prop_assert_eq!(redact(&once), once.as_str());
    }

    #[test]
    fn no_planted_secret_survives(
        picks in proptest::collection::vec((0usize..10_000, 0usize..10_000, 0usize..7), 1..6),
    ) {
        let p = pieces();
        let mut text = String::new();
        let mut secrets = Vec::new();
        for (b, s, sep) in picks {
            let (line, secret) = &p.planted[s % p.planted.len()];
            text.push_str(&p.benign[b % p.benign.len()]);
            // Lines, as agents write them: a secret never shares a line
            // with an unrelated assignment.
            text.push_str(SEPARATORS[[0, 2, 6][sep % 3]]);
            text.push_str(line);
            text.push('\n');
            secrets.push(secret.clone());
        }
        let out = redact(&text);
        for secret in secrets {
            prop_assert!(!out.contains(secret.as_str()), "{} survived in {}", secret, out);
        }
    }

    #[test]
    fn benign_text_is_unchanged(
        picks in proptest::collection::vec(0usize..10_000, 1..8),
    ) {
        let p = pieces();
        let text = picks
            .iter()
            .map(|&b| p.benign[b % p.benign.len()].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        prop_assert_eq!(redact(&text), text.as_str());
    }
}

proptest! {
    #![proptest_config(config())]

    /// The `key = value` rule's groups read by hand are the ones its regex
    /// captures, for keys, quotes, operators and values of every form.
    #[test]
    fn assignment_groups_read_by_hand_are_the_regex_captures(
        key in "[/@]?_{0,2}([A-Za-z0-9]{0,4}[_.-]){0,2}[A-Za-z0-9]{0,3}(password|TOKEN|apiKey|api_key|Api-Key|api__key|secret_key|signature|key|Key|credentials|pwd|sharedAccess-Key)",
        rest in "(\\\\?[\"'])?[ \t]{0,2}(:=|=>|=|:)[ \t]{0,2}[a-z0-9\"'\\\\ \t\r\n(\\[=:<é\u{a0}-]{0,14}",
    ) {
        let text = format!("{key}{rest}");
        if let Err(why) = hand_groups_agree(&text) {
            prop_assert!(false, "{}", why);
        }
    }
}

/// The hand reader finds an assignment where the rule's regex matches, and
/// every group the regex captures.
fn hand_groups_agree(text: &str) -> Result<(), String> {
    use super::assignment::HandAssignment;
    use super::heuristics::Groups;
    let rules = super::rules::table();
    let rule = rules
        .iter()
        .find(|r| r.by_hand)
        .expect("the assignment rule");
    let caps = rule.regex().captures(text);
    let hand = HandAssignment::read(text);
    let (caps, hand) = match (caps, hand) {
        (None, None) => return Ok(()),
        (Some(_), None) => return Err(format!("no hand read of {text:?}")),
        (None, Some(_)) => return Err(format!("a hand read of {text:?}, no regex match")),
        (Some(caps), Some(hand)) => (caps, hand),
    };
    if caps.get(0).map(|m| m.end()) != Some(hand.end()) {
        return Err(format!(
            "end of {text:?}: regex {:?}, hand {}",
            caps.get(0).map(|m| m.end()),
            hand.end()
        ));
    }
    for name in [
        "lead", "key", "op", "dq", "sq", "edq", "bare", "next", "eol",
    ] {
        let by_regex = caps.name(name).map(|m| (m.start(), m.end()));
        let by_hand = Groups::name(&hand, name).map(|p| (p.start(), p.end()));
        if by_regex != by_hand {
            return Err(format!(
                "group {name} of {text:?}: regex {by_regex:?}, hand {by_hand:?}"
            ));
        }
    }
    Ok(())
}

/// Cases the property test found: a quoted value has no `next` or `eol`
/// (those belong to bare values), at the text's end or before a bracket.
#[test]
fn a_quoted_value_has_no_next_or_line_end_group() {
    for text in [
        "password:=\"\"",
        "password='x'",
        "token = \"v\"(",
        "apiKey: 'k'[\n",
    ] {
        hand_groups_agree(text).unwrap();
    }
}

/// Keys and near misses of the key grammar, read by hand and by the regex.
#[test]
fn hand_key_grammar_is_the_regex_key_grammar() {
    for key in [
        "password",
        "DB_PASSWORD",
        "__db.password",
        "dbPassword",
        "mypassword",
        "api__key",
        "x-api-key",
        "apikey",
        "Api-Key",
        "key",
        "cache_key",
        "a..key",
        "_key",
        "x_",
        "pwd",
        "sharedAccessSignature",
        "shared-access_signature",
        "AccountKey",
        "accountKey",
        "credentials",
        "myCredential",
        "Token",
        "T0ken",
        "9token",
        "x.signature",
        "_",
    ] {
        for text in [
            format!("{key}=v"),
            format!("/{key}: 'v'"),
            format!("{key} := \"v\""),
        ] {
            hand_groups_agree(&text).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// The context rule's pre-check, which skips ahead, says the same as
    /// counting each run of value bytes byte by byte (a run starting within
    /// reach, however far it goes).
    #[test]
    fn context_precheck_agrees_with_counting_runs(
        text in "[a-z0-9 ./=_-]{0,160}",
        at in 0usize..70,
    ) {
        let bytes = text.as_bytes();
        let at = at.min(bytes.len());
        let value = |b: u8| b.is_ascii_alphanumeric() || b"/+_=~.-".contains(&b);
        // Runs of value bytes with where they start, counted from `at`.
        let mut runs = Vec::new();
        let mut from = 0;
        for run in bytes[at..].split(|&b| !value(b)) {
            runs.push((from, run));
            from += run.len() + 1;
        }
        let digits_end = super::prechecks::CONTEXT_REACH + super::prechecks::CONTEXT_DIGIT_BYTES;
        let counted = runs.iter().any(|(from, run)| {
            *from <= super::prechecks::CONTEXT_REACH
                && run.len() >= 20
                && run.iter().take(digits_end.saturating_sub(*from)).any(u8::is_ascii_digit)
        });
        prop_assert_eq!(super::prechecks::opaque_run_follows(bytes, at), counted, "{:?} at {}", text, at);
    }
}

/// Where the context rule's pre-check stops at a byte that can stand
/// neither in a secret nor before it (`(`, `;`, a line's end), the rule's
/// regex finds no match: of the triggers counting the runs would let
/// through, the pre-check turns away only those. Over generated lines of a
/// secret's name, fillers, values with and without digits and such bytes,
/// at every position.
#[test]
fn context_precheck_stops_only_where_the_pattern_cannot_go_on() {
    use super::prechecks::{opaque_run_follows, CONTEXT_DIGIT_BYTES, CONTEXT_REACH};
    let engine = super::engine();
    let rule = engine
        .rules
        .iter()
        .find(|r| {
            r.precheck.is_some_and(|check| {
                std::ptr::fn_addr_eq(check, opaque_run_follows as fn(&[u8], usize) -> bool)
            })
        })
        .expect("the context rule");
    let value = |b: u8| b.is_ascii_alphanumeric() || b"/+_=~.-".contains(&b);
    // The pre-check before the stop (the test above holds it to this).
    let counted = |bytes: &[u8]| {
        let mut from = 0;
        bytes.split(|&b| !value(b)).any(|run| {
            let start = from;
            from += run.len() + 1;
            start <= CONTEXT_REACH
                && run.len() >= 20
                && run
                    .iter()
                    .take((CONTEXT_REACH + CONTEXT_DIGIT_BYTES).saturating_sub(start))
                    .any(u8::is_ascii_digit)
        })
    };
    let names = [
        "token",
        "secret",
        "api key",
        "password",
        "aws_secret_access_key",
        "x.token",
    ];
    let fillers = [
        " is ", " = ", ": ", " -> ", "=", ":", "\"", "'", "`", " ", "\t", " to ", "now",
    ];
    let stops = [
        "(", ")", ";", "{", ",", "\n", "$", "&", "<", "?", "\r\n", "[", "@", "|",
    ];
    let mut rng = Rng(0x00c0_ffee_5eed_0001);
    let (mut turned_away, mut matched, mut by_vector) = (0, 0, 0);
    for round in 0..4000 {
        let mut text = names[rng.below(names.len())].to_string();
        // Half the lines long enough for the vector look (64 bytes).
        let pieces = if round % 2 == 0 { 24 } else { rng.below(10) };
        for _ in 0..pieces {
            match rng.below(4) {
                0 => text.push_str(fillers[rng.below(fillers.len())]),
                1 => text.push_str(stops[rng.below(stops.len())]),
                _ => {
                    let len = 1 + rng.below(30);
                    let alphabet = if rng.below(2) == 0 {
                        "abcdefghijklmnopqrstuvwxyzABCXYZ_-./"
                    } else {
                        "abcXYZ0123456789+/=~_-."
                    };
                    let bytes = alphabet.as_bytes();
                    text.extend((0..len).map(|_| char::from(bytes[rng.below(bytes.len())])));
                }
            }
        }
        let bytes = text.as_bytes();
        for at in 0..bytes.len() {
            let fast = opaque_run_follows(bytes, at);
            let full = counted(&bytes[at..]);
            assert!(
                !fast || full,
                "accepted what counting turns away: {text:?} at {at}"
            );
            let found = rule.regex().find(&text[at..]);
            if full && !fast {
                assert!(found.is_none(), "turned away a match: {text:?} at {at}");
                turned_away += 1;
                by_vector += usize::from(super::prechecks::opaque_run_follows_scalar(bytes, at));
            }
            matched += usize::from(fast && found.is_some());
        }
    }
    assert!(turned_away > 1000, "the stop turned away {turned_away}");
    assert!(matched > 1000, "the rule matched {matched} times");
    // A stop the window look does not see (not the last byte of its
    // window outside the value bytes) is seen by the vector look.
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        assert!(by_vector > 1000, "the vector look turned away {by_vector}");
    }
}

/// Every hand locator (`locate.rs`) reads the groups the rule's regex
/// captures, on the match the regex finds.
fn located_groups_agree(family: &str, text: &str) -> Result<(), String> {
    use super::heuristics::Groups;
    let rules = super::rules::table();
    let rule = rules
        .iter()
        .find(|r| r.family == family && r.locate.is_some())
        .expect("a rule with a locator");
    let re = rule.regex();
    let Some(whole) = re.find(text) else {
        return Ok(());
    };
    let caps = re.captures(text).expect("a match has captures");
    let located = (rule.locate.expect("a locator"))(&text[..whole.end()]);
    for name in ["s", "scheme"] {
        let by_regex = caps.name(name).map(|m| (m.start(), m.end()));
        let by_hand = located
            .as_ref()
            .and_then(|l| Groups::name(l, name))
            .map(|p| (p.start(), p.end()));
        if by_regex != by_hand {
            return Err(format!(
                "{family}: group {name} of {text:?}: regex {by_regex:?}, hand {by_hand:?}"
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn located_groups_are_the_regex_captures(
        bearer in "(?i:bearer)[ \t]{1,2}[A-Za-z0-9._~+/=-]{14,20}=?[ a-z\"]{0,2}",
        url in "[a-z][a-z+.]{0,3}://[a-z:@]{0,5}:[a-z0-9:/@#\\\\]{0,8}@[a-z.@]{0,4}",
        aws in "(?i:aws_?secret_?(access_?)?key)(\\\\?[\"'])?[ \t]{0,2}(:=|=>|=|:|==|=:)[ \t]{0,2}(\\\\?[\"'])?[A-Za-z0-9/+=]{27,33}[ \"a-z]?",
        auth in "(proxy-)?(?i:authorization)(\\\\?[\"'])?[ \t]{0,2}[:=][ \t]{0,2}(\\\\?[\"'])?((?i:bearer|basic|token|bot|digest|ntlm|apikey|sso-key|ssws)[ \t]{0,2})?[a-zA-Z0-9\"'`;:= \t]{0,12}",
        context in "(?i:(aws[ _-]?)?secret([ _-]?access)?([ _-]?key)?|((access|refresh|auth|bearer|api|bot)[ _-]?)?token|api[ _-]?key|access[ _-]?key|private[ _-]?key|password|passphrase|credentials?)([ \t]{1,5}(?i:is|was|are|=|:|->|of|to|now|value|x)){0,4}[ \t]{0,5}[:=]{0,2}[ \t]{0,5}[\"'`]?[A-Za-z0-9/+_=~.:-]{15,26}[ .\"]?",
    ) {
        for (family, text) in [
            ("bearer-token", bearer),
            ("url-credentials", url),
            ("aws-secret-key", aws),
            ("authorization", auth),
            ("secret", context),
        ] {
            if let Err(why) = located_groups_agree(family, &text) {
                prop_assert!(false, "{}", why);
            }
        }
    }
}

/// Cases where a locator must choose as the regex does: an operator that
/// leaves too short a secret, a scheme with no secret after it.
#[test]
fn locators_choose_as_the_regex_does() {
    let key = "A".repeat(29);
    for (family, text) in [
        ("aws-secret-key", format!("aws_secret_key:={key}")),
        ("aws-secret-key", format!("AWS_SECRET_KEY := '{key}x'")),
        ("aws-secret-key", format!("awssecretkey=>{key}xy")),
        ("authorization", "Authorization: Bearer".to_string()),
        ("authorization", "Authorization: Bearer \"x\"".to_string()),
        (
            "authorization",
            "proxy-authorization=\\\"Basic   dXNlcg".to_string(),
        ),
        ("authorization", "Authorization: Basically".to_string()),
        ("url-credentials", "https://user:p@ss:w0rd@host".to_string()),
        ("url-credentials", "s3://:secret@bucket".to_string()),
        // The context rule: a filler, an operator and a value byte may be
        // the same `=` or `:`; a name may end early and leave its tail to
        // the value.
        ("secret", format!("token = = {key}")),
        ("secret", format!("token ==:{key}")),
        ("secret", format!("secret-key{key}")),
        ("secret", format!("secret_access_key is to {key}")),
        ("secret", format!("API key -> '{key}")),
        ("secret", format!("credentials:\t `{key}")),
        ("secret", format!("password is now here value {key}")),
        ("secret", format!("token\t\t\t\t\tis {key}")),
        ("secret", format!("bearer_token=.{key}")),
        ("secret", format!("token {}", "a.".repeat(20))),
    ] {
        located_groups_agree(family, &text).unwrap();
    }
}
