import { describe, expect, test } from "bun:test";
import { makeLayer, type PromptLayer } from "../../src/prompt/layers.ts";
import { compareToLock, formatFinding, layerStates, lockText, type Lock } from "../../src/prompt/lock.ts";

const base = makeLayer("00-base", "builtin", "base text");
const style = makeLayer("10-style", "file", "style text");
const agents = makeLayer("AGENTS.md", "workspace", "agents text");
const locked: PromptLayer[] = [base, style, agents];
const lock: Lock = JSON.parse(lockText(locked));

const findings = (layers: PromptLayer[]) => compareToLock(lock, layers).map(formatFinding);

describe("each finding fires alone when it should, and only then", () => {
  test.each([
    ["nothing changed", locked, []],
    ["ADDED", [...locked, makeLayer("server:git", "server", "git text")], [`ADDED server:git (server) ${makeLayer("x", "server", "git text").digest}`]],
    ["CHANGED", [base, makeLayer("10-style", "file", "new style"), agents], [`CHANGED 10-style (file) ${style.digest} -> ${makeLayer("x", "file", "new style").digest}`]],
    ["REMOVED", [base, agents], ["REMOVED 10-style"]],
    ["ORIGIN", [makeLayer("00-base", "file", "base text"), style, agents], ["ORIGIN 00-base builtin -> file"]],
    ["REORDERED", [base, agents, style], ["REORDERED 00-base, 10-style, AGENTS.md -> 00-base, AGENTS.md, 10-style"]],
  ] as Array<[string, PromptLayer[], string[]]>)("%s", (_kind, layers, expected) => {
    expect(findings(layers)).toEqual(expected);
  });

  test("a reorder is not reported when something else changed too", () => {
    expect(findings([agents, base])).toEqual(["REMOVED 10-style"]);
  });

  test("several findings at once, one line each", () => {
    const lines = findings([makeLayer("00-base", "builtin", "edited"), agents, makeLayer("20-new", "file", "n")]);
    expect(lines.map((line) => line.split(" ")[0])).toEqual(["CHANGED", "ADDED", "REMOVED"]);
  });
});

test("layer states for the pane", () => {
  expect(layerStates(null, locked)).toEqual(["unlocked", "unlocked", "unlocked"]);
  expect(layerStates(lock, [base, makeLayer("10-style", "file", "x"), makeLayer("new", "file", "n")])).toEqual(["locked", "changed", "added"]);
});

describe("text moving between sources", () => {
  test("a prompts file removed and a server layer with the same text added is one ORIGIN finding", () => {
    expect(findings([base, agents, makeLayer("server:style", "server", "style text")])).toEqual(["ORIGIN server:style file -> server (was 10-style)"]);
  });

  test("different text under a new name stays ADDED plus REMOVED", () => {
    expect(findings([base, agents, makeLayer("server:style", "server", "other text")]).map((line) => line.split(" ")[0])).toEqual(["ADDED", "REMOVED"]);
  });
});
