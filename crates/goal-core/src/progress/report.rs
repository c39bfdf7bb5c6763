//! The goal report: one self-contained HTML page (inline CSS and SVG, no
//! script, no external file, a Content-Security-Policy that forbids fetching
//! anything) showing the objective and status, the completion gate as a
//! checklist with evidence, requirements against coverage, the timeline and
//! budget use. Every text from the record is redacted (as it stands, then
//! again as the page quotes it) and HTML-escaped here: a record written by
//! another writer (an earlier release, the JavaScript system, a hand edit)
//! may hold what redaction would have taken, and the page is meant to be
//! shared.

use std::fmt::Write as _;

use super::timeline::{tool_kind_name, EventKind, Timeline};
use super::{budget_use, checklist, coverage, elapsed_ms, human_duration, human_tokens};
use crate::clock;
use crate::record::Goal;

/// Redacted, then `&`, `<`, `>`, `"` and `'` as entities: safe in text and
/// in quoted attributes.
pub fn escape(text: &str) -> String {
    let text = crate::redact::redact(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa;
--insp:#0969da;--act:#8250df;--ver:#1a7f37;--del:#bf8700;--oth:#6e7781}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;margin:0 auto;max-width:1060px;padding:24px}
h1{font-size:1.5em;margin:.2em 0 .4em}h2{font-size:1.15em;border-bottom:1px solid var(--line);padding-bottom:.2em;margin-top:1.6em}
.meta{color:var(--muted);margin:.2em 0}.meta code{font-size:.9em}
.badge{display:inline-block;padding:.1em .6em;border-radius:1em;font-weight:600;font-size:.9em;border:1px solid currentColor}
.s-active,.s-draft{color:var(--insp)}.s-complete{color:var(--ok)}.s-blocked{color:var(--warn)}.s-cancelled{color:var(--muted)}
.reason{background:var(--bg);border-left:4px solid var(--warn);padding:.4em .8em}
.checklist{list-style:none;padding:0}.checklist>li{border:1px solid var(--line);border-radius:6px;padding:.5em .8em;margin:.4em 0}
.checklist>li.met{border-left:6px solid var(--ok)}.checklist>li.unmet{border-left:6px solid var(--bad)}
.mark{font-weight:700;display:inline-block;width:1.3em}.met .mark,.met .state{color:var(--ok)}.unmet .mark,.unmet .state{color:var(--bad)}
.state{font-size:.85em;text-transform:uppercase;letter-spacing:.04em;margin-left:.4em}
.checklist ul{margin:.3em 0 0 1.3em;padding-left:1em}.why{color:var(--bad)}.evidence{color:#1f2328}
table{border-collapse:collapse;width:100%}th,td{border:1px solid var(--line);padding:.35em .6em;text-align:left;vertical-align:top}
th{background:var(--bg)}td.yes{color:var(--ok);font-weight:600}td.no{color:var(--bad);font-weight:600}
.meter{height:12px;background:var(--bg);border:1px solid var(--line);border-radius:6px;overflow:hidden;max-width:420px}
.meter>span{display:block;height:100%;background:var(--insp)}.meter.over>span{background:var(--bad)}
.lists{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:0 2em}
svg{max-width:100%;height:auto;font:11px system-ui,sans-serif}
.lane-label{fill:var(--muted)}.lane{stroke:var(--line)}.axis{fill:var(--muted)}
.tk-inspection{fill:var(--insp)}.tk-action{fill:var(--act)}.tk-verification{fill:var(--ver)}.tk-delegation{fill:var(--del)}.tk-other{fill:var(--oth)}
.ev-opened,.ev-replaced,.ev-continued{fill:var(--insp)}.ev-updated{fill:var(--ok)}.ev-drift-warning{fill:var(--warn)}
.ev-drift-denied,.ev-close-refused,.ev-claim-denied{fill:var(--bad)}.ev-stop-blocked,.ev-loop-guard{fill:#bc4c00}
.ev-closed{fill:#1f2328}.ev-compact,.ev-other{fill:var(--oth)}
.legend span{display:inline-block;margin-right:1em;color:var(--muted)}.legend i{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.3em;vertical-align:-1px}
ol.events{padding-left:0;list-style:none;font-size:.92em}ol.events li{padding:.15em 0;border-bottom:1px dotted var(--line)}
ol.events time{color:var(--muted);font-variant-numeric:tabular-nums;margin-right:.6em}
.kind{display:inline-block;min-width:9em;font-weight:600}
footer{color:var(--muted);margin-top:2em;font-size:.85em}
@media print{body{max-width:none;padding:0;font-size:10.5pt}h2{break-after:avoid}.checklist>li,tr,svg{break-inside:avoid}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}a{color:inherit;text-decoration:none}}
"#;

fn list(out: &mut String, class: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    let _ = write!(out, "<ul class=\"{class}\">");
    for item in items {
        let _ = write!(out, "<li>{}</li>", escape(item));
    }
    out.push_str("</ul>");
}

fn section_lists(out: &mut String, goal: &Goal) {
    let groups: [(&str, &[String]); 5] = [
        ("Done so far", &goal.done_so_far),
        ("Remaining", &goal.remaining),
        ("Blockers", &goal.blockers),
        ("Verification results", &goal.verification_results),
        ("Discovered issues", &goal.discovered_issues),
    ];
    out.push_str("<section id=\"work\"><h2>Work</h2><div class=\"lists\">");
    for (title, items) in groups {
        let _ = write!(out, "<div><h3>{title} ({})</h3>", items.len());
        if items.is_empty() {
            out.push_str("<p class=\"meta\">none</p>");
        }
        list(out, "items", items);
        out.push_str("</div>");
    }
    out.push_str("</div></section>");
}

const LANES: [&str; 6] = [
    "goal",
    "inspection",
    "action",
    "verification",
    "delegation",
    "other",
];

/// The timeline as an inline SVG: one lane per tool kind (a tick per call)
/// and one for the goal's own events (updates, drift, stops, refusals, close).
fn timeline_svg(out: &mut String, goal: &Goal, t: &Timeline, now_ms: u64) {
    const W: f64 = 1000.0;
    const LEFT: f64 = 110.0;
    const RIGHT: f64 = 16.0;
    const LANE_H: f64 = 26.0;
    const TOP: f64 = 8.0;
    let start = t
        .events
        .iter()
        .map(|e| e.at_ms)
        .filter(|&m| m > 0)
        .min()
        .unwrap_or(now_ms);
    let mut end = t.events.iter().map(|e| e.at_ms).max().unwrap_or(now_ms);
    if goal.is_open() {
        end = end.max(now_ms);
    }
    let span = end.saturating_sub(start).max(1) as f64;
    let x = |ms: u64| LEFT + (ms.saturating_sub(start) as f64 / span) * (W - LEFT - RIGHT);
    let height = TOP + LANE_H * LANES.len() as f64 + 24.0;
    let _ = write!(
        out,
        "<svg id=\"timeline-chart\" role=\"img\" viewBox=\"0 0 {W} {height}\" width=\"{W}\" height=\"{height}\" xmlns=\"http://www.w3.org/2000/svg\"><title>Timeline of goal {}</title>",
        escape(&goal.id)
    );
    for (i, lane) in LANES.iter().enumerate() {
        let y = TOP + LANE_H * i as f64 + LANE_H / 2.0;
        let _ = write!(
            out,
            "<text class=\"lane-label\" x=\"4\" y=\"{:.1}\">{lane}</text><line class=\"lane\" x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/>",
            y + 4.0,
            W - RIGHT
        );
    }
    for e in &t.events {
        let cx = x(e.at_ms);
        let tip = format!("{} {} {}: {}", e.at, e.kind.as_str(), e.name, e.detail);
        if e.kind == EventKind::Tool {
            let kind = e.tool_kind.map_or("other", tool_kind_name);
            let lane = LANES
                .iter()
                .position(|l| *l == kind)
                .unwrap_or(LANES.len() - 1);
            let y = TOP + LANE_H * lane as f64 + 5.0;
            let _ = write!(
                out,
                "<rect class=\"tool tk-{kind}\" x=\"{:.1}\" y=\"{y:.1}\" width=\"3\" height=\"{:.1}\"><title>{}</title></rect>",
                cx - 1.5,
                LANE_H - 10.0,
                escape(&tip)
            );
        } else {
            let cy = TOP + LANE_H / 2.0;
            let _ = write!(
                out,
                "<circle class=\"event ev-{}\" cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"6\"><title>{}</title></circle>",
                e.kind.as_str(),
                escape(&tip)
            );
        }
    }
    let axis_y = TOP + LANE_H * LANES.len() as f64 + 14.0;
    for (ms, anchor) in [
        (start, "start"),
        (start + (end - start) / 2, "middle"),
        (end, "end"),
    ] {
        let _ = write!(
            out,
            "<text class=\"axis\" x=\"{:.1}\" y=\"{axis_y:.1}\" text-anchor=\"{anchor}\">{}</text>",
            x(ms),
            escape(&clock::iso_from_ms(ms)[..16].replace('T', " "))
        );
    }
    out.push_str("</svg>");
}

fn legend(out: &mut String) {
    out.push_str("<p class=\"legend\">");
    for (class, label) in [
        ("tk-inspection", "inspection"),
        ("tk-action", "action"),
        ("tk-verification", "verification"),
        ("tk-delegation", "delegation"),
        ("ev-updated", "update"),
        ("ev-drift-warning", "drift warning"),
        ("ev-drift-denied", "denial / refused close"),
        ("ev-stop-blocked", "blocked stop"),
        ("ev-closed", "close"),
    ] {
        let _ = write!(
            out,
            "<span><svg width=\"10\" height=\"10\" aria-hidden=\"true\"><rect class=\"{class}\" width=\"10\" height=\"10\"/></svg> {label}</span>"
        );
    }
    out.push_str("</p>");
}

/// The whole page for `goal` and its timeline, as of `now_ms`.
pub fn render(goal: &Goal, t: &Timeline, now_ms: u64) -> String {
    // Each text redacted as it stands, before the page quotes it (the gate
    // names a requirement in its own sentence).
    let goal = &goal.redacted();
    let mut out = String::with_capacity(32 * 1024);
    let status = goal.completion_status.as_str();
    let _ = write!(
        out,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
<title>Goal {}: {}</title><style>{STYLE}</style></head><body>",
        escape(&goal.id),
        escape(&crate::redact::truncate(&goal.objective, 80))
    );

    // Objective and status.
    let _ = write!(
        out,
        "<header id=\"summary\"><p class=\"meta\">Goal <code>{}</code> · session <code>{}</code></p><h1 id=\"objective\">{}</h1>\
<p><span id=\"status\" class=\"badge s-{status}\">{}</span>",
        escape(&goal.id),
        escape(&goal.session_id),
        escape(&goal.objective),
        escape(goal.status_label())
    );
    if let Some(ms) = elapsed_ms(goal, now_ms) {
        let _ = write!(
            out,
            " <span class=\"meta\">{} {}</span>",
            if goal.is_open() {
                "running for"
            } else {
                "took"
            },
            human_duration(ms)
        );
    }
    out.push_str("</p>");
    let _ = write!(
        out,
        "<p class=\"meta\">Folder <code>{}</code> · opened {} · updated {}{}</p>",
        escape(&goal.cwd),
        escape(&goal.created_at),
        escape(&goal.updated_at),
        goal.closed_at
            .as_ref()
            .map_or(String::new(), |c| format!(" · closed {}", escape(c)))
    );
    if let Some(reason) = &goal.status_reason {
        let _ = write!(out, "<p class=\"reason\">{}</p>", escape(reason));
    }
    out.push_str("</header>");
    let voice = crate::messages::voice_lines(goal);
    if !voice.is_empty() {
        out.push_str("<section id=\"voice\"><h2>Your commands</h2>");
        list(&mut out, "voice", &voice);
        out.push_str("</section>");
    }

    // Budget and usage.
    if let Some(b) = budget_use(goal) {
        out.push_str("<section id=\"budget\"><h2>Budget</h2>");
        match (b.limit, b.percent) {
            (Some(limit), Some(p)) => {
                let _ = write!(
                    out,
                    "<p>{} of {} tokens used ({p}%)</p><div class=\"meter{}\" role=\"meter\" aria-valuemin=\"0\" aria-valuemax=\"{limit}\" aria-valuenow=\"{}\"><span style=\"width:{}%\"></span></div>",
                    human_tokens(b.used),
                    human_tokens(limit),
                    if p > 100 { " over" } else { "" },
                    b.used,
                    p.min(100)
                );
            }
            _ => {
                let _ = write!(
                    out,
                    "<p>{} tokens used (no budget set)</p>",
                    human_tokens(b.used)
                );
            }
        }
        out.push_str("</section>");
    }

    // The completion gate.
    let items = checklist(goal);
    let met = items.iter().filter(|i| i.met).count();
    let _ = write!(
        out,
        "<section id=\"gate\"><h2>Completion gate</h2><p><strong>{met} of {}</strong> conditions met{}</p><ul class=\"checklist\">",
        items.len(),
        if met == items.len() { " — the goal may close as complete" } else { "" }
    );
    for item in &items {
        let (class, mark, state) = if item.met {
            ("met", "✓", "met")
        } else {
            ("unmet", "✗", "unmet")
        };
        let _ = write!(
            out,
            "<li class=\"{class}\" data-field=\"{}\"><span class=\"mark\" aria-hidden=\"true\">{mark}</span><strong>{}</strong><span class=\"state\">{state}</span> <code class=\"meta\">{}</code>",
            escape(&item.field),
            escape(&item.label),
            escape(&item.field)
        );
        list(&mut out, "why", &item.unmet);
        list(&mut out, "evidence", &item.evidence);
        out.push_str("</li>");
    }
    out.push_str("</ul></section>");

    // Requirements against coverage.
    let cov = coverage(goal);
    out.push_str("<section id=\"requirements\"><h2>Requirements and coverage</h2>");
    if cov.is_empty() {
        out.push_str("<p class=\"meta\">No requirements recorded.</p>");
    } else {
        out.push_str("<table><thead><tr><th>Requirement</th><th>Covered</th><th>Coverage evidence</th></tr></thead><tbody>");
        for c in &cov {
            let _ = write!(
                out,
                "<tr class=\"{}\"><td>{}</td><td class=\"{}\">{}</td><td>",
                if c.covered { "covered" } else { "uncovered" },
                escape(&c.requirement),
                if c.covered { "yes" } else { "no" },
                if c.covered { "yes" } else { "no" }
            );
            list(&mut out, "entries", &c.entries);
            out.push_str("</td></tr>");
        }
        out.push_str("</tbody></table>");
    }
    out.push_str("</section>");

    section_lists(&mut out, goal);

    // Timeline.
    let tt = &t.tools;
    let _ = write!(
        out,
        "<section id=\"timeline\"><h2>Timeline</h2><p class=\"meta\">{} tool calls: {} inspection, {} action, {} verification, {} delegation{}</p>",
        tt.total,
        tt.inspections,
        tt.actions,
        tt.verifications,
        tt.delegations,
        if tt.shown < tt.total { format!(" (the chart shows the last {})", tt.shown) } else { String::new() }
    );
    timeline_svg(&mut out, goal, t, now_ms);
    legend(&mut out);
    out.push_str("<ol class=\"events\">");
    for e in &t.events {
        let kind = match (e.kind, e.tool_kind) {
            (EventKind::Tool, Some(k)) => format!("tool · {}", tool_kind_name(k)),
            (EventKind::Other, _) => e.name.clone(),
            (k, _) => k.as_str().to_string(),
        };
        let what = e.detail.clone();
        let _ = write!(
            out,
            "<li class=\"event-row ev-row-{}\"><time datetime=\"{}\">{}</time><span class=\"kind\">{}</span> {}</li>",
            e.kind.as_str(),
            escape(&e.at),
            escape(&e.at.get(..19).unwrap_or(&e.at).replace('T', " ")),
            escape(&kind),
            escape(&what)
        );
    }
    out.push_str("</ol></section>");
    let _ = writeln!(
        out,
        "<footer>Generated by goal-system at {}. This page is self-contained: it loads nothing and runs no script.</footer></body></html>",
        escape(&clock::iso_from_ms(now_ms))
    );
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::goal;
    use super::super::timeline::build;
    use super::*;
    use crate::record::Status;

    #[test]
    fn record_text_is_escaped_everywhere() {
        let mut g = goal(Status::Active);
        g.objective = "<script>alert('x')</script> & \"more\"".into();
        g.done_so_far = vec!["<img src=x onerror=alert(1)>".into()];
        g.requirements = vec!["R1: <b>bold</b>".into()];
        let html = render(&g, &build(&g, &[]), 0);
        assert!(!html.contains("<script>"));
        assert!(!html.contains("<img"));
        assert!(!html.contains("<b>bold"));
        assert!(
            html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;")
        );
    }

    #[test]
    fn the_page_loads_nothing_from_outside() {
        let g = goal(Status::Draft);
        let html = render(&g, &build(&g, &[]), 0);
        assert!(html.contains("default-src 'none'"));
        for needle in [
            "<script",
            "<link",
            "src=\"http",
            "href=\"http",
            "@import",
            "url(",
        ] {
            assert!(!html.contains(needle), "{needle}");
        }
    }

    #[test]
    fn the_checklist_marks_each_condition_and_the_budget_appears_when_set() {
        let mut g = goal(Status::Active);
        g.done_so_far = vec!["rewrote the parser".into()];
        g.budget.token_budget = Some(1000);
        g.budget.tokens_used = 1500;
        let html = render(&g, &build(&g, &[]), 0);
        assert!(html.contains("<li class=\"met\" data-field=\"doneSoFar\">"));
        assert!(html.contains("<li class=\"unmet\" data-field=\"validationProof\">"));
        assert!(html.contains("id=\"budget\""));
        assert!(html.contains("meter over"));
        g.budget = Default::default();
        assert!(!render(&g, &build(&g, &[]), 0).contains("id=\"budget\""));
    }

    #[test]
    fn a_command_refused_as_not_the_users_is_shown_with_when_and_why() {
        let mut g = goal(Status::Active);
        assert!(!render(&g, &build(&g, &[]), 0).contains("id=\"voice\""));
        g.voice.refused.push(crate::record::RefusedCommand {
            at: "2026-11-26T10:00:00Z".into(),
            command: "/goal cancel: done enough".into(),
            why: "its process chain is not the host's".into(),
        });
        let html = render(&g, &build(&g, &[]), 0);
        assert!(html.contains("id=\"voice\""));
        assert!(html.contains(
            "Refused as not from the user: /goal cancel: done enough at 2026-11-26T10:00:00Z"
        ));
        assert!(crate::messages::summary(&g).contains("Refused as not from the user"));
    }
}
