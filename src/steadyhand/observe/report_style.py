"""The session report's stylesheet and its one small script, inlined into every report.

Kept apart from report.py so the markup logic reads on its own. The report's
Content-Security-Policy allows exactly these two texts (by hash), so nothing injected
into the page can run or load.
"""

from __future__ import annotations

CSS = """
:root {
  --bg: #f5f6f8; --card: #fff; --ink: #1f2328; --muted: #5d6670; --line: #d9dee4;
  --ok: #1a7f37; --ok-bg: #dafbe1; --bad: #c3212b; --bad-bg: #ffebe9; --bad-line: #ffb3ad;
  --warn: #8a5a00; --warn-bg: #fff4c2; --hint: #0a5fc2; --hint-bg: #e4f1ff;
  --mono: ui-monospace, "SFMono-Regular", "Cascadia Mono", "DejaVu Sans Mono", Menlo,
    Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1216; --card: #171b21; --ink: #e6e9ed; --muted: #9aa4af; --line: #2d343c;
    --ok: #4ac26b; --ok-bg: #12301c; --bad: #ff7b72; --bad-bg: #3a1518; --bad-line: #6e2a2a;
    --warn: #e3b341; --warn-bg: #3a2e0c; --hint: #79c0ff; --hint-bg: #0f2a45;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans",
    "DejaVu Sans", sans-serif;
}
main { max-width: 1080px; margin: 0 auto; padding: 32px 24px 64px; }
code, pre, .mono { font-family: var(--mono); font-size: 13px; }
a { color: var(--hint); }
h1 { font-size: 26px; line-height: 1.2; margin: 0 0 4px; letter-spacing: -0.01em; }
h1 .name { font-family: var(--mono); font-size: 24px; }
h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted);
  margin: 0 0 8px; font-weight: 600; }
.sub { color: var(--muted); margin: 0 0 20px; }
.status { display: inline-block; padding: 0 8px; border-radius: 999px; font-size: 12px;
  border: 1px solid var(--line); color: var(--muted); margin-left: 6px; vertical-align: 3px; }
.summary { background: var(--card); border: 1px solid var(--line); border-radius: 12px;
  padding: 20px 24px; margin-bottom: 28px; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(130px, 1fr));
  gap: 12px; margin: 0 0 18px; padding: 0; list-style: none; }
.stats li { border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px; }
.stats b { display: block; font-size: 22px; font-variant-numeric: tabular-nums; }
.stats span { color: var(--muted); font-size: 13px; }
.stats .bad b { color: var(--bad); }
.stats .warn b { color: var(--warn); }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr));
  gap: 18px 28px; }
.facts h2.gap { margin-top: 14px; }
.chips { display: flex; flex-wrap: wrap; gap: 6px; margin: 0; padding: 0; list-style: none; }
.chips li { background: var(--bg); border: 1px solid var(--line); border-radius: 6px;
  padding: 1px 8px; font-size: 13px; }
.chips li.bad { background: var(--bad-bg); border-color: var(--bad-line); color: var(--bad); }
.chips small { color: var(--muted); }
.chips li.bad small { color: inherit; opacity: .8; }
.failures { margin: 0; padding: 0; list-style: none; font-size: 14px; }
.failures li { padding: 3px 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.failures code { color: var(--bad); }
.strip { display: flex; flex-wrap: wrap; gap: 3px; margin-top: 18px; }
.strip a { width: 12px; height: 12px; border-radius: 3px; background: var(--ok); opacity: .55; }
.strip a.retried { background: var(--warn); opacity: .8; }
.strip a.failed { background: var(--bad); opacity: 1; }
.strip a:hover { opacity: 1; outline: 2px solid var(--ink); }
.toolbar { display: flex; align-items: center; gap: 18px; margin: 0 0 12px; }
.toolbar h2 { margin: 0; }
.toolbar label { display: flex; align-items: center; gap: 6px; font-size: 14px;
  color: var(--muted); user-select: none; cursor: pointer; }
#only-failed { width: 15px; height: 15px; margin: 0; accent-color: var(--bad); }
.shown { margin-left: auto; color: var(--muted); font-size: 13px; }
.timeline { list-style: none; margin: 0; padding: 0 0 0 22px; border-left: 2px solid var(--line); }
.action { position: relative; background: var(--card); border: 1px solid var(--line);
  border-radius: 10px; padding: 12px 16px; margin: 0 0 12px; scroll-margin-top: 16px; }
.action::before { content: ""; position: absolute; left: -30px; top: 17px; width: 12px;
  height: 12px; border-radius: 50%; background: var(--ok); border: 2px solid var(--bg); }
.action.failed { border-color: var(--bad-line); border-left: 4px solid var(--bad);
  padding-left: 13px; }
.action.failed::before { background: var(--bad); }
.action:target { outline: 2px solid var(--hint); }
body:has(#only-failed:checked) .action.ok { display: none; }
.head { display: flex; align-items: baseline; flex-wrap: wrap; gap: 4px 10px; }
.seq { color: var(--muted); font-size: 13px; text-decoration: none;
  font-variant-numeric: tabular-nums; }
.clock { color: var(--muted); font-size: 13px; font-variant-numeric: tabular-nums; }
.cmd { font-weight: 650; font-size: 16px; }
.badge { font-size: 12px; font-weight: 600; padding: 1px 8px; border-radius: 999px;
  background: var(--ok-bg); color: var(--ok); }
.failed .badge { background: var(--bad-bg); color: var(--bad); }
.badge.retries { background: var(--warn-bg); color: var(--warn); }
.badge.plain { background: var(--bg); color: var(--muted); font-weight: 500; }
.right { margin-left: auto; display: flex; gap: 10px; color: var(--muted); font-size: 13px;
  font-variant-numeric: tabular-nums; }
.slow { color: var(--warn); font-weight: 600; }
.params { display: flex; flex-wrap: wrap; gap: 4px 6px; margin: 8px 0 0; }
.params code { background: var(--bg); border: 1px solid var(--line); border-radius: 5px;
  padding: 0 6px; overflow-wrap: anywhere; }
.params code i { font-style: normal; color: var(--muted); }
.page, .note { margin: 6px 0 0; color: var(--muted); font-size: 14px; overflow-wrap: anywhere; }
.page b { color: var(--ink); font-weight: 550; }
.problem { margin: 10px 0 0; border-radius: 8px; overflow: hidden;
  border: 1px solid var(--bad-line); }
.problem p { margin: 0; padding: 8px 12px; overflow-wrap: anywhere; }
.problem .error { background: var(--bad-bg); color: var(--ink); }
.problem .error code { color: var(--bad); font-weight: 600; margin-right: 6px; }
.problem .hint { background: var(--hint-bg); }
.problem .hint b { color: var(--hint); margin-right: 6px; }
details.changes { margin: 8px 0 0; }
details.changes summary { cursor: pointer; color: var(--muted); font-size: 13px; }
details.changes pre { margin: 6px 0 0; padding: 8px 12px; background: var(--bg);
  border-radius: 8px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 320px;
  overflow: auto; }
.shots { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 12px;
  margin: 12px 0 0; }
.shot { margin: 0; }
.shot.zoomed { grid-column: 1 / -1; }
.shot img { display: block; width: 100%; height: auto; border: 1px solid var(--line);
  border-radius: 6px; cursor: zoom-in; background: #fff; }
.shot.zoomed img { cursor: zoom-out; }
.shot figcaption { font-size: 12px; color: var(--muted); margin: 0 0 4px;
  text-transform: uppercase; letter-spacing: .05em; font-weight: 600; }
.shot.failure figcaption { color: var(--bad); }
.missing { border: 1px dashed var(--line); border-radius: 6px; padding: 16px; color: var(--muted);
  font-size: 13px; overflow-wrap: anywhere; min-height: 80px; }
.files { margin: 10px 0 0; padding: 0; list-style: none; font-size: 13px; }
.files li { overflow-wrap: anywhere; color: var(--muted); }
.files b { color: var(--ink); font-weight: 600; }
.empty { background: var(--card); border: 1px dashed var(--line); border-radius: 10px;
  padding: 28px; text-align: center; color: var(--muted); }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; text-align: center; }
@media (max-width: 640px) {
  main { padding: 16px 12px 40px; }
  .shots { grid-template-columns: 1fr; }
  .right { margin-left: 0; }
}
@media print {
  body { background: #fff; }
  .toolbar, #only-failed, .strip { display: none; }
  .action { break-inside: avoid; }
}
"""

# Click a screenshot to see it across the whole card; click again to shrink it.
SCRIPT = """
document.addEventListener("click", function (event) {
  var target = event.target;
  if (target instanceof HTMLImageElement && target.parentElement.classList.contains("shot")) {
    target.parentElement.classList.toggle("zoomed");
  }
});
"""
