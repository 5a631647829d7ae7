/**
 * `glassbox undo` through the real CLI: a scripted `run` edits one file and creates another with
 * --allow, then `glassbox undo` puts the workspace back, refuses a file edited since, and never
 * undoes a run twice.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync, symlinkSync, mkdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { glassbox, scriptFile } from "../helpers/cli.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";
import type { ScriptedReply } from "../../src/model/scripted.ts";

const OLD = 'return text.trim().replace(/^v/, "").split(".");';
const NEW = 'return text.trim().replace(/^v/, "").split(".").map(Number);';

/** One reply that edits src/version.ts and creates docs/changes.md, then a text answer. */
const EDIT_AND_CREATE: ScriptedReply[] = [
  {
    content: "",
    tool_calls: [
      { id: "c1", name: "edit_file", arguments: { path: "src/version.ts", old: OLD, new: NEW } },
      { id: "c2", name: "write_file", arguments: { path: "docs/changes.md", content: "parseVersion returns numbers\n" } },
    ],
  },
  { content: "Fixed." },
];

async function changedWorkspace(replies: ScriptedReply[] = EDIT_AND_CREATE) {
  const { root } = makeWorkspace();
  const original = readFileSync(join(root, "src/version.ts"), "utf8");
  const run = await glassbox(["run", "--json", "--workspace", root, "--model", scriptFile(replies), "--allow", "edit_file", "--allow", "write_file", "fix it"]);
  expect(run.code).toBe(0);
  const runId = run.events[0]!.run_id as string;
  expect(readFileSync(join(root, "src/version.ts"), "utf8")).toContain(NEW);
  expect(readFileSync(join(root, "docs/changes.md"), "utf8")).toBe("parseVersion returns numbers\n");
  return { root, original, runId };
}

const undo = (root: string, ...rest: string[]) => glassbox(["undo", "--workspace", root, ...rest]);

function undoEvents(root: string, runId: string): Array<Record<string, any>> {
  const text = readFileSync(join(root, ".glassbox", "undo", runId, "journal.jsonl"), "utf8");
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line)).filter((line) => line.kind === "undo");
}

describe("glassbox undo", () => {
  test("a headless run that changed files says how to undo them", async () => {
    const { root } = makeWorkspace();
    const run = await glassbox(["run", "--workspace", root, "--model", scriptFile(EDIT_AND_CREATE), "--allow", "edit_file", "--allow", "write_file", "fix it"]);
    expect(run.code).toBe(0);
    const runId = /^glassbox run (\S+)/.exec(run.stdout)?.[1];
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe(`changed 2 file(s); to put them back: glassbox undo --workspace ${root} --run ${runId}`);
  });

  test("restores the edited file and removes the created one, newest change first, naming each; the undo is logged", async () => {
    const { root, original, runId } = await changedWorkspace();
    const result = await undo(root);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(readFileSync(join(root, "src/version.ts"), "utf8")).toBe(original);
    expect(existsSync(join(root, "docs/changes.md"))).toBe(false);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe(`undo of run ${runId}, newest change first:`);
    expect(lines[1]).toBe("  removed docs/changes.md, which the run created");
    expect(lines[2]).toBe("  restored src/version.ts");
    expect(lines[3]).toBe(`log: .glassbox/undo/${runId}/journal.jsonl`);
    const [event] = undoEvents(root, runId);
    expect(event).toMatchObject({ kind: "undo", run_id: runId, force: false, files: [{ path: "docs/changes.md", action: "removed" }, { path: "src/version.ts", action: "restored" }] });
  });

  test("a journal whose last line a kill cut off: the line is named, every change before it undone", async () => {
    const { root, original, runId } = await changedWorkspace();
    appendFileSync(join(root, ".glassbox", "undo", runId, "journal.jsonl"), '{"kind":"change","seq":3,"to');
    const result = await undo(root);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n").slice(0, 4)).toEqual([
      `undo of run ${runId}, newest change first:`,
      `  left out line 5 of .glassbox/undo/${runId}/journal.jsonl, cut off mid-write (28 bytes: glassbox ended while writing it): the change it announced never began`,
      "  removed docs/changes.md, which the run created",
      "  restored src/version.ts",
    ]);
    expect(readFileSync(join(root, "src/version.ts"), "utf8")).toBe(original);
  });

  test("a run already undone says so and changes nothing", async () => {
    const { root, runId } = await changedWorkspace();
    expect((await undo(root)).code).toBe(0);
    // The same edit again by hand: undoing the run twice would revert it.
    const edited = readFileSync(join(root, "src/version.ts"), "utf8").replace(OLD, NEW);
    writeFileSync(join(root, "src/version.ts"), edited);
    const again = await undo(root, "--run", runId);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^run ${runId} was already undone \\(\\d{4}-\\d\\d-\\d\\dT[^)]+\\); nothing to do\\n$`));
    expect(readFileSync(join(root, "src/version.ts"), "utf8")).toBe(edited);
    expect(undoEvents(root, runId)).toHaveLength(1);
  });

  test("a file edited since glassbox wrote it is skipped and named (exit 1); the others are restored; --force then restores it and keeps the edit", async () => {
    const { root, original, runId } = await changedWorkspace();
    writeFileSync(join(root, "docs/changes.md"), "my own notes\n");
    const result = await undo(root);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("  skipped docs/changes.md: it was changed since glassbox wrote it (glassbox undo --force restores it and keeps what it holds)\n");
    expect(result.stdout).toContain("  restored src/version.ts\n");
    expect(readFileSync(join(root, "docs/changes.md"), "utf8")).toBe("my own notes\n");
    expect(readFileSync(join(root, "src/version.ts"), "utf8")).toBe(original);

    // Only the skipped file is left to undo; --force removes it and says where its content went.
    const dry = await undo(root, "--dry-run", "--force");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("would remove docs/changes.md, which the run created although it was changed since glassbox wrote it; what it holds would be kept");
    expect(dry.stdout).not.toContain("src/version.ts");
    expect(existsSync(join(root, "docs/changes.md"))).toBe(true);

    const forced = await undo(root, "--force");
    expect(forced.code).toBe(0);
    const kept = /kept in (\.glassbox\/undo\/\S+\/docs\/changes\.md)\)/.exec(forced.stdout)?.[1];
    expect(kept).toBeDefined();
    expect(readFileSync(join(root, kept!), "utf8")).toBe("my own notes\n");
    expect(existsSync(join(root, "docs/changes.md"))).toBe(false);
    expect(undoEvents(root, runId).map((event) => event.files.map((file: { action: string }) => file.action))).toEqual([["skipped", "restored"], ["removed"]]);
  });

  test("--dry-run says what would happen, exits as undo would, and changes nothing", async () => {
    const { root, runId } = await changedWorkspace();
    writeFileSync(join(root, "src/version.ts"), "// rewritten by hand\n");
    const result = await undo(root, "--dry-run");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        `dry run: undoing run ${runId} would, newest change first:`,
        "  would remove docs/changes.md, which the run created",
        "  would skip src/version.ts: it was changed since glassbox wrote it (glassbox undo --force restores it and keeps what it holds)",
        "nothing was changed",
        "",
      ].join("\n"),
    );
    expect(readFileSync(join(root, "src/version.ts"), "utf8")).toBe("// rewritten by hand\n");
    expect(existsSync(join(root, "docs/changes.md"))).toBe(true);
    expect(undoEvents(root, runId)).toEqual([]);
  });

  test("several changes to one file go back to what it held before the first; the default is the latest run that changed files", async () => {
    const { root, original } = await changedWorkspace([
      { content: "", tool_calls: [{ id: "c1", name: "edit_file", arguments: { path: "src/version.ts", old: OLD, new: NEW } }] },
      { content: "", tool_calls: [{ id: "c2", name: "write_file", arguments: { path: "src/version.ts", content: "export {};\n" } }] },
      { content: "", tool_calls: [{ id: "c3", name: "write_file", arguments: { path: "docs/changes.md", content: "parseVersion returns numbers\n" } }] },
      { content: "", tool_calls: [{ id: "c4", name: "write_file", arguments: { path: "src/version.ts", content: `${NEW}\n` } }] },
      { content: "done" },
    ]);
    // A later run that changes nothing is not the default.
    const idle = await glassbox(["run", "--workspace", root, "--model", scriptFile([{ content: "nothing to do" }]), "look"]);
    expect(idle.code).toBe(0);
    expect(idle.stdout).not.toContain("glassbox undo");
    const result = await undo(root);
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n").slice(1, 3)).toEqual(["  restored src/version.ts", "  removed docs/changes.md, which the run created"]);
    expect(readFileSync(join(root, "src/version.ts"), "utf8")).toBe(original);
  });

  test("a write that was denied saves nothing; with nothing changed undo says so", async () => {
    const { root } = makeWorkspace();
    const run = await glassbox(["run", "--workspace", root, "--model", scriptFile(EDIT_AND_CREATE), "fix it"]);
    expect(run.code).toBe(0);
    expect(existsSync(join(root, ".glassbox", "undo"))).toBe(false);
    expect(run.stdout).not.toContain("glassbox undo");
    const result = await undo(root);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("nothing to undo: no run in this workspace changed a file\n");
  });

  test("an unknown --run is a usage error naming the runs that can be undone", async () => {
    const { root, runId } = await changedWorkspace();
    const result = await undo(root, "--run", "20990101T000000-nope");
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`glassbox: --run 20990101T000000-nope: no run with that id changed files in this workspace (runs that changed files, newest first: ${runId})\n`);
    const traversal = await undo(root, "--run", "../../etc");
    expect(traversal.code).toBe(2);
  });

  test("a journal naming a path outside the workspace restores nothing there", async () => {
    const { root, runId } = await changedWorkspace();
    const outside = tempFolder("outside");
    writeFileSync(join(outside, "victim.txt"), "keep me\n");
    // A journal from an untrusted clone: its path leads out through a link.
    mkdirSync(join(root, "linked"));
    symlinkSync(outside, join(root, "linked", "out"));
    const journal = join(root, ".glassbox", "undo", runId, "journal.jsonl");
    const lines = readFileSync(journal, "utf8").replaceAll('"path":"docs/changes.md"', '"path":"linked/out/victim.txt"');
    writeFileSync(journal, lines);
    const result = await undo(root);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("  skipped linked/out/victim.txt: not restored: the path leads outside the workspace through a link");
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("keep me\n");
    expect(readdirSync(outside)).toEqual(["victim.txt"]);
  });

  test("a file that now leads elsewhere through a link, or a saved copy that was tampered with, is skipped even with --force", async () => {
    const { root, runId } = await changedWorkspace();
    const readme = readFileSync(join(root, "README.md"), "utf8");
    unlinkSync(join(root, "docs/changes.md"));
    symlinkSync(join(root, "README.md"), join(root, "docs/changes.md"));
    writeFileSync(join(root, ".glassbox", "undo", runId, "1.before"), "not what was there\n");
    const result = await undo(root, "--force");
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("  skipped docs/changes.md: not restored: the path now leads to README.md through a link\n");
    expect(result.stdout).toContain(`  skipped src/version.ts: not restored: the copy saved before the run (.glassbox/undo/${runId}/1.before) is missing or damaged\n`);
    expect(readFileSync(join(root, "README.md"), "utf8")).toBe(readme);
    expect(readFileSync(join(root, "src/version.ts"), "utf8")).toContain(NEW);
  });

  test("a damaged journal is a usage error and changes nothing", async () => {
    const { root, runId } = await changedWorkspace();
    writeFileSync(join(root, ".glassbox", "undo", runId, "journal.jsonl"), '{"kind":"change"}\n');
    const result = await undo(root);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`glassbox: cannot undo: line 1 of .glassbox/undo/${runId}/journal.jsonl is not a journal entry; nothing was changed\n`);
    expect(existsSync(join(root, "docs/changes.md"))).toBe(true);
  });
});

describe("what commands and checks change, through the real CLI (whatever sandbox this machine gives)", () => {
  test("run --json lists each change in the tool_call event; glassbox undo restores every byte, with the edits, newest first", async () => {
    const { root } = makeWorkspace();
    Bun.spawnSync(["git", "init", "-q"], { cwd: root });
    writeFileSync(join(root, ".gitignore"), "build/\n");
    writeFileSync(join(root, "glassbox.json"), JSON.stringify({ checks: { build: { argv: ["sh", "-c", "mkdir -p build && echo o > build/out.js && echo built > built.txt"], timeout_seconds: 30 } } }));
    const before = readFileSync(join(root, "src/version.ts"), "utf8");
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const replies: ScriptedReply[] = [
      { content: "", tool_calls: [{ id: "c1", name: "edit_file", arguments: { path: "src/version.ts", old: OLD, new: NEW } }] },
      { content: "", tool_calls: [{ id: "c2", name: "run_command", arguments: { argv: ["sh", "-c", "echo more >> src/version.ts; mv README.md READ.md"] } }] },
      { content: "", tool_calls: [{ id: "c3", name: "run_check", arguments: { name: "build" } }] },
      { content: "Done." },
    ];
    const run = await glassbox(["run", "--json", "--workspace", root, "--model", scriptFile(replies), "--allow", "edit_file", "--allow", "run_command:sh *", "change it"]);
    expect(run.code).toBe(0);
    const calls = run.events.filter((event) => event.kind === "tool_call");
    expect(calls.map((event) => [event.tool, event.changes])).toEqual([
      ["edit_file", undefined],
      ["run_command", [{ path: "READ.md", change: "created" }, { path: "README.md", change: "deleted" }, { path: "src/version.ts", change: "changed" }]],
      ["run_check", [{ path: "built.txt", change: "created" }]],
    ]);
    // Over an overlay (bwrap) the ignored build output is counted; elsewhere the snapshot never looks at it.
    expect(calls[2]!.ignored_changes).toBe(run.events[0]!.sandbox.kind === "bwrap" ? 1 : 0);
    if (run.events[0]!.sandbox.kind === "bwrap") expect(calls[2]!.result).toContain("(created, 6 bytes). 1 file in a git-ignored folder was written without journal copies.");
    expect((await glassbox(["undo", "--workspace", root])).code).toBe(0);
    expect(readFileSync(join(root, "src/version.ts"), "utf8")).toBe(before);
    expect(readFileSync(join(root, "README.md"), "utf8")).toBe(readme);
    expect(existsSync(join(root, "READ.md")) || existsSync(join(root, "built.txt"))).toBe(false);
  });
});
