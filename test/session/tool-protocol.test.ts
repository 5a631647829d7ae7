/** The config's tool_protocol, through a whole `glassbox run`: run_start says the protocol, and a prompted call is answered. */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { glassbox, scriptFile } from "../helpers/cli.ts";
import { folderWith } from "../helpers/workspace.ts";

const CALL_TEXT = 'Reading.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>';

async function run(setting: string | null, json = true) {
  const root = folderWith({ "README.md": "# A tiny project\n" }, "tool-protocol");
  if (setting) writeFileSync(join(root, "glassbox.json"), JSON.stringify({ tool_protocol: setting, text_tool_calls: false }));
  const model = scriptFile([{ content: CALL_TEXT }, { content: "It is a tiny project." }]);
  return glassbox(["run", ...(json ? ["--json"] : []), "--model", model, "--workspace", root, "what is this?"]);
}

test('tool_protocol "prompted": run_start says so, and a call written in the reply\'s text is answered though text_tool_calls is off', async () => {
  const { code, events } = await run("prompted");
  expect(code).toBe(0);
  expect(events[0]).toMatchObject({ kind: "run_start", tool_protocol: "prompted" });
  expect(events.find((event) => event.kind === "tool_call")).toMatchObject({ tool: "read_file", decision: "allowed", from_text: true });
  expect(events.at(-1)).toMatchObject({ kind: "stop", status: "completed", answer: "It is a tiny project." });
});

test("the headless printer names the prompted protocol on its first line", async () => {
  const { stdout } = await run("prompted", false);
  expect(stdout.split("\n")[0]).toContain(" (tools in the prompt: the prompted tool protocol) · workspace ");
  expect(stdout).toContain("read_file (written as text)");
});

test("the default (auto) with a model that cannot say what its template has: native, said in run_start", async () => {
  const { events } = await run(null);
  expect(events[0]).toMatchObject({ kind: "run_start", tool_protocol: "native" });
});

test("a tool_protocol that is no protocol is a usage error naming the key", async () => {
  const { code, stderr } = await run("telepathic");
  expect(code).toBe(2);
  expect(stderr).toContain("tool_protocol");
});
