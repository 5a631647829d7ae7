import type { RunVerdict } from "./runner.ts";
import type { ArmResults } from "./results.ts";
import { pairUp } from "./report.ts";
import { wilsonInterval } from "./wilson.ts";
import { costSpec, passRateSpec, renderSvg, SECONDS_BAR_COLOUR, TOKENS_BAR_COLOUR, type ArmSummary } from "./charts.ts";

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function summarize(arm: ArmResults): ArmSummary {
  const passed = arm.verdicts.filter((verdict) => verdict.passed).length;
  const { low, high } = wilsonInterval(passed, arm.verdicts.length);
  return {
    arm: arm.label,
    rate: arm.verdicts.length ? passed / arm.verdicts.length : 0,
    low,
    high,
    tokens: Math.round(mean(arm.verdicts.map((verdict) => verdict.tokens))),
    seconds: Math.round(mean(arm.verdicts.map((verdict) => verdict.seconds)) * 100) / 100,
  };
}

/**
 * The whole report as one HTML file: charts inlined as SVG, styles inline, no script and no
 * address to fetch, so it opens the same offline, in a mail, or years later.
 */
export async function htmlReport(arms: ArmResults[], notes?: { title: string; lines: string[] }): Promise<string> {
  const summaries = arms.map(summarize);
  const [passChart, tokenChart, secondChart] = await Promise.all([
    renderSvg(passRateSpec(summaries)),
    renderSvg(costSpec(summaries, "tokens", "Mean tokens per run", TOKENS_BAR_COLOUR)),
    renderSvg(costSpec(summaries, "seconds", "Mean seconds per run", SECONDS_BAR_COLOUR)),
  ]);
  const armRows = arms.map((arm, index) => {
    const summary = summaries[index]!;
    const passed = arm.verdicts.filter((verdict) => verdict.passed).length;
    return row([arm.label, `${passed}/${arm.verdicts.length}`, percent(summary.rate), `${percent(summary.low)} – ${percent(summary.high)}`, String(summary.tokens), summary.seconds.toFixed(2), String(arm.folders.length)]);
  });
  const first = arms[0]!;
  const flipRows = arms.slice(1).map((arm) => {
    const { overall, unpaired } = pairUp(first.verdicts, arm.verdicts);
    return row([arm.label, String(overall.pairs), String(overall.both), String(overall.onlyA), String(overall.onlyB), String(overall.neither), overall.p.toFixed(4), String(unpaired)]);
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>glassbox eval report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}.pass{color:#1a7f37}.fail{color:#cf222e}
.charts{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
</style></head><body>
<h1>glassbox eval report</h1>
<p>${arms.length} arm(s), ${arms.reduce((sum, arm) => sum + arm.verdicts.length, 0)} run(s). The first arm, <b>${escapeHtml(first.label)}</b>, is the baseline the others are paired against.</p>
${notes ? `<h2>${escapeHtml(notes.title)}</h2>\n<ul id="notes">${notes.lines.map((line) => `<li>${escapeHtml(line)}</li>`).join("")}</ul>` : ""}
<div class="charts"><figure id="pass-rate">${passChart}</figure><figure id="tokens">${tokenChart}</figure><figure id="seconds">${secondChart}</figure></div>
<h2>Arms</h2>
<table><tr><th>arm</th><th>passed</th><th>pass rate</th><th>95% Wilson interval</th><th>mean tokens</th><th>mean seconds</th><th>folders</th></tr>
${armRows.join("\n")}</table>
<h2>Paired flips against ${escapeHtml(first.label)}</h2>
${flipRows.length ? `<p>Pairs are the same task and seed in both arms. "only A": passed in ${escapeHtml(first.label)} only; "only B": passed in the other arm only. p: exact two-sided McNemar test on the discordant pairs.</p>
<table><tr><th>arm (B)</th><th>pairs</th><th>both</th><th>only A</th><th>only B</th><th>neither</th><th>McNemar p</th><th>unpaired</th></tr>
${flipRows.join("\n")}</table>` : "<p>One arm only: nothing to pair.</p>"}
<h2>Per task</h2>
<p>Each mark is one seed, in seed order: <span class="pass">✓</span> passed, <span class="fail">✗</span> failed, · not run.</p>
${taskTable(arms)}
</body></html>
`;
}

function taskTable(arms: ArmResults[]): string {
  const tasks = [...new Set(arms.flatMap((arm) => arm.verdicts.map((verdict) => verdict.task)))];
  const seeds = [...new Set(arms.flatMap((arm) => arm.verdicts.map((verdict) => verdict.seed)))].sort((a, b) => a - b);
  const byKey = arms.map((arm) => new Map(arm.verdicts.map((verdict) => [`${verdict.task}#${verdict.seed}`, verdict])));
  const cell = (verdict: RunVerdict | undefined) =>
    verdict ? `<span class="${verdict.passed ? "pass" : "fail"}" title="seed ${verdict.seed}: ${escapeHtml(verdict.status)}">${verdict.passed ? "✓" : "✗"}</span>` : "·";
  const rows = tasks.map((task) => `<tr><td>${escapeHtml(task)}</td>${byKey.map((map) => `<td>${seeds.map((seed) => cell(map.get(`${task}#${seed}`))).join("")}</td>`).join("")}</tr>`);
  return `<table><tr><th>task</th>${arms.map((arm) => `<th>${escapeHtml(arm.label)}</th>`).join("")}</tr>\n${rows.join("\n")}</table>`;
}

function row(cells: string[]): string {
  return `<tr>${cells.map((cell, index) => (index > 0 && /^[\d.,%/ –-]+$/.test(cell) ? `<td class="n">${escapeHtml(cell)}</td>` : `<td>${escapeHtml(cell)}</td>`)).join("")}</tr>`;
}
