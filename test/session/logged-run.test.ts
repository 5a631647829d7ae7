/** The run log is written before anyone sees an event: a crash right after a yield loses no line. */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parseCli } from "../../src/cli/args.ts";
import { openSession } from "../../src/session/session.ts";
import { startRun } from "../../src/session/start-run.ts";
import { scriptFile } from "../helpers/cli.ts";
import { call } from "../helpers/run.ts";
import { makeWorkspace } from "../helpers/workspace.ts";

test("each event's line is in the log at the moment the event is yielded", async () => {
  const ws = makeWorkspace();
  const model = scriptFile([call("read_file", { path: "README.md" }), { content: "done" }]);
  const session = openSession(parseCli(["run", "--model", model, "--workspace", ws.root, "read it"]));
  const run = startRun(session, "read it");
  const seen: string[] = [];
  for await (const event of run.events) {
    // Streaming deltas are not logged: their text is whole in model_reply.
    if (event.kind === "model_delta") continue;
    const lines = readFileSync(run.logPath, "utf8").trim().split("\n");
    expect(JSON.parse(lines.at(-1)!)).toEqual(JSON.parse(JSON.stringify(event)));
    seen.push(event.kind);
  }
  expect(seen[0]).toBe("run_start");
  expect(seen.at(-1)).toBe("stop");
  expect(seen).toContain("tool_call");
});
