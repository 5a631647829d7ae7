// A sub-run against a real llama-server started as glassbox starts one for gguf: (one slot): the
// parent's first request after the sub-run reprocesses at most the sub-run's answer and 64 tokens
// around it, as the server counts (timings.prompt_n), whether the sub-run comes first or after a
// long parent, and with a system prompt too large to share; a sub-run that shares the parent's
// system prompt finds it cached. The prompts go to the server through the bench's proxy (one token
// each), the replies are scripted (scripts/bench-subrun.ts).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent, EventOf } from "../../src/protocol/events.ts";
import { assemble, builtinLayers } from "../../src/prompt/layers.ts";
import { ANSWER, ARMS, FEE_FILE, runTask, script, serverBackend, writeRepository, type Backend } from "../../scripts/bench-subrun.ts";
import type { CachedReply } from "../helpers/cache-server.ts";
import { LLAMA_START_TIMEOUT, withoutLlama } from "../helpers/llama.ts";

const AROUND = 64;
const WITH_BOTH = ARMS.find((arm) => arm.name === "sub-run + map")!;
const call = (name: string, args: Record<string, unknown>): CachedReply => ({ call: { name, arguments: args } });

/** The parent's replies: its own and the sub-run's, in the order they are asked for. */
const replies = (parentReads: number): CachedReply[] => [
  ...Array.from({ length: parentReads }, (_, i) => call("read_file", { path: `src/checkout/${["model", "service", "rules", "format", "store", "events"][i]}.ts` })),
  ...script(WITH_BOTH),
];

/** The parent's reply right after the sub-run's stop, and the explore call's answer. */
function afterSubRun(events: AgentEvent[]): { reply: EventOf<"model_reply">; answer: string; subFirst: EventOf<"model_reply"> } {
  const stop = events.findIndex((event) => event.kind === "stop" && event.sub_run !== undefined);
  const reply = events.slice(stop).find((event): event is EventOf<"model_reply"> => event.kind === "model_reply" && event.sub_run === undefined)!;
  const answer = events.find((event): event is EventOf<"tool_call"> => event.kind === "tool_call" && event.tool === "explore")!.result;
  const subFirst = events.find((event): event is EventOf<"model_reply"> => event.kind === "model_reply" && event.sub_run !== undefined)!;
  return { reply, answer, subFirst };
}

describe.skipIf(await withoutLlama())("a sub-run on glassbox's own llama-server: the parent's prompt stays cached", () => {
  let root: string;
  let backend: Backend | null = null;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "glassbox-test-sub-run-llama-"));
    writeRepository(root);
  });
  afterEach(async () => {
    await backend?.stop();
    backend = null;
    rmSync(root, { recursive: true, force: true });
  });

  const play = async (parentReads: number, systemPrompt?: string) => {
    backend = await serverBackend(replies(parentReads), root);
    const events = await runTask(root, backend.model, WITH_BOTH, systemPrompt);
    expect(events.at(-1)).toMatchObject({ kind: "stop", status: "completed" });
    return { events, ...afterSubRun(events) };
  };

  const processed = (reply: EventOf<"model_reply">) => reply.prompt_tokens! - reply.cached_tokens!;

  test("explore first, a short sub-run (the map): the parent processes the answer and what is around it; the sub-run found the system prompt cached", async () => {
    const { reply, answer, subFirst } = await play(0);
    expect(answer).toBe(ANSWER);
    const answerTokens = await backend!.tokens(answer);
    expect(processed(reply)).toBeLessThanOrEqual(answerTokens + AROUND);
    const system = await backend!.tokens(assemble(builtinLayers()));
    expect(subFirst.cached_tokens!).toBeGreaterThanOrEqual(system - 2);
  }, LLAMA_START_TIMEOUT);

  test("after a parent that read six files (about 8k tokens), a short sub-run: the same", async () => {
    const { reply, answer } = await play(6);
    expect(reply.prompt_tokens!).toBeGreaterThan(8_000);
    expect(processed(reply)).toBeLessThanOrEqual((await backend!.tokens(answer)) + AROUND);
  }, LLAMA_START_TIMEOUT);

  test("a system prompt of about 4k tokens (a map layer), too large to share: the parent is kept all the same", async () => {
    const layer = Array.from({ length: 300 }, (_, i) => `src/area${i % 30}/part${i}.ts:\n  ${i + 1}: export function step${i}(lines: Line[]): number`).join("\n");
    const { reply, answer, events } = await play(2, `${assemble(builtinLayers())}\n\n${layer}`);
    expect(processed(reply)).toBeLessThanOrEqual((await backend!.tokens(answer)) + AROUND);
    const subStart = events.find((event): event is EventOf<"run_start"> => event.kind === "run_start" && event.sub_run !== undefined)!;
    expect(subStart.task).toContain("Where is the shipping fee computed?");
    expect(FEE_FILE).toBe("src/delivery/rules.ts");
  }, LLAMA_START_TIMEOUT);
});
