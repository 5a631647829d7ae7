/** What the outside sees of the sandbox: run_start, `sandbox: "require"` without one, doctor's line. */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { glassbox, scriptFile } from "../helpers/cli.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

const NONE_AVAILABLE = { GLASSBOX_SANDBOX_KINDS: "none" };

function workspaceWith(config: object): string {
  const ws = makeWorkspace();
  writeFileSync(join(ws.root, "glassbox.json"), JSON.stringify(config));
  return ws.root;
}

describe.if(process.platform === "linux")("the sandbox from the outside", () => {
  const rows: Array<[label: string, env: Record<string, string>, config: object, expected: object]> = [
    ["bwrap where it works", {}, {}, { kind: "bwrap", network: false, secrets_hidden: true }],
    ["a check with network: true says so", {}, { checks: { net: { argv: ["true"], network: true } } }, { kind: "bwrap", network: true, secrets_hidden: true }],
    ["Landlock when bwrap is left out", { GLASSBOX_SANDBOX_KINDS: "landlock" }, {}, { kind: "landlock", network: false, secrets_hidden: true, reason: expect.stringContaining("bwrap: left out") }],
    ["none, unsandboxed, when nothing is available", NONE_AVAILABLE, {}, { kind: "none", network: true, secrets_hidden: false, reason: expect.stringContaining("landlock: left out") }],
    ["none when the config turns it off", {}, { sandbox: "off" }, { kind: "none", secrets_hidden: false, reason: "sandbox is off in the config" }],
  ];
  for (const [label, env, config, expected] of rows) {
    test(`run_start carries the sandbox: ${label}`, async () => {
      const root = workspaceWith(config);
      const result = await glassbox(["run", "--json", "--model", scriptFile([{ content: "done" }]), "--workspace", root, "task"], { env });
      expect(result.code).toBe(0);
      expect(result.events[0]).toMatchObject({ kind: "run_start", sandbox: expected });
    });
  }

  test('sandbox "require" with none available exits 2, naming what is missing and how to get it; nothing runs', async () => {
    const root = workspaceWith({ sandbox: "require" });
    const result = await glassbox(["run", "--json", "--model", scriptFile([{ content: "done" }]), "--workspace", root, "task"], { env: NONE_AVAILABLE });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('sandbox is "require" but no sandbox can run here');
    expect(result.stderr).toContain("install bubblewrap");
    expect(result.stderr).toContain("Landlock");
  });

  test("with no sandbox the built-in git allow asks (headless: denied, saying why), and the printed line says so; with bwrap it runs", async () => {
    const root = workspaceWith({});
    Bun.spawnSync(["git", "init", "-q"], { cwd: root });
    const model = () => scriptFile([{ content: "", tool_calls: [{ id: "g1", name: "run_command", arguments: { argv: ["git", "status"] } }] }, { content: "done" }]);
    const none = await glassbox(["run", "--model", model(), "--workspace", root, "task"], { env: NONE_AVAILABLE });
    expect(none.stdout + none.stderr).toContain("checks UNSANDBOXED");
    expect(none.stdout + none.stderr).toContain("git status/diff/log/show ask (no read-only sandbox)");
    const denied = await glassbox(["run", "--json", "--model", model(), "--workspace", root, "task"], { env: NONE_AVAILABLE });
    expect(denied.events.find((event) => event.kind === "tool_call")).toMatchObject({ tool: "run_command", decision: "denied" });
    const sandboxed = await glassbox(["run", "--json", "--model", model(), "--workspace", root, "task"]);
    expect(sandboxed.events.find((event) => event.kind === "tool_call")).toMatchObject({ tool: "run_command", decision: "allowed" });
  }, 30_000);

  test('sandbox "require" where bwrap works runs', async () => {
    const root = workspaceWith({ sandbox: "require" });
    const result = await glassbox(["run", "--json", "--model", scriptFile([{ content: "done" }]), "--workspace", root, "task"]);
    expect(result.code).toBe(0);
    expect(result.events[0]!.sandbox.kind).toBe("bwrap");
  });

  test("a sandbox mode that does not exist is a usage error naming the key", async () => {
    const root = workspaceWith({ sandbox: "strict" });
    const result = await glassbox(["run", "--model", scriptFile([{ content: "done" }]), "--workspace", root, "task"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"sandbox"');
  });

  test("doctor prints the sandbox line; with none it fails with the fix", async () => {
    const root = workspaceWith({});
    const model = scriptFile([{ content: "OK" }]);
    const good = await glassbox(["doctor", "--model", model, "--workspace", root]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^ok {4}sandbox: bwrap · net off · secrets hidden/m);
    expect(good.stdout).toContain("nor .env or .env.* at any depth of the workspace");
    const bad = await glassbox(["doctor", "--model", model, "--workspace", root], { env: NONE_AVAILABLE });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^FAIL {2}sandbox: none, checks run UNSANDBOXED/m);
    expect(bad.stdout).toMatch(/fix: .*install bubblewrap/);
  });
});
