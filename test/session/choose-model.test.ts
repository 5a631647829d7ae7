import { expect, test } from "bun:test";
import { parseCli } from "../../src/cli/args.ts";
import { openSession } from "../../src/session/session.ts";
import { startRun } from "../../src/session/start-run.ts";
import type { AgentEvent } from "../../src/protocol/events.ts";
import { scriptFile } from "../helpers/cli.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

async function events(run: ReturnType<typeof startRun>): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of run.events) seen.push(event);
  return seen;
}

test("a session opened with no model has none until one is chosen; a run before that ends saying what to do", async () => {
  const ws = makeWorkspace();
  const session = openSession(parseCli(["run", "--workspace", ws.root, "t"]));
  expect(session.spec).toBeNull();
  const stop = (await events(startRun(session, "hello"))).at(-1)!;
  expect(stop).toMatchObject({ kind: "stop", status: "model_error", reason: expect.stringContaining("no model is chosen: pass --model SPEC") });

  const spec = scriptFile([{ content: "hi from the chosen model" }]);
  session.chooseModel(spec, undefined, null);
  expect(session.spec).toBe(spec);
  const after = (await events(startRun(session, "hello"))).at(-1)!;
  expect(after).toMatchObject({ kind: "stop", status: "completed", answer: "hi from the chosen model" });
});
