#!/usr/bin/env bun
/**
 * The demo's recorded prompt sizes, counted again by a real llama-server: the built-in model plays
 * its script, and each request it gets is rendered by Qwen2.5's chat template and counted by its
 * tokenizer (the server's /apply-template and /tokenize, as a run on llama.cpp counts), the count
 * written into src/model/demo-script.json's `usage.prompt_tokens` in order. Run it when the
 * tools, their descriptions or the system prompt change: figures from a smaller tool set made the
 * demo's first screen warn that the server seemed to have cut the prompt.
 *
 *   bun scripts/demo-usage.ts
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseCli } from "../src/cli/args.ts";
import { demoArgs } from "../src/cli/demo.ts";
import { LlamaCppModel } from "../src/model/llamacpp.ts";
import { DEFAULT_MODEL_OPTIONS } from "../src/model/options.ts";
import type { ModelRequest } from "../src/protocol/model.ts";
import { openSession } from "../src/session/session.ts";
import { startRun } from "../src/session/start-run.ts";
import { startLlamaServer, testModel } from "./llama-server.ts";

const SCRIPT = join(import.meta.dir, "..", "src", "model", "demo-script.json");

const server = await startLlamaServer({ model: await testModel("prose") });
try {
  const counter = new LlamaCppModel("llamacpp", server.url, DEFAULT_MODEL_OPTIONS);
  // The script's last reply is played only when the person refuses the edit (the gate then refuses finish).
  const approved = await demoCounts(counter, true);
  const refused = await demoCounts(counter, false);
  const counts = [...approved, ...refused.slice(approved.length)];
  const text = readFileSync(SCRIPT, "utf8");
  const recorded = text.match(/"prompt_tokens": \d+/g) ?? [];
  if (recorded.length !== counts.length) throw new Error(`the script records ${recorded.length} prompt sizes and the demo made ${counts.length} requests`);
  let at = 0;
  writeFileSync(SCRIPT, text.replace(/"prompt_tokens": \d+/g, () => `"prompt_tokens": ${counts[at++]}`));
  console.log(`llama-server ${server.version}: the demo's ${counts.length} prompts count ${counts.join(", ")} tokens; written to ${SCRIPT}`);
} finally {
  await server.stop();
}

/** The prompt of each request the demo makes, counted by the server; `allowEdit` false plays the person's n. */
async function demoCounts(counter: LlamaCppModel, allowEdit: boolean): Promise<number[]> {
  const args = demoArgs(parseCli(["run", "--demo"]), true);
  const session = openSession({ ...args, allow: allowEdit ? args.allow : args.allow.filter((rule) => rule !== "edit_file") });
  const demo = session.model;
  const counts: number[] = [];
  session.model = {
    name: demo.name,
    async *reply(request: ModelRequest) {
      const counted = await counter.countPromptTokens(request.messages, request.tools, request.signal);
      if (counted === null) throw new Error("the server did not count the prompt");
      counts.push(counted);
      yield* demo.reply(request);
    },
  };
  try {
    for await (const event of startRun(session, "unused: the demo's own task").events) {
      if (event.kind === "stop" && event.status !== "completed") throw new Error(`the demo ended ${event.status}, not completed`);
    }
  } finally {
    rmSync(dirname(session.workspace.root), { recursive: true, force: true });
  }
  return counts;
}
