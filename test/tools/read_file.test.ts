import { beforeAll, describe, expect, test } from "bun:test";
import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import { readFile } from "../../src/tools/read_file.ts";
import { makeWorkspace, type TestWorkspace } from "../helpers/workspace.ts";
import { call, runScripted } from "../helpers/run.ts";
import { expectRefused, gate, runTool } from "./harness.ts";

let ws: TestWorkspace;
const numbered = (n: number, text: string) => `${String(n).padStart(6)}  ${text}`;
const THOUSAND = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

beforeAll(() => {
  ws = makeWorkspace();
  writeFileSync(join(ws.root, "three.txt"), "alpha\nbeta\ngamma\n");
  writeFileSync(join(ws.root, "no-newline.txt"), "alpha\nbeta");
  writeFileSync(join(ws.root, "one-line.txt"), "only");
  writeFileSync(join(ws.root, "blank-lines.txt"), "\n\n");
  writeFileSync(join(ws.root, "empty.txt"), "");
  writeFileSync(join(ws.root, "thousand.txt"), THOUSAND);
  writeFileSync(join(ws.root, "binary.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02, 0x0a, 0x41]));
});

describe("numbered lines and the header", () => {
  const rows: Array<[file: string, args: Record<string, unknown>, expected: string]> = [
    ["three.txt", {}, ["[three.txt: lines 1-3 of 3; 0 above, 0 below]", numbered(1, "alpha"), numbered(2, "beta"), numbered(3, "gamma")].join("\n")],
    ["no-newline.txt", {}, ["[no-newline.txt: lines 1-2 of 2; 0 above, 0 below]", numbered(1, "alpha"), numbered(2, "beta")].join("\n")],
    ["one-line.txt", {}, ["[one-line.txt: lines 1-1 of 1; 0 above, 0 below]", numbered(1, "only")].join("\n")],
    ["blank-lines.txt", {}, ["[blank-lines.txt: lines 1-2 of 2; 0 above, 0 below]", numbered(1, ""), numbered(2, "")].join("\n")],
    ["three.txt", { start: 2 }, ["[three.txt: lines 2-3 of 3; 1 above, 0 below]", numbered(2, "beta"), numbered(3, "gamma")].join("\n")],
    ["three.txt", { start: 2, max_lines: 1 }, ["[three.txt: lines 2-2 of 3; 1 above, 1 below]", numbered(2, "beta")].join("\n")],
    ["three.txt", { max_lines: 1 }, ["[three.txt: lines 1-1 of 3; 0 above, 2 below]", numbered(1, "alpha")].join("\n")],
    ["no-newline.txt", { start: 2 }, ["[no-newline.txt: lines 2-2 of 2; 1 above, 0 below]", numbered(2, "beta")].join("\n")],
  ];
  for (const [file, args, expected] of rows) {
    test(`${file} ${JSON.stringify(args)}`, async () => {
      const verdict = await gate(ws.root).call("read_file", { path: file, ...args });
      expect(verdict.decision).toBe("allowed");
      expect(verdict.content).toBe(expected);
    });
  }

  test("a start past the end says how many lines there are", async () => {
    const verdict = await gate(ws.root).call("read_file", { path: "three.txt", start: 4 });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toContain("3 lines");
    expect(verdict.content).toContain("past the end");
    expect(verdict.content).not.toContain("alpha");
  });

  test("an empty file reads as 0 lines", async () => {
    const verdict = await gate(ws.root).call("read_file", { path: "empty.txt" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toMatch(/^\[empty\.txt: 0 lines/);
  });

  test("the toy workspace's README through the loop: the model sees numbered lines", async () => {
    const run = await runScripted([call("read_file", { path: "README.md", max_lines: 2 }), { content: "ok" }], { workspace: ws.root });
    expect(run.calls[0]!.decision).toBe("allowed");
    const tool = run.model.requests[1]!.messages.find((m) => m.role === "tool")!;
    expect(tool.content).toMatch(/^\[README\.md: lines 1-2 of \d+; 0 above, \d+ below\]\n     1  # semver-lite\n     2  \n?$/);
  });
});

describe("paging a long file", () => {
  const pages: Array<[args: Record<string, number>, first: number, last: number]> = [
    [{}, 1, 100],
    [{ start: 201, max_lines: 50 }, 201, 250],
    [{ start: 990, max_lines: 50 }, 990, 1000],
    [{ start: 1000, max_lines: 500 }, 1000, 1000],
    [{ start: 1, max_lines: 500 }, 1, 500],
  ];
  for (const [args, first, last] of pages) {
    test(`${JSON.stringify(args)} shows lines ${first}-${last} of 1000`, async () => {
      const text = await runTool(readFile, { path: "thousand.txt", ...args }, ws.root);
      const lines = text.split("\n");
      expect(lines[0]).toBe(`[thousand.txt: lines ${first}-${last} of 1000; ${first - 1} above, ${1000 - last} below]`);
      expect(lines).toHaveLength(last - first + 2);
      expect(lines[1]).toBe(numbered(first, `line ${first}`));
      expect(lines.at(-1)).toBe(numbered(last, `line ${last}`));
      expect(text).not.toContain(`line ${last + 1}\n`);
      if (first > 1) expect(text).not.toContain(numbered(first - 1, `line ${first - 1}`));
    });
  }

  test("pages join up: reading in pages of 300 gives back the whole file", async () => {
    const got: string[] = [];
    for (let start = 1; start <= 1000; start += 300) {
      const text = await runTool(readFile, { path: "thousand.txt", start, max_lines: 300 }, ws.root);
      got.push(...text.split("\n").slice(1).map((line) => line.slice(8)));
    }
    expect(got.join("\n") + "\n").toBe(THOUSAND);
  });
});

describe("text that is not plain ASCII", () => {
  test("a multi-byte character split across read chunks comes back whole", async () => {
    // One ASCII byte first, so the 64 KiB chunk boundary falls inside a two-byte character.
    const line = "a" + "é".repeat(40_000);
    writeFileSync(join(ws.root, "accents.txt"), `${line}\nend\n`);
    const text = await runTool(readFile, { path: "accents.txt" }, ws.root);
    expect(text).not.toContain("\uFFFD");
    expect(text).toContain(numbered(1, line));
    expect(text).toContain(numbered(2, "end"));
  });

  test("Windows line endings count lines the same way", async () => {
    writeFileSync(join(ws.root, "crlf.txt"), "one\r\ntwo\r\n");
    const text = await runTool(readFile, { path: "crlf.txt" }, ws.root);
    expect(text.split("\n")[0]).toBe("[crlf.txt: lines 1-2 of 2; 0 above, 0 below]");
  });
});

describe("files that are not for reading", () => {
  test("a binary file is refused, naming it", async () => {
    const verdict = await gate(ws.root).call("read_file", { path: "binary.bin" });
    expectRefused(verdict, ws, "`path`", "`binary.bin`", /binary/);
    expect(verdict.content).not.toContain("ELF");
  });
});

describe("a big file", () => {
  const LINE = "x".repeat(99) + "\n"; // 100 bytes a line
  const MB20 = 20 * 1024 * 1024;

  beforeAll(() => {
    const fd = openSync(join(ws.root, "big.log"), "w");
    const block = Buffer.from(LINE.repeat(10_000)); // 1,000,000 bytes
    for (let written = 0; written < MB20; written += block.length) writeSync(fd, block);
    closeSync(fd);
    const one = openSync(join(ws.root, "one-huge-line.txt"), "w");
    const chunk = Buffer.alloc(1024 * 1024, "y");
    for (let i = 0; i < 20; i++) writeSync(one, chunk);
    closeSync(one);
  });

  test("its first lines come back quickly, and the header says 'of more than'", async () => {
    const started = performance.now();
    const verdict = await gate(ws.root).call("read_file", { path: "big.log", max_lines: 3 });
    const took = performance.now() - started;
    expect(verdict.decision).toBe("allowed");
    const header = verdict.content.split("\n")[0]!;
    const match = /^\[big\.log: lines 1-3 of more than (\d+); 0 above, more than \d+ below\]$/.exec(header);
    expect(match).not.toBeNull();
    // It stopped counting well before the end: the file has over 200,000 lines.
    expect(Number(match![1])).toBeGreaterThan(1000);
    expect(Number(match![1])).toBeLessThan(MB20 / LINE.length);
    expect(verdict.content.split("\n")).toHaveLength(4);
    expect(took).toBeLessThan(2000);
  });

  test("a single 20 MB line is held only up to a bounded window", async () => {
    const started = performance.now();
    const text = await runTool(readFile, { path: "one-huge-line.txt" }, ws.root);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(text).toStartWith("[one-huge-line.txt: lines 1-1 of more than");
    // The tool's own output, before any clipping, stays far below the file's size.
    expect(text.length).toBeLessThan(1024 * 1024);
    expect(text.length).toBeGreaterThan(1000);
  });

  test("the checkpoint clips what reaches the model", async () => {
    const verdict = await gate(ws.root).call("read_file", { path: "one-huge-line.txt" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content.length).toBeLessThanOrEqual(DEFAULT_LIMITS.max_result_chars);
    expect(verdict.content).toMatch(/characters cut/);
  });
});
