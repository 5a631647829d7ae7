import type { RunVerdict } from "./runner.ts";
import { mcnemarExact } from "./mcnemar.ts";

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

/** Columns padded to their widest cell; numbers right-aligned. */
export function formatTable(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column > 0 && /^[\d.,%/ -]+$/.test(cell) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd(),
  );
}

/** One row per task: pass rate, statuses, mean steps, tokens and seconds, refusals by kind. */
export function resultsTable(verdicts: RunVerdict[]): string[] {
  const tasks = [...new Set(verdicts.map((verdict) => verdict.task))];
  const rows = [["task", "pass", "statuses", "steps", "tokens", "seconds", "refusals"]];
  for (const task of tasks) {
    const runs = verdicts.filter((verdict) => verdict.task === task);
    const passed = runs.filter((verdict) => verdict.passed).length;
    rows.push([
      task,
      `${passed}/${runs.length}`,
      counts(runs.map((verdict) => verdict.status)),
      mean(runs.map((verdict) => verdict.steps)).toFixed(1),
      Math.round(mean(runs.map((verdict) => verdict.tokens))).toString(),
      mean(runs.map((verdict) => verdict.seconds)).toFixed(2),
      refusalCounts(runs) || "none",
    ]);
  }
  return formatTable(rows);
}

function counts(values: string[]): string {
  const tally = new Map<string, number>();
  for (const value of values) tally.set(value, (tally.get(value) ?? 0) + 1);
  return [...tally].map(([value, n]) => `${value}×${n}`).join(" ");
}

function refusalCounts(runs: RunVerdict[]): string {
  const totals: Record<string, number> = {};
  for (const run of runs) for (const [kind, n] of Object.entries(run.refusals)) totals[kind] = (totals[kind] ?? 0) + n;
  return Object.entries(totals)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(", ");
}

export interface Paired {
  task: string;
  pairs: number;
  both: number;
  onlyA: number;
  onlyB: number;
  neither: number;
  p: number;
}

/** Pairs runs by task and seed; runs without a partner are left out (and counted). */
export function pairUp(a: RunVerdict[], b: RunVerdict[]): { perTask: Paired[]; overall: Paired; unpaired: number } {
  const key = (verdict: RunVerdict) => `${verdict.task}\u0000${verdict.seed}`;
  const byKey = new Map(b.map((verdict) => [key(verdict), verdict]));
  const pairs = a.flatMap((verdict) => {
    const partner = byKey.get(key(verdict));
    return partner ? [[verdict, partner] as const] : [];
  });
  const tally = (task: string, list: typeof pairs): Paired => {
    const onlyA = list.filter(([x, y]) => x.passed && !y.passed).length;
    const onlyB = list.filter(([x, y]) => !x.passed && y.passed).length;
    return {
      task,
      pairs: list.length,
      both: list.filter(([x, y]) => x.passed && y.passed).length,
      onlyA,
      onlyB,
      neither: list.filter(([x, y]) => !x.passed && !y.passed).length,
      p: mcnemarExact(onlyA, onlyB),
    };
  };
  const tasks = [...new Set(pairs.map(([verdict]) => verdict.task))];
  return {
    perTask: tasks.map((task) => tally(task, pairs.filter(([verdict]) => verdict.task === task))),
    overall: tally("all", pairs),
    unpaired: a.length + b.length - 2 * pairs.length,
  };
}

export function compareTable(a: RunVerdict[], b: RunVerdict[]): string[] {
  const { perTask, overall, unpaired } = pairUp(a, b);
  const rows = [["task", "pairs", "both", "only A", "only B", "neither", "McNemar p", "tokens A", "tokens B", "seconds A", "seconds B"]];
  for (const paired of [...perTask, overall]) {
    const of = (list: RunVerdict[]) => list.filter((verdict) => paired.task === "all" || verdict.task === paired.task);
    rows.push([
      paired.task,
      String(paired.pairs),
      String(paired.both),
      String(paired.onlyA),
      String(paired.onlyB),
      String(paired.neither),
      paired.p.toFixed(4),
      Math.round(mean(of(a).map((verdict) => verdict.tokens))).toString(),
      Math.round(mean(of(b).map((verdict) => verdict.tokens))).toString(),
      mean(of(a).map((verdict) => verdict.seconds)).toFixed(2),
      mean(of(b).map((verdict) => verdict.seconds)).toFixed(2),
    ]);
  }
  const lines = formatTable(rows);
  if (unpaired) lines.push(`(${unpaired} run(s) without a partner in the other results were left out)`);
  return lines;
}
