import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { Checkpoint, INTERNAL_FAILURE, type ApprovalRequest, type ApprovalAnswer, type Approver } from "../../src/core/checkpoint.ts";
import { Policy, parseRule } from "../../src/core/policy.ts";
import type { EventOf } from "../../src/protocol/events.ts";
import type { Checks } from "../../src/tools/checks.ts";
import { TOOL_NAMES, defaultTools } from "../../src/tools/index.ts";
import { Refusal, defineTool } from "../../src/tools/tool.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { FakeClock, call, runScripted } from "../helpers/run.ts";
import { expectWellFormedRun, toolMessagesAfter } from "../helpers/invariants.ts";
import { gate } from "../tools/harness.ts";

/** An approver that answers from a list and keeps every request. */
function approver(...answers: ApprovalAnswer[]) {
  const requests: ApprovalRequest[] = [];
  const answer = async (request: ApprovalRequest) => {
    requests.push(request);
    const next = answers.shift();
    if (!next) throw new Error("the approver was asked more often than the test expected");
    return next;
  };
  return { answer, requests };
}

const write = (path: string, content: string, id?: string) => call("write_file", { path, content }, id);
const read = (ws: { root: string }, path: string) => readFileSync(join(ws.root, path), "utf8");

const CHECKS: Checks = {
  tests: { argv: ["true"], timeout_seconds: 10, env: [] },
  lint: { argv: ["true"], timeout_seconds: 10, env: [] },
};

describe("approvals", () => {
  test("an approved write happens, and the approver is told what and where", async () => {
    const ws = makeWorkspace();
    const person = approver("yes");
    const run = await runScripted([write("NOTES.md", "approved"), { content: "done" }], { workspace: ws.root, approver: person.answer });
    expectWellFormedRun(run);
    expect(run.calls[0]!.decision).toBe("allowed");
    expect(read(ws, "NOTES.md")).toBe("approved");
    expect(person.requests).toHaveLength(1);
    expect(person.requests[0]).toMatchObject({ tool: "write_file", target: "NOTES.md", arguments: { path: "NOTES.md", content: "approved" } });
    expect(person.requests[0]!.signal).toBeInstanceOf(AbortSignal);
  });

  test("a denied write leaves the file unchanged and tells the model", async () => {
    const ws = makeWorkspace();
    const before = read(ws, "NOTES.md");
    const person = approver("no");
    const run = await runScripted([write("NOTES.md", "denied"), { content: "done" }], { workspace: ws.root, approver: person.answer });
    expectWellFormedRun(run);
    expect(run.calls[0]!.decision).toBe("denied");
    expect(read(ws, "NOTES.md")).toBe(before);
    expect(toolMessagesAfter(run, 1)[0]!.content).toStartWith("Denied:");
    expect(run.stop.status).toBe("completed");
  });

  test("a denied edit leaves the file unchanged", async () => {
    const ws = makeWorkspace();
    const before = read(ws, "src/version.ts");
    const run = await runScripted([call("edit_file", { path: "src/version.ts", old: 'replace(/^v/, "")', new: "X" }), { content: "done" }], {
      workspace: ws.root,
      approver: approver("no").answer,
    });
    expect(run.calls[0]!.decision).toBe("denied");
    expect(read(ws, "src/version.ts")).toBe(before);
  });

  test("'always' allows later calls of that tool without asking, and only that tool", async () => {
    const ws = makeWorkspace();
    const person = approver("always", "no");
    const run = await runScripted(
      [
        write("a.txt", "1"),
        write("b.txt", "2"),
        write("src/c.txt", "3"),
        call("edit_file", { path: "a.txt", old: "1", new: "one" }),
        { content: "done" },
      ],
      { workspace: ws.root, approver: person.answer },
    );
    expectWellFormedRun(run);
    expect(run.calls.map((event) => event.decision)).toEqual(["allowed", "allowed", "allowed", "denied"]);
    expect(person.requests.map((request) => request.tool)).toEqual(["write_file", "edit_file"]);
    expect([read(ws, "a.txt"), read(ws, "b.txt"), read(ws, "src/c.txt")]).toEqual(["1", "2", "3"]);
  });

  test("'always' does not beat a deny rule", async () => {
    const ws = makeWorkspace();
    const person = approver("always");
    const run = await runScripted([write("a.txt", "1"), write("blocked.lock", "2"), { content: "done" }], {
      workspace: ws.root,
      approver: person.answer,
      deny: ["write_file:**/*.lock"],
    });
    expect(run.calls.map((event) => event.decision)).toEqual(["allowed", "denied"]);
    expect(existsSync(join(ws.root, "blocked.lock"))).toBe(false);
  });

  test("a write outside the workspace, or to an off-limits name, never reaches the approver", async () => {
    const ws = makeWorkspace();
    const person = approver();
    const run = await runScripted(
      [write("../escaped.txt", "x"), write(join(ws.outside, "abs.txt"), "x"), write(".env", "SECRET=1"), write("sub/.git/config", "x"), { content: "done" }],
      { workspace: ws.root, approver: person.answer },
    );
    expectWellFormedRun(run);
    expect(run.calls.map((event) => event.decision)).toEqual(["refused", "refused", "refused", "refused"]);
    expect(person.requests).toHaveLength(0);
    expect(existsSync(join(ws.outside, "escaped.txt"))).toBe(false);
    expect(existsSync(join(ws.outside, "abs.txt"))).toBe(false);
    expect(existsSync(join(ws.root, ".env"))).toBe(false);
  });

  test("a call with bad arguments never reaches the approver", async () => {
    const ws = makeWorkspace();
    const person = approver();
    const run = await runScripted([call("write_file", { path: "a.txt" }), call("write_file", { path: "a.txt", content: 5 }), { content: "done" }], {
      workspace: ws.root,
      approver: person.answer,
    });
    expect(run.calls.map((event) => event.decision)).toEqual(["refused", "refused"]);
    expect(person.requests).toHaveLength(0);
  });

  test("an approver that fails is a denial, and the run still ends with a stop", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([write("new.txt", "x"), { content: "done" }], {
      workspace: ws.root,
      approver: async () => {
        throw new Error("the prompt was closed");
      },
    });
    expectWellFormedRun(run);
    expect(run.calls[0]!.decision).toBe("denied");
    expect(run.stop.status).toBe("completed");
    expect(existsSync(join(ws.root, "new.txt"))).toBe(false);
  });

  test("no approver: a write is denied and nothing is written", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([write("new.txt", "x"), { content: "done" }], { workspace: ws.root });
    expectWellFormedRun(run);
    expect(run.calls[0]!.decision).toBe("denied");
    expect(run.calls[0]!.reason).toContain("needs approval");
    expect(existsSync(join(ws.root, "new.txt"))).toBe(false);
  });

  test("tools that change nothing never ask", async () => {
    const ws = makeWorkspace();
    const person = approver();
    const run = await runScripted(
      [call("read_file", { path: "README.md" }), call("list_files"), call("search_text", { text: "version" }), call("current_time"), { content: "done" }],
      { workspace: ws.root, approver: person.answer },
    );
    expect(run.calls.every((event) => event.decision === "allowed")).toBe(true);
    expect(person.requests).toHaveLength(0);
  });
});

describe("rules", () => {
  test("an --allow rule skips the approver", async () => {
    const ws = makeWorkspace();
    const person = approver();
    const run = await runScripted([write("new.txt", "ok"), { content: "done" }], { workspace: ws.root, allow: ["write_file"], approver: person.answer });
    expect(run.calls[0]!.decision).toBe("allowed");
    expect(read(ws, "new.txt")).toBe("ok");
    expect(person.requests).toHaveLength(0);
  });

  test("--deny beats --allow, and the approver is not asked", async () => {
    const ws = makeWorkspace();
    const person = approver("yes");
    const run = await runScripted([write("new.txt", "no"), { content: "done" }], {
      workspace: ws.root,
      allow: ["write_file"],
      deny: ["write_file"],
      approver: person.answer,
    });
    expect(run.calls[0]!.decision).toBe("denied");
    expect(run.calls[0]!.reason).toContain("write_file");
    expect(existsSync(join(ws.root, "new.txt"))).toBe(false);
    expect(person.requests).toHaveLength(0);
  });

  test("a deny rule also stops tools that need no approval", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("read_file", { path: "README.md" }), { content: "done" }], { workspace: ws.root, deny: ["read_file"] });
    expect(run.calls[0]!.decision).toBe("denied");
    expect(run.model.seen()).not.toContain("semver-lite");
  });

  test("TOOL:GLOB matches the path argument", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(
      [write("src/extra.ts", "a"), write("src/deep/more.ts", "b"), write("README.md", "c"), write("./src/dot.ts", "d"), { content: "done" }],
      { workspace: ws.root, allow: ["write_file:src/**"] },
    );
    expectWellFormedRun(run);
    expect(run.calls.map((event) => event.decision)).toEqual(["allowed", "allowed", "denied", "allowed"]);
    expect(read(ws, "src/extra.ts")).toBe("a");
    expect(read(ws, "src/deep/more.ts")).toBe("b");
    expect(read(ws, "README.md")).not.toBe("c");
  });

  test("a path glob cannot be dodged with .. inside the workspace", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([write("src/../README.md", "dodged"), { content: "done" }], { workspace: ws.root, allow: ["write_file:src/**"] });
    expect(run.calls[0]!.decision).toBe("denied");
    expect(read(ws, "README.md")).not.toBe("dodged");
  });

  test("TOOL:GLOB deny on the path argument", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([write("bun.lock", "x"), write("pkg/yarn.lock", "x"), write("ok.txt", "x"), { content: "done" }], {
      workspace: ws.root,
      allow: ["write_file"],
      deny: ["write_file:**/*.lock"],
    });
    expect(run.calls.map((event) => event.decision)).toEqual(["denied", "denied", "allowed"]);
  });

  test("TOOL:GLOB matches the check name (run_check:tests)", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("run_check", { name: "tests" }), call("run_check", { name: "lint" }), { content: "done" }], {
      workspace: ws.root,
      checks: CHECKS,
      deny: ["run_check:tests"],
    });
    expectWellFormedRun(run);
    expect(run.calls.map((event) => event.decision)).toEqual(["denied", "allowed"]);
    expect(toolMessagesAfter(run, 2)[0]!.content).toContain("Check lint passed");
  });

  test("an unconfigured check is refused", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("run_check", { name: "deploy" }), { content: "done" }], { workspace: ws.root, checks: CHECKS });
    expect(run.calls[0]!.decision).toBe("refused");
  });
});

describe("--no-execute and --no-tools", () => {
  test("--no-execute: nothing runs, every call is answered 'not executed'", async () => {
    const ws = makeWorkspace();
    const before = read(ws, "NOTES.md");
    const person = approver();
    const run = await runScripted(
      [
        write("NOTES.md", "changed", "w"),
        call("read_file", { path: "README.md" }, "r"),
        call("update_todo", { items: [{ text: "x", status: "pending" }] }, "t"),
        call("finish", { summary: "done" }, "f"),
        { content: "text answer" },
      ],
      { workspace: ws.root, execute: false, allow: ["write_file"], approver: person.answer },
    );
    expectWellFormedRun(run);
    expect(read(ws, "NOTES.md")).toBe(before);
    expect(run.model.seen()).not.toContain("semver-lite");
    expect(person.requests).toHaveLength(0);
    expect(run.calls).toHaveLength(4);
    for (const event of run.calls) {
      expect(event.decision).toBe("refused");
      expect(event.reason).toContain("not executed");
    }
    for (let step = 1; step <= 4; step++) expect(toolMessagesAfter(run, step)[0]!.content).toContain("not executed");
    // finish was not executed either: the run ends on the text answer.
    expect(run.stop).toMatchObject({ status: "completed", answer: "text answer", steps: 5 });
    // The tools were still offered.
    expect(run.model.requests[0]!.tools.map((tool) => tool.name)).toContain("write_file");
  });

  test("--no-tools: no tool declarations are sent, and a call anyway is refused", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("read_file", { path: "README.md" }), { content: "done" }], { workspace: ws.root, offerTools: false });
    expectWellFormedRun(run);
    expect(run.model.requests[0]!.tools).toEqual([]);
    expect((run.events[0] as EventOf<"run_start">).tools).toEqual([]);
    expect(run.calls[0]!.decision).toBe("refused");
    expect(run.calls[0]!.reason).toContain("offers no tools");
    expect(run.model.seen()).not.toContain("semver-lite");
  });

  test("offerTools false sends no declarations even when the checkpoint holds tools", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([{ content: "done" }], { workspace: ws.root, offerTools: false, tools: defaultTools({}) });
    expect(run.model.requests[0]!.tools).toEqual([]);
    expect((run.events[0] as EventOf<"run_start">).tools).toEqual([]);
  });
});

describe("the checkpoint itself", () => {
  function checkpointWith(tools = defaultTools(CHECKS), options: { allow?: string[]; execute?: boolean } = {}) {
    const ws = makeWorkspace();
    const checkpoint = new Checkpoint({
      tools,
      workspace: new Workspace(ws.root),
      clock: new FakeClock(),
      policy: new Policy((options.allow ?? []).map((rule) => parseRule(rule, TOOL_NAMES))),
      maxResultChars: 2000,
      execute: options.execute ?? true,
    });
    return { ws, checkpoint, signal: new AbortController().signal };
  }

  test("declarations come from the tool schemas, without $schema", () => {
    const { checkpoint } = checkpointWith();
    const declarations = checkpoint.declarations();
    expect(declarations.map((tool) => tool.name)).toEqual(["list_files", "read_file", "search_text", "find_files", "repo_map", "find_symbol", "find_references", "write_file", "edit_file", "delete_file", "move_file", "run_check", "run_command", "explore", "current_time", "update_todo", "finish"]);
    const readFile = declarations.find((tool) => tool.name === "read_file")!;
    expect(readFile.parameters).not.toHaveProperty("$schema");
    expect(readFile.parameters).toMatchObject({ type: "object", required: ["path"], additionalProperties: false });
    const runCheck = declarations.find((tool) => tool.name === "run_check")!;
    expect(JSON.stringify(runCheck.parameters)).toContain('"enum":["tests","lint"]');
  });

  test("an unknown tool is refused with the list of tools", async () => {
    const { checkpoint, signal } = checkpointWith();
    const verdict = await checkpoint.handle({ id: "x", name: "rm_rf", arguments: {} }, signal);
    expect(verdict.decision).toBe("refused");
    expect(verdict.content).toStartWith("Refused:");
    expect(verdict.content).toContain("read_file");
  });

  test("a tool failing inside: decision error, the model gets a generic sentence, the detail goes to the log", async () => {
    const ws = makeWorkspace();
    const broken = defineTool({
      name: "broken",
      description: "fails",
      schema: z.object({}).strict(),
      needsApproval: false,
      plan: async () => ({
        execute: async () => {
          throw new Error("EACCES /home/someone/private/path");
        },
      }),
    });
    const run = await runScripted([call("broken", {}, "b"), { content: "done" }], { workspace: ws.root, tools: [broken] });
    expectWellFormedRun(run);
    expect(run.calls[0]!.decision).toBe("error");
    expect(toolMessagesAfter(run, 1)[0]!.content).toBe(INTERNAL_FAILURE);
    expect(run.model.seen()).not.toContain("/home/someone");
    const detail = run.events.find((event) => event.kind === "tool_error") as EventOf<"tool_error">;
    expect(detail).toMatchObject({ id: "b", tool: "broken" });
    expect(detail.detail).toContain("EACCES /home/someone/private/path");
    // The tool_error follows its tool_call.
    expect(run.events.indexOf(detail)).toBe(run.events.indexOf(run.calls[0]!) + 1);
  });

  test("a Refusal thrown while running is a refusal, not an internal error", async () => {
    const ws = makeWorkspace();
    const picky = defineTool({
      name: "picky",
      description: "refuses late",
      schema: z.object({}).strict(),
      needsApproval: false,
      plan: async () => ({
        execute: async () => {
          throw new Refusal("That cannot be done now.");
        },
      }),
    });
    const run = await runScripted([call("picky"), { content: "done" }], { workspace: ws.root, tools: [picky] });
    expect(run.calls[0]!.decision).toBe("refused");
    expect(toolMessagesAfter(run, 1)[0]!.content).toBe("Refused: That cannot be done now.");
    expect(run.events.some((event) => event.kind === "tool_error")).toBe(false);
  });

  test("an allowed result is clipped to maxResultChars", async () => {
    const { ws, checkpoint, signal } = checkpointWith();
    await Bun.write(join(ws.root, "big.txt"), "y".repeat(10_000));
    const verdict = await checkpoint.handle({ id: "r", name: "read_file", arguments: { path: "big.txt" } }, signal);
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content.length).toBeLessThanOrEqual(2000);
  });

  test("an allowed finish carries its summary", async () => {
    const { checkpoint, signal } = checkpointWith();
    const verdict = await checkpoint.handle({ id: "f", name: "finish", arguments: { summary: "fixed it" } }, signal);
    expect(verdict).toMatchObject({ decision: "allowed", finished: { summary: "fixed it" } });
    const refused = await checkpoint.handle({ id: "f", name: "finish", arguments: { summary: "" } }, signal);
    expect(refused.decision).toBe("refused");
    expect(refused.finished).toBeUndefined();
  });
});

describe("a yes that comes too late", () => {
  const cases: Array<[tool: string, args: object]> = [
    ["write_file", { path: "LATE.md", content: "written after the end" }],
    ["edit_file", { path: "README.md", old: "# ", new: "# LATE " }],
  ];
  for (const [tool, args] of cases) {
    test(`${tool}: approved after the run was stopped, nothing is written`, async () => {
      const ws = makeWorkspace();
      const before = readFileSync(join(ws.root, "README.md"), "utf8");
      const stop = new AbortController();
      // The person presses y just after the deadline passed: the signal is already aborted.
      const lateYes: Approver = async () => (stop.abort(), "yes");
      const verdict = await gate(ws.root, { approver: lateYes }).call(tool, args, stop.signal);
      expect(verdict.decision).toBe("stopped");
      expect(verdict.content).toContain("approved after the run had ended");
      expect(existsSync(join(ws.root, "LATE.md"))).toBe(false);
      expect(readFileSync(join(ws.root, "README.md"), "utf8")).toBe(before);
    });
  }
});

describe("tool names spelled loosely", () => {
  const named = (name: string) => defineTool({ name, description: name, schema: z.object({}).strict(), needsApproval: false, plan: async () => ({ execute: async () => `ran ${name}` }) });

  test("a name that differs from an offered one only by case or -/_ reaches that tool; the reason says how the model wrote it", async () => {
    const ws = makeWorkspace();
    const run = await runScripted(
      [call("Read-File", { path: "README.md" }, "c1"), call("CURRENT_TIME", {}, "c2"), { content: "done" }],
      { workspace: ws.root },
    );
    expectWellFormedRun(run);
    expect(run.calls.map((event) => [event.tool, event.decision, event.reason])).toEqual([
      ["read_file", "allowed", 'the model wrote "Read-File"'],
      ["current_time", "allowed", 'the model wrote "CURRENT_TIME"'],
    ]);
    expect(toolMessagesAfter(run, 1)[0]!.content).toContain("semver-lite");
  });

  test("a refusal keeps its sentence and adds the spelling", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("READ_FILE", { path: "../out.txt" }), { content: "done" }], { workspace: ws.root });
    expect(run.calls[0]!.decision).toBe("refused");
    expect(run.calls[0]!.reason).toEndWith('(the model wrote "READ_FILE")');
  });

  test("two offered names that collide loosely are reached exactly only", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("notes_read", {}, "a"), call("Notes-Read", {}, "b"), call("NOTES_READ", {}, "c"), { content: "done" }], {
      workspace: ws.root,
      tools: [named("notes_read"), named("Notes-Read")],
    });
    expect(run.calls.map((event) => [event.tool, event.decision])).toEqual([
      ["notes_read", "allowed"],
      ["Notes-Read", "allowed"],
      ["NOTES_READ", "refused"],
    ]);
    expect(toolMessagesAfter(run, 1)[0]!.content).toBe("ran notes_read");
    expect(toolMessagesAfter(run, 2)[0]!.content).toBe("ran Notes-Read");
  });

  test("a name that is more than a loose spelling is unknown", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("readfile", { path: "README.md" }), { content: "done" }], { workspace: ws.root });
    expect(run.calls[0]).toMatchObject({ tool: "readfile", decision: "refused" });
  });
});
