// bench:subrun: the scripted task on the generated 300-file repository fixes the bug in every arm,
// and the parent sends at least 3 times fewer tokens with the sub-run and the map than with
// neither (glassbox's estimate here, instant; the real server's counts and the cache target are
// held by test/core/sub-run-llama.test.ts, the figures are in the README).
import { expect, spyOn, test } from "bun:test";
import { join } from "node:path";
import { FILES, report, type Figures } from "../../scripts/bench-subrun.ts";

test("--no-server: four arms, each fixed and completed; the ratio is met and printed", async () => {
  const bench = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "scripts", "bench-subrun.ts"), "--no-server", "--json"], {
    // The bench runs as a script, not under bun test (whose NODE_ENV its fake servers read).
    env: { ...process.env, NODE_ENV: "production" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(bench.stdout).text(), new Response(bench.stderr).text(), bench.exited]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  expect(FILES).toBe(300);
  const rows = JSON.parse(out.split("\n").find((line) => line.startsWith("[{"))!) as Figures[];
  expect(rows.map((row) => [row.arm, row.fixed, row.completed])).toEqual([
    ["neither", true, true],
    ["map", true, true],
    ["sub-run", true, true],
    ["sub-run + map", true, true],
  ]);
  const [neither, , subRun, both] = rows;
  expect(neither!.sub.requests).toBe(0);
  expect(subRun!.sub.requests).toBeGreaterThan(both!.sub.requests);
  expect(neither!.parent.sent / both!.parent.sent).toBeGreaterThanOrEqual(3);
  expect(out).toMatch(/parent sends \d+\.\dx fewer tokens with the sub-run and the map than with neither \(target: at least 3x\) met/);
}, 60_000);

test("the report names each missed target", () => {
  const row = (arm: string, sent: number, afterSubRun: Figures["afterSubRun"] = null): Figures => ({
    arm, parent: { requests: 5, sent, processed: 100 }, sub: { requests: 0, sent: 0, processed: 0 }, afterSubRun, fixed: true, completed: true, counted: "server",
  });
  const lines: string[] = [];
  const log = spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
  try {
    const missed = report([row("neither", 20_000), row("map", 9_000), row("sub-run", 8_000, { processed: 90, answer: 30 }), row("sub-run + map", 8_000, { processed: 95, answer: 30 })]);
    expect(missed).toBe(2);
  } finally {
    log.mockRestore();
  }
  expect(lines).toContain("parent sends 2.5x fewer tokens with the sub-run and the map than with neither (target: at least 3x) MISSED");
  expect(lines).toContain("sub-run: the parent's first request after the sub-run processed 90 tokens, the answer being 30 (target: at most the answer + 64) met");
  expect(lines).toContain("sub-run + map: the parent's first request after the sub-run processed 95 tokens, the answer being 30 (target: at most the answer + 64) MISSED");
});
