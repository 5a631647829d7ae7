import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { Checkpoint, type ApprovalRequest } from "../../src/core/checkpoint.ts";
import { Policy, parseRule } from "../../src/core/policy.ts";
import { systemClock } from "../../src/protocol/clock.ts";
import { collectServers, McpServersSchema } from "../../src/mcp/config.ts";
import { McpHub } from "../../src/mcp/hub.ts";
import { TrustStore } from "../../src/mcp/trust.ts";
import { TOOL_NAMES } from "../../src/tools/index.ts";
import { Workspace } from "../../src/files/workspace.ts";
import { stdioFixture, tool } from "../helpers/mcp-fixture.ts";
import { tempFolder } from "../helpers/workspace.ts";

// Each test starts real server processes (Bun plus the SDK): slow on a loaded machine.
setDefaultTimeout(30_000);

const hubs: McpHub[] = [];
// Closing sends SIGKILL to each server's group at once; waiting for the reaping only slows the suite
// down on a loaded machine (the process-tree test below waits, and checks).
afterEach(() => {
  for (const hub of hubs.splice(0)) void hub.close();
});

/** A checkpoint offering the fixture's tools, with `allow` rules and an approver that records what it is asked. */
async function checkpointFor(tools: ReturnType<typeof tool>[], allow: string[], answer: "yes" | "no" | "always" | null) {
  const fx = stdioFixture({ tools });
  const root = new Workspace(tempFolder("ws")).root;
  const servers = collectServers(McpServersSchema.parse({ fx: fx.config }), join(tempFolder("user"), "c.json"), root);
  const hub = new McpHub(servers, root, null, () => {}, new TrustStore(join(tempFolder("xdg"), "trust.json")));
  hubs.push(hub);
  await hub.start();
  const asked: ApprovalRequest[] = [];
  const checkpoint = new Checkpoint({
    tools: [],
    moreTools: () => hub.tools(),
    workspace: new Workspace(root),
    clock: systemClock,
    policy: new Policy(allow.map((text) => parseRule(text, TOOL_NAMES, ["fx"]))),
    approver: answer ? async (request) => (asked.push(request), answer) : undefined,
    maxResultChars: 80,
    execute: true,
  });
  const handle = (name: string, args: unknown) => checkpoint.handle({ id: "c", name, arguments: args }, new AbortController().signal);
  return { checkpoint, handle, asked, fx, hub };
}

const readOnly = tool("lookup", "Looks things up.\u200b", undefined, { annotations: { readOnlyHint: true } });

test("every MCP call needs approval, readOnlyHint or not: with nobody to ask it is denied", async () => {
  const { handle } = await checkpointFor([readOnly], [], null);
  const verdict = await handle("mcp__fx__lookup", { text: "x" });
  expect(verdict.decision).toBe("denied");
  expect(verdict.reason).toContain("mcp__fx__lookup needs approval");
});

test("an allow rule lets the call through; arguments are validated first, naming the field", async () => {
  const { handle } = await checkpointFor([readOnly], ["mcp__fx__*"], null);
  expect(await handle("mcp__fx__lookup", { text: "x" })).toMatchObject({ decision: "allowed", content: '[from MCP server fx, tool lookup]\necho {"text":"x"}' });
  expect(await handle("mcp__fx__lookup", { text: 5 })).toMatchObject({ decision: "refused", reason: "Argument `text` of mcp__fx__lookup must be string." });
  expect(await handle("mcp__fx__lookup", '{"text": "x", "path": "/etc/passwd"}')).toMatchObject({ decision: "refused", reason: expect.stringContaining("Unexpected argument `path`") });
});

test("results are clipped to max_result_chars", async () => {
  const { handle } = await checkpointFor([readOnly], ["mcp__fx__lookup"], null);
  const verdict = await handle("mcp__fx__lookup", { text: "y".repeat(500) });
  expect(verdict.content.length).toBeLessThanOrEqual(80);
  expect(verdict.content).toContain("characters cut");
});

test("the person sees the description; 'always' spares the next question; a changed definition is withdrawn", async () => {
  const { handle, asked, fx, hub } = await checkpointFor([readOnly], [], "always");
  expect((await handle("mcp__fx__lookup", { text: "1" })).decision).toBe("allowed");
  expect(asked).toHaveLength(1);
  expect(asked[0]).toMatchObject({ tool: "mcp__fx__lookup", description: "Looks things up.\u200b", why: expect.stringContaining("1 hidden character (zero-width 1)") });
  expect((await handle("mcp__fx__lookup", { text: "2" })).decision).toBe("allowed");
  expect(asked).toHaveLength(1);
  // Same name, new definition: withdrawn at once.
  fx.update({ tools: [tool("lookup", "Looks things up, and more.", undefined, { annotations: { readOnlyHint: true } })] });
  for (const started = Date.now(); hub.tools().length && Date.now() - started < 10_000; ) await Bun.sleep(25);
  expect((await handle("mcp__fx__lookup", { text: "3" })).decision).toBe("refused");
});

test("'always' is bound to the tool's pinned digest: a new definition under the same name asks again", async () => {
  const { z } = await import("zod");
  const version = (digest: string) => ({
    name: "mcp__fx__t",
    description: "d",
    schema: z.record(z.string(), z.unknown()),
    external: { parameters: { type: "object" }, validate: (value: Record<string, unknown>) => value },
    needsApproval: true,
    approval: { why: "asked", description: "d", digest },
    plan: async () => ({ execute: async () => "ran" }),
  });
  let offered = version("aaaa");
  const asked: string[] = [];
  const checkpoint = new Checkpoint({
    tools: [],
    moreTools: () => [offered],
    workspace: new Workspace(tempFolder("ws")),
    clock: systemClock,
    policy: new Policy(),
    approver: async (request) => (asked.push(request.tool), asked.length === 1 ? "always" : "no"),
    maxResultChars: 100,
    execute: true,
  });
  const handle = () => checkpoint.handle({ id: "c", name: "mcp__fx__t", arguments: {} }, new AbortController().signal);
  expect((await handle()).decision).toBe("allowed");
  expect((await handle()).decision).toBe("allowed");
  expect(asked).toHaveLength(1);
  offered = version("bbbb");
  expect((await handle()).decision).toBe("denied");
  expect(asked).toHaveLength(2);
});
