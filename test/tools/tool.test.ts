/**
 * A tool that fails inside: the model is told only that it failed; the detail (which may name
 * paths of the machine) goes to a tool_error event for the log. A Refusal is not a failure.
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { INTERNAL_FAILURE } from "../../src/core/checkpoint.ts";
import { defineTool, Refusal, type Tool } from "../../src/tools/tool.ts";
import { makeWorkspace } from "../helpers/workspace.ts";
import { call, runScripted } from "../helpers/run.ts";

const SECRET_PATH = "/home/alice/.ssh/id_ed25519";

function throwing(name: string, where: "plan" | "execute", error: () => unknown, needsApproval = false): Tool {
  return defineTool({
    name,
    description: "A tool that breaks.",
    schema: z.object({ x: z.number().optional() }).strict(),
    needsApproval,
    async plan() {
      if (where === "plan") throw error();
      return {
        target: "t",
        async execute(): Promise<string> {
          throw error();
        },
      };
    },
  });
}

describe("an exception inside a tool", () => {
  const rows: Array<[label: string, tool: Tool]> = [
    ["thrown while running", throwing("breaks", "execute", () => new Error(`EACCES: permission denied, open '${SECRET_PATH}'`))],
    ["thrown in preflight", throwing("breaks", "plan", () => new Error(`ENOENT: no such file, stat '${SECRET_PATH}'`))],
    ["a thrown string", throwing("breaks", "execute", () => `cannot read ${SECRET_PATH}`)],
    ["a TypeError", throwing("breaks", "execute", () => new TypeError(`Cannot read properties of undefined (reading '${SECRET_PATH}')`))],
  ];
  for (const [label, tool] of rows) {
    test(label, async () => {
      const ws = makeWorkspace();
      const run = await runScripted([call("breaks", { x: 1 }, "k1"), { content: "moving on" }], { workspace: ws.root, tools: [tool] });
      expect(run.stop.status).toBe("completed");
      expect(run.calls).toHaveLength(1);
      const event = run.calls[0]!;
      expect(event.decision).toBe("error");
      expect(event.reason).not.toContain(SECRET_PATH);
      // The model got exactly the generic sentence, and the path appears nowhere it can see.
      const toolMessages = run.model.requests[1]!.messages.filter((m) => m.role === "tool");
      expect(toolMessages.map((m) => m.content)).toEqual([INTERNAL_FAILURE]);
      expect(INTERNAL_FAILURE).toStartWith("The tool failed internally");
      expect(run.model.seen()).not.toContain(SECRET_PATH);
      expect(event.result_chars).toBe(INTERNAL_FAILURE.length);
      // The detail is in exactly one tool_error event, right after its tool_call.
      const errors = run.events.filter((e) => e.kind === "tool_error");
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ kind: "tool_error", id: "k1", tool: "breaks", step: 1 });
      expect((errors[0] as { detail: string }).detail).toContain(SECRET_PATH);
      expect(run.events.indexOf(errors[0]!)).toBe(run.events.indexOf(event) + 1);
    });
  }

  test("a failing tool that needs approval is only run after approval, and still reports generically", async () => {
    const ws = makeWorkspace();
    let asked = 0;
    const run = await runScripted([call("breaks", {}), { content: "ok" }], {
      workspace: ws.root,
      tools: [throwing("breaks", "execute", () => new Error(SECRET_PATH), true)],
      approver: async () => (asked++, "yes"),
    });
    expect(asked).toBe(1);
    expect(run.calls[0]!.decision).toBe("error");
    expect(run.model.seen()).not.toContain(SECRET_PATH);
  });

  test("a Refusal thrown while running is a refusal the model reads, not an internal error", async () => {
    const ws = makeWorkspace();
    const run = await runScripted([call("breaks", {}), { content: "ok" }], {
      workspace: ws.root,
      tools: [throwing("breaks", "execute", () => new Refusal("Argument `x` is not what this tool wants."))],
    });
    expect(run.calls[0]!.decision).toBe("refused");
    expect(run.events.some((e) => e.kind === "tool_error")).toBe(false);
    expect(run.model.seen()).toContain("Refused: Argument `x` is not what this tool wants.");
  });
});
