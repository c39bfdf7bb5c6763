//! The exact token formats of the rule table (providers' keys and tokens,
//! private keys, password hashes): the first rules, so their family names a
//! merged marker.

use super::heuristics::{
    discord_bot_token, has_letter_and_digit, mixed_case, mixed_case_and_digit, opaque_token,
    url_password,
};
use super::kinds::{name_byte, Kind};
use super::locate;
use super::prechecks::url_password_follows;
use super::rule::*;

/// The exact token formats, in priority order.
pub(super) fn families() -> Vec<Rule> {
    let mut rules = vec![
        // PEM private keys, raw or with JSON-escaped newlines. A block without
        // its END line runs to the end of the text, provided a body follows the
        // header (so code that merely mentions the header is left alone).
        Rule {
            reach: 4096,
            ..rule(
                "private-key",
                concat!(
                    r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
                    r"(?:(?s:.*?)-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
                    r"|[ \t]*(?:\r?\n|\\r\\n|\\n)[ \t]*[A-Za-z0-9+/:-](?s:.*)\z)",
                )
                .to_string(),
                Kind::Token,
                triggers(&["-----begin"], false, Then::Anything),
                Start::AtTrigger,
            )
        },
        // scheme://user:password@host -- only the password goes. A raw `/`
        // may occur in a password; `host:443/path/@scope` is a port.
        Rule {
            precheck: Some(url_password_follows),
            locate: Some(locate::url_password),
            ..rule(
                "url-credentials",
                format!(
                    r#"{B}[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:\[\]"'<>]*:(?P<s>[^\s?#@\[\]"'<>\\]+)@"#
                ),
                Kind::Checked(url_password),
                triggers(&["://"], false, Then::Anything),
                back(scheme_byte, 64),
            )
        },
        tok(
            "slack-webhook",
            &["hooks.slack.com/"],
            r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/-]+)",
        ),
        tok(
            "discord-webhook",
            &["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"],
            r"discord(?:app)?\.com/api/webhooks/[0-9]{5,}/(?P<s>[A-Za-z0-9_-]{20,})",
        ),
        // A Discord bot token standing alone: the base64 of the bot's
        // numeric id (so it starts `M`, `N` or `O` and then `D`, `T`, `j`
        // or `z`), a timestamp, an HMAC. The check decodes the id.
        checked(
            "discord-bot-token",
            &[
                "md", "mt", "mj", "mz", "nd", "nt", "nj", "nz", "od", "ot", "oj", "oz",
            ],
            r"[MNO][A-Za-z0-9]{22,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}",
            discord_bot_token,
        ),
        rule(
            "teams-webhook",
            r"webhook\.office\.com/webhookb2/(?P<s>[A-Za-z0-9@/_-]{20,})".to_string(),
            Kind::Token,
            triggers(&["webhook.office.com/"], false, Then::Anything),
            Start::AtTrigger,
        ),
        tok(
            "zapier-webhook",
            &["hooks.zapier.com/"],
            r"hooks\.zapier\.com/hooks/catch/(?P<s>[0-9]+/[A-Za-z0-9]+)",
        ),
        rule(
            "sentry-dsn",
            r"(?-u:\b)(?P<s>[a-f0-9]{32})(?::[a-f0-9]{32})?@[A-Za-z0-9.-]*sentry\.io".to_string(),
            Kind::Token,
            triggers(&["sentry.io"], false, Then::Anything),
            Start::Before(160),
        ),
        tok(
            "grafana-key",
            &["eyjrijoi"],
            r"eyJrIjoi[A-Za-z0-9+/]{50,}={0,2}",
        ),
        tok(
            "jwt",
            &["eyj"],
            r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",
        ),
        tok(
            "aws-access-key-id",
            &[
                "akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "aroa",
                "apka", "asca", "a3t",
            ],
            r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z2-7]{16}(?-u:\b)",
        ),
        Rule {
            locate: Some(locate::aws_secret),
            ..rule(
                "aws-secret-key",
                format!(
                    r"(?i-u:aws_?secret_?(?:access_?)?key){Q}[ \t]*(?::=|=>|=|:)[ \t]*{Q}(?P<s>[A-Za-z0-9/+=]{{30,}})"
                ),
                Kind::Token,
                triggers(&["aws_secret", "awssecret"], true, Then::Anything),
                Start::AtTrigger,
            )
        },
        tok("google-api-key", &["aiza"], r"AIza[0-9A-Za-z_-]{35}"),
        tok(
            "google-oauth-secret",
            &["gocspx-"],
            r"GOCSPX-[0-9A-Za-z_-]{20,}",
        ),
        tok(
            "google-oauth-token",
            &["ya29."],
            r"ya29\.[0-9A-Za-z_-]{20,}",
        ),
        tok("google-refresh-token", &["1//0"], r"1//0[0-9A-Za-z_-]{30,}"),
        tok(
            "github-token",
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
            r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
        ),
        tok(
            "gitlab-token",
            &[
                "glpat-",
                "gldt-",
                "glrt-",
                "glptt-",
                "glft-",
                "glcbt-",
                "glsoat-",
                "glimt-",
                "glagent-",
                "gloas-",
                "glffct-",
                "gr1348941",
            ],
            r"(?:gl(?:pat|dt|rt|ptt|ft|cbt|soat|imt|agent|oas|ffct)-[A-Za-z0-9_-]{20,}|GR1348941[A-Za-z0-9_-]{20,})",
        ),
        tok(
            "slack-token",
            &[
                "xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxc-", "xoxd-", "xoxe-",
                "xoxe.", "xapp-",
            ],
            r"(?:xox[abposrcde]-[A-Za-z0-9-]{10,}|xoxe\.xox[bp]-[A-Za-z0-9-]{10,}|xapp-[0-9]+-[A-Za-z0-9-]{10,})",
        ),
        tok(
            "stripe-key",
            &[
                "sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "pk_live_",
                "pk_test_", "whsec_",
            ],
            r"(?:(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,})",
        ),
        // Before openai: both start with `sk-`.
        tok("anthropic-key", &["sk-ant-"], r"sk-ant-[A-Za-z0-9_-]{20,}"),
        // `sk-` also starts kebab-case words; real keys carry digits in a
        // long run (OpenAI, OpenRouter, DeepSeek and the like).
        checked(
            "openai-key",
            &["sk-"],
            r"sk-(?:proj-|svcacct-|admin-|or-v1-|None-)?[A-Za-z0-9_-]{20,}",
            opaque_token,
        ),
        tok(
            "mapbox-token",
            &["sk.eyj"],
            r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        ),
        tok("npm-token", &["npm_"], r"npm_[A-Za-z0-9]{36,}"),
        tok("pypi-token", &["pypi-ag"], r"pypi-Ag[A-Za-z0-9_-]{50,}"),
        checked(
            "huggingface-token",
            &["hf_"],
            r"hf_[A-Za-z0-9]{34,}",
            mixed_case,
        ),
        checked(
            "huggingface-token",
            &["api_org_"],
            r"api_org_[A-Za-z0-9]{34}",
            mixed_case,
        ),
        tok(
            "sendgrid-key",
            &["sg."],
            r"SG\.[A-Za-z0-9_-]{20,24}\.[A-Za-z0-9_-]{39,50}",
        ),
        tok("twilio-key", &["sk"], r"SK[0-9a-fA-F]{32}(?-u:\b)"),
        tok("mailgun-key", &["key-"], r"key-[0-9a-f]{32}(?-u:\b)"),
        inner(
            "mailchimp-key",
            &["-us"],
            hex_byte,
            32,
            r"(?-u:\b)[0-9a-f]{32}-us[0-9]{1,2}(?-u:\b)",
        ),
        tok(
            "shopify-token",
            &["shpat_", "shpca_", "shppa_", "shpss_"],
            r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
        ),
        tok(
            "digitalocean-token",
            &["dop_v1_", "doo_v1_", "dor_v1_"],
            r"do[por]_v1_[a-f0-9]{64}",
        ),
        tok(
            "doppler-token",
            &["dp."],
            r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}",
        ),
        tok(
            "dynatrace-token",
            &["dt0c01."],
            r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}",
        ),
        tok(
            "databricks-token",
            &["dapi"],
            r"dapi[a-f0-9]{32}(?:-[0-9])?",
        ),
        tok(
            "atlassian-token",
            &["atatt3", "atctt3"],
            r"AT[AC]TT3[A-Za-z0-9_=-]{100,}",
        ),
        tok(
            "linear-key",
            &["lin_api_", "lin_oauth_"],
            r"lin_(?:api|oauth)_[A-Za-z0-9]{40}",
        ),
        tok("notion-token", &["ntn_"], r"ntn_[0-9]{11}[A-Za-z0-9]{35}"),
        checked(
            "notion-token",
            &["secret_"],
            r"secret_[A-Za-z0-9]{43}",
            mixed_case_and_digit,
        ),
        tok("postman-key", &["pmak-"], r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
        tok("pulumi-token", &["pul-"], r"pul-[a-f0-9]{40}"),
        tok(
            "grafana-token",
            &["glc_", "glsa_"],
            r"(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})",
        ),
        tok(
            "vault-token",
            &["hvs.", "hvb.", "hvr."],
            r"hv[sbr]\.[A-Za-z0-9_-]{24,}",
        ),
        inner(
            "terraform-token",
            &[".atlasv1."],
            alnum_byte,
            14,
            r"(?-u:\b)[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}",
        ),
        tok(
            "planetscale-token",
            &["pscale_tkn_", "pscale_pw_", "pscale_oauth_"],
            r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,64}",
        ),
        tok("prefect-key", &["pnu_"], r"pnu_[A-Za-z0-9]{36}"),
        tok("readme-key", &["rdme_"], r"rdme_[a-z0-9]{70}"),
        tok("rubygems-key", &["rubygems_"], r"rubygems_[a-f0-9]{48}"),
        tok(
            "sentry-token",
            &["sntrys_", "sntryu_"],
            r"sntry[su]_[A-Za-z0-9+/=_-]{40,}",
        ),
        tok(
            "shippo-token",
            &["shippo_live_", "shippo_test_"],
            r"shippo_(?:live|test)_[a-fA-F0-9]{40}",
        ),
        tok(
            "square-token",
            &["sq0atp-", "sq0csp-", "eaaa"],
            r"(?:sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}|EAAA[A-Za-z0-9_-]{60,})",
        ),
        checked(
            "facebook-token",
            &["eaa"],
            r"EAA[A-Za-z0-9]{80,}",
            mixed_case_and_digit,
        ),
        tok(
            "flutterwave-key",
            &["flwseck", "flwpubk"],
            r"FLW(?:SECK|PUBK)(?:_TEST)?-[A-Za-z0-9]{12,32}(?:-X)?",
        ),
        tok("frameio-token", &["fio-u-"], r"fio-u-[A-Za-z0-9_=-]{64}"),
        tok(
            "duffel-token",
            &["duffel_test_", "duffel_live_"],
            r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}",
        ),
        tok("easypost-key", &["ezak", "eztk"], r"EZ[AT]K[A-Za-z0-9]{54}"),
        checked(
            "adobe-secret",
            &["p8e-"],
            r"p8e-[A-Za-z0-9]{32}",
            has_letter_and_digit,
        ),
        tok(
            "age-secret-key",
            &["age-secret-key-1"],
            r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        ),
        checked(
            "alibaba-key",
            &["ltai"],
            r"LTAI[A-Za-z0-9]{20}",
            has_letter_and_digit,
        ),
        tok("clojars-token", &["clojars_"], r"CLOJARS_[a-z0-9]{60}"),
        tok(
            "cloudflare-origin-ca-key",
            &["v1.0-"],
            r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}",
        ),
        tok("contentful-token", &["cfpat-"], r"CFPAT-[A-Za-z0-9_-]{43}"),
        tok(
            "defined-networking-key",
            &["dnkey-"],
            r"dnkey-[a-z0-9=_-]{26}-[a-z0-9=_-]{52}",
        ),
        tok(
            "docker-token",
            &["dckr_pat_", "dckr_oat_"],
            r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}",
        ),
        tok(
            "flyio-token",
            &["fo1_", "fm1a_", "fm1r_", "fm2_"],
            r"(?:fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/=_-]{40,}|fm2_[A-Za-z0-9+/=_-]{40,})",
        ),
        tok("heroku-key", &["hrku-"], r"HRKU-[A-Za-z0-9_-]{58,}"),
        checked(
            "infracost-key",
            &["ico-"],
            r"ico-[A-Za-z0-9]{32}",
            has_letter_and_digit,
        ),
        tok(
            "intra42-secret",
            &["s-s4t2"],
            r"s-s4t2(?:ud|af)-[a-f0-9]{64}",
        ),
        tok(
            "jfrog-token",
            &["akcp", "cmvmdgtu"],
            r"(?:AKCp[A-Za-z0-9]{69}|cmVmdGtu[A-Za-z0-9]{56})",
        ),
        tok(
            "newrelic-key",
            &["nrak-", "nrjs-", "nrii-"],
            r"(?:NRAK-[A-Z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9_-]{32})",
        ),
        tok(
            "launchdarkly-key",
            &["api-", "sdk-"],
            r"(?:api|sdk)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}",
        ),
        checked(
            "octopus-key",
            &["api-"],
            r"API-[A-Z0-9]{26}",
            has_letter_and_digit,
        ),
        tok("openshift-token", &["sha256~"], r"sha256~[A-Za-z0-9_-]{43}"),
        tok("perplexity-key", &["pplx-"], r"pplx-[A-Za-z0-9]{48}"),
        tok("groq-key", &["gsk_"], r"gsk_[A-Za-z0-9]{52}"),
        tok("xai-key", &["xai-"], r"xai-[A-Za-z0-9]{70,}"),
        checked(
            "replicate-token",
            &["r8_"],
            r"r8_[A-Za-z0-9]{37}",
            has_letter_and_digit,
        ),
        tok(
            "langsmith-key",
            &["lsv2_pt_", "lsv2_sk_"],
            r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}",
        ),
        tok("pinecone-key", &["pcsk_"], r"pcsk_[A-Za-z0-9_]{40,}"),
        tok(
            "tavily-key",
            &["tvly-"],
            r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}",
        ),
        tok("firecrawl-key", &["fc-"], r"fc-[a-f0-9]{32}(?-u:\b)"),
        tok("jina-key", &["jina_"], r"jina_[A-Za-z0-9_-]{50,}"),
        checked(
            "cerebras-key",
            &["csk-"],
            r"csk-[a-z0-9]{48}",
            has_letter_and_digit,
        ),
        tok("elevenlabs-key", &["sk_"], r"sk_[a-f0-9]{48}(?-u:\b)"),
        tok(
            "browserbase-key",
            &["bb_live_"],
            r"bb_live_[A-Za-z0-9_-]{27,}",
        ),
        tok("scalingo-token", &["tk-us-"], r"tk-us-[A-Za-z0-9_-]{48}"),
        tok(
            "sonarqube-token",
            &["squ_", "sqp_", "sqa_"],
            r"sq[upa]_[a-f0-9]{40}",
        ),
        inner(
            "telegram-bot-token",
            &[":aa"],
            digit_byte,
            16,
            r"(?-u:\b)[0-9]{5,16}:AA[A-Za-z0-9_-]{33}",
        ),
        tok("typeform-token", &["tfp_"], r"tfp_[A-Za-z0-9_.=-]{59}"),
        checked(
            "vercel-token",
            &["vcp_", "vci_", "vca_", "vcr_", "vck_"],
            r"vc[pikar]_[A-Za-z0-9]{24,}",
            has_letter_and_digit,
        ),
        tok(
            "yandex-key",
            &["aqvn", "y0_", "y1_", "y2_", "y3_", "t1."],
            r"(?:AQVN[A-Za-z0-9_-]{35,38}|y[0-3]_[A-Za-z0-9_-]{55,199}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2})",
        ),
        inner(
            "azure-client-secret",
            &["q~"],
            azure_byte,
            4,
            r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
        ),
        tok(
            "1password-token",
            &["ops_eyj", "a3-"],
            r"(?:ops_eyJ[A-Za-z0-9+/=]{100,}|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})",
        ),
        tok(
            "airtable-token",
            &["pat"],
            r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}",
        ),
        checked("beamer-key", &["b_"], r"b_[A-Za-z0-9=_-]{44}", opaque_token),
        tok(
            "braintree-token",
            &["access_token$"],
            r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}",
        ),
        checked(
            "dropbox-token",
            &["sl."],
            r"sl\.[A-Za-z0-9_=-]{120,}",
            opaque_token,
        ),
        checked(
            "gocardless-token",
            &["live_"],
            r"live_[A-Za-z0-9_=-]{40}",
            opaque_token,
        ),
        tok(
            "harness-token",
            &["pat."],
            r"pat\.[A-Za-z0-9_-]{22}\.[0-9a-f]{24}\.[A-Za-z0-9]{20}",
        ),
        inner(
            "maxmind-key",
            &["_mmk"],
            name_byte,
            36,
            r"(?-u:\b)[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk",
        ),
        tok(
            "plaid-token",
            &[
                "access-sandbox-",
                "access-development-",
                "access-production-",
            ],
            r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        ),
        tok(
            "brevo-key",
            &["xkeysib-", "xsmtpsib-"],
            r"x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}",
        ),
        tok(
            "settlemint-token",
            &["sm_pat_", "sm_aat_", "sm_sat_"],
            r"sm_(?:pat|aat|sat)_[A-Za-z0-9]{16}",
        ),
        tok(
            "tailscale-key",
            &["tskey-"],
            r"tskey-(?:api|auth|client|webhook|scim)-[A-Za-z0-9]+-[A-Za-z0-9]+",
        ),
        tok("nuget-key", &["oy2"], r"oy2[a-z0-9]{43}"),
        tok(
            "salesforce-token",
            &["00d"],
            r"00D[A-Za-z0-9]{12,15}![A-Za-z0-9_.]{80,}",
        ),
        tok(
            "sourcegraph-token",
            &["sgp_"],
            r"sgp_(?:(?:[a-f0-9]{16}|local)_)?[a-f0-9]{40}",
        ),
        tok(
            "supabase-key",
            &["sbp_", "sb_secret_"],
            r"(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{20,})",
        ),
        tok(
            "twitter-bearer-token",
            &["aaaaaaaaaaaaaaaaaaaaa"],
            r"A{21}[A-Za-z0-9%]{30,}",
        ),
        tok(
            "firebase-server-key",
            &["aaaa"],
            r"AAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{140}",
        ),
        tok("buildkite-token", &["bkua_"], r"bkua_[a-f0-9]{40}"),
        tok("deno-token", &["ddp_", "ddw_"], r"dd[pw]_[A-Za-z0-9]{36}"),
        tok("render-key", &["rnd_"], r"rnd_[A-Za-z0-9]{32}"),
        tok("netlify-token", &["nfp_"], r"nfp_[A-Za-z0-9]{36}"),
        tok("neon-key", &["napi_"], r"napi_[a-z0-9]{64}"),
        checked(
            "crates-io-token",
            &["cio"],
            r"cio[A-Za-z0-9]{32}",
            mixed_case_and_digit,
        ),
        tok(
            "circleci-token",
            &["ccipat_"],
            r"CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}",
        ),
        // Password hashes (crypt formats): offline-crackable, never needed
        // in a goal record.
        tok(
            "password-hash",
            &["$2a$", "$2b$", "$2y$", "$1$", "$5$", "$6$", "$apr1$"],
            r"(?:\$2[aby]\$[0-9]{2}\$[./A-Za-z0-9]{53}|\$(?:1|5|6|apr1)\$[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{22,86})",
        ),
    ];
    // `$2a$` etc. start with `$`, not a word byte.
    for rule in &mut rules {
        for t in &mut rule.triggers {
            if !t.lit.as_bytes()[0].is_ascii_alphanumeric() && t.lit.as_bytes()[0] != b'_' {
                t.word_start = false;
            }
        }
    }
    rules
}
