import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorkspace } from "../helpers/workspace.ts";
import { call, runScripted } from "../helpers/run.ts";
import { expectRefused, gate, recordingApprover } from "./harness.ts";

const read = (root: string, path: string) => readFileSync(join(root, path), "utf8");

describe("approved writes", () => {
  test("a new file is created with exactly the content, and the approver saw what and where", async () => {
    const ws = makeWorkspace();
    const { approver, requests } = recordingApprover("yes");
    const content = "line one\nline two — ünïcode\n";
    const verdict = await gate(ws.root, { approver }).call("write_file", { path: "notes/new.txt", content });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toBe(`Created notes/new.txt (${content.length} characters).`);
    expect(read(ws.root, "notes/new.txt")).toBe(content);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.tool).toBe("write_file");
    expect(requests[0]!.target).toBe("notes/new.txt");
    expect(requests[0]!.arguments).toEqual({ path: "notes/new.txt", content });
  });

  test("an existing file is replaced whole, and no temporary file is left beside it", async () => {
    const ws = makeWorkspace();
    const verdict = await gate(ws.root, { allow: ["write_file"] }).call("write_file", { path: "README.md", content: "short" });
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toBe("Replaced README.md (5 characters).");
    expect(read(ws.root, "README.md")).toBe("short");
    expect(readdirSync(ws.root).filter((name) => name.includes("glassbox") && name.endsWith(".tmp"))).toEqual([]);
  });

  test("an empty content makes an empty file", async () => {
    const ws = makeWorkspace();
    await gate(ws.root, { allow: ["write_file"] }).call("write_file", { path: "empty.txt", content: "" });
    expect(read(ws.root, "empty.txt")).toBe("");
  });
});

describe("denied writes change nothing", () => {
  const ORIGINAL = "original\n";
  const cases: Array<[label: string, options: Parameters<typeof gate>[1], reason: RegExp, asked: number]> = [
    ["the person says no", {}, /did not approve write_file on README\.md/, 1],
    ["nobody to ask (headless)", { approver: undefined }, /needs approval and no rule allows it/, 0],
    ["an allow rule for another path", { allow: ["write_file:src/**"], approver: undefined }, /needs approval/, 0],
    ["an allow rule for another tool", { allow: ["edit_file"], approver: undefined }, /needs approval/, 0],
    ["a deny rule", { deny: ["write_file:README.md"] }, /denied by the rule write_file:README\.md/, 0],
  ];
  for (const [label, options, reason, asked] of cases) {
    test(label, async () => {
      const ws = makeWorkspace();
      writeFileSync(join(ws.root, "README.md"), ORIGINAL);
      const { approver, requests } = recordingApprover("no");
      const verdict = await gate(ws.root, { approver, ...options }).call("write_file", { path: "README.md", content: "changed" });
      expect(verdict.decision).toBe("denied");
      expect(verdict.reason).toMatch(reason);
      expect(verdict.content).toBe(`Denied: ${verdict.reason}`);
      expect(requests).toHaveLength(asked);
      expect(read(ws.root, "README.md")).toBe(ORIGINAL);
    });
  }

  test("a denied new file is not created", async () => {
    const ws = makeWorkspace();
    const { approver } = recordingApprover("no");
    const verdict = await gate(ws.root, { approver }).call("write_file", { path: "fresh/x.txt", content: "x" });
    expect(verdict.decision).toBe("denied");
    expect(existsSync(join(ws.root, "fresh"))).toBe(false);
  });

  test("with --no-execute the call is refused and nothing is written or asked", async () => {
    const ws = makeWorkspace();
    const { approver, requests } = recordingApprover("yes");
    const verdict = await gate(ws.root, { approver, execute: false }).call("write_file", { path: "x.txt", content: "x" });
    expectRefused(verdict, ws, /not executed/);
    expect(existsSync(join(ws.root, "x.txt"))).toBe(false);
    expect(requests).toHaveLength(0);
  });
});

describe("rules: deny beats allow", () => {
  const rows: Array<[path: string, decision: "allowed" | "denied"]> = [
    ["yarn.lock", "denied"],
    ["pkg/deps.lock", "denied"],
    ["a/b/c/bun.lock", "denied"],
    ["notes.txt", "allowed"],
    ["lockfile.txt", "allowed"],
    ["src/new.ts", "allowed"],
  ];
  for (const [path, decision] of rows) {
    test(`--allow write_file --deny write_file:**/*.lock: ${path} is ${decision}`, async () => {
      const ws = makeWorkspace();
      const { approver, requests } = recordingApprover("yes");
      const verdict = await gate(ws.root, { approver, allow: ["write_file"], deny: ["write_file:**/*.lock"] }).call("write_file", {
        path,
        content: "x",
      });
      expect(verdict.decision).toBe(decision);
      expect(requests).toHaveLength(0);
      expect(existsSync(join(ws.root, path))).toBe(decision === "allowed");
      if (decision === "denied") expect(verdict.reason).toContain("write_file:**/*.lock");
    });
  }

  test("the deny rule wins even when the allow rule is the more specific one", async () => {
    const ws = makeWorkspace();
    const verdict = await gate(ws.root, { allow: ["write_file:yarn.lock"], deny: ["write_file"] }).call("write_file", { path: "yarn.lock", content: "x" });
    expect(verdict.decision).toBe("denied");
    expect(existsSync(join(ws.root, "yarn.lock"))).toBe(false);
  });

  test("'always' allows later writes for the session without asking again", async () => {
    const ws = makeWorkspace();
    const { approver, requests } = recordingApprover("always");
    const g = gate(ws.root, { approver });
    expect((await g.call("write_file", { path: "a.txt", content: "a" })).decision).toBe("allowed");
    expect((await g.call("write_file", { path: "b.txt", content: "b" })).decision).toBe("allowed");
    expect(requests).toHaveLength(1);
    expect(read(ws.root, "b.txt")).toBe("b");
  });

  test("'always' does not override a deny rule", async () => {
    const ws = makeWorkspace();
    const { approver } = recordingApprover("always");
    const g = gate(ws.root, { approver, deny: ["write_file:**/*.lock"] });
    await g.call("write_file", { path: "a.txt", content: "a" });
    expect((await g.call("write_file", { path: "x.lock", content: "x" })).decision).toBe("denied");
  });
});

test("through the loop: a denied write tells the model so, and the file is untouched", async () => {
  const ws = makeWorkspace();
  const before = read(ws.root, "src/version.ts");
  const run = await runScripted([call("write_file", { path: "src/version.ts", content: "// wiped\n" }), { content: "I could not write." }], {
    workspace: ws.root,
  });
  expect(run.stop.status).toBe("completed");
  expect(run.calls[0]!.decision).toBe("denied");
  const toolMessage = run.model.requests[1]!.messages.find((m) => m.role === "tool")!;
  expect(toolMessage.content).toStartWith("Denied: ");
  expect(toolMessage.content).toContain("src/version.ts");
  expect(read(ws.root, "src/version.ts")).toBe(before);
});

describe("a path that changes while the approval waits", () => {
  for (const tool of ["write_file", "edit_file"] as const) {
    test(`${tool}: a folder swapped for a link to outside during approval is refused, nothing written outside`, async () => {
      const ws = makeWorkspace();
      mkdirSync(join(ws.root, "docs"));
      writeFileSync(join(ws.root, "docs", "a.txt"), "old text\n");
      const outside = join(ws.outside, "elsewhere");
      mkdirSync(outside);
      writeFileSync(join(outside, "a.txt"), "old text\n");
      // The person "takes a while": meanwhile something replaces docs/ with a link leading out.
      const approver = async () => {
        renameSync(join(ws.root, "docs"), join(ws.root, "docs-moved"));
        symlinkSync(outside, join(ws.root, "docs"));
        return "yes" as const;
      };
      const args = tool === "write_file" ? { path: "docs/a.txt", content: "new text\n" } : { path: "docs/a.txt", old: "old", new: "new" };
      const verdict = await gate(ws.root, { approver }).call(tool, args);
      expectRefused(verdict, ws, "`path`");
      expect(readFileSync(join(outside, "a.txt"), "utf8")).toBe("old text\n");
    });
  }
});

test("a folder swapped for a link to another folder inside is refused too: the write would land on a file nobody approved", async () => {
  const ws = makeWorkspace();
  mkdirSync(join(ws.root, "docs"));
  writeFileSync(join(ws.root, "docs", "a.txt"), "approved target\n");
  mkdirSync(join(ws.root, "other"));
  writeFileSync(join(ws.root, "other", "a.txt"), "never approved\n");
  const approver = async () => {
    renameSync(join(ws.root, "docs"), join(ws.root, "docs-moved"));
    symlinkSync("other", join(ws.root, "docs"));
    return "yes" as const;
  };
  const verdict = await gate(ws.root, { approver }).call("write_file", { path: "docs/a.txt", content: "new\n" });
  expectRefused(verdict, ws, "`path`", /changed while the call waited for approval/);
  expect(readFileSync(join(ws.root, "other", "a.txt"), "utf8")).toBe("never approved\n");
});

test("a new file's folder swapped for a link to another folder inside is refused: the content would appear where nobody approved it", async () => {
  const ws = makeWorkspace();
  mkdirSync(join(ws.root, "docs"));
  mkdirSync(join(ws.root, "other"));
  const approver = async () => {
    renameSync(join(ws.root, "docs"), join(ws.root, "docs-moved"));
    symlinkSync("other", join(ws.root, "docs"));
    return "yes" as const;
  };
  const verdict = await gate(ws.root, { approver }).call("write_file", { path: "docs/new.txt", content: "new\n" });
  expectRefused(verdict, ws, "`path`", /where `docs\/new\.txt` leads changed/);
  expect(existsSync(join(ws.root, "other", "new.txt"))).toBe(false);
});
