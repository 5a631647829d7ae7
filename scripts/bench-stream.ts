#!/usr/bin/env bun
/**
 * Tokens per second through adapter + loop + log, with no TUI: a fake llama.cpp server on
 * 127.0.0.1 streams one token per SSE event as fast as it can, in the captures' chunk shape. Also
 * reports the harness's CPU time per token (this process only; the server runs in a child).
 *
 *   bun scripts/bench-stream.ts [TOKENS]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlamaCppModel } from "../src/model/llamacpp.ts";
import { ModelOptionsSchema } from "../src/model/options.ts";
import { Checkpoint } from "../src/core/checkpoint.ts";
import { Policy } from "../src/core/policy.ts";
import { systemClock } from "../src/protocol/clock.ts";
import { resolveLimits } from "../src/protocol/limits.ts";
import { runAgent } from "../src/core/loop.ts";
import { Workspace } from "../src/files/workspace.ts";
import { EventLog } from "../src/trace/event-log.ts";
import { WireLog } from "../src/trace/wire-log.ts";

const TOKENS = Number(process.argv[2] ?? 200_000);

if (process.env.GLASSBOX_BENCH_SERVER) {
  // The server side, in its own process so its work is not counted as the harness's.
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ choices: [{ finish_reason: finish, index: 0, delta }], created: 1796011079, id: "chatcmpl-bench", model: "models/tiny-32k.gguf", system_fingerprint: "b0-82bb485", object: "chat.completion.chunk" })}\n\n`;
  const encoder = new TextEncoder();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch(request) {
      if (new URL(request.url).pathname === "/props") return Response.json({ default_generation_settings: { n_ctx: 1_000_000_000 } });
      const count = Number(process.env.GLASSBOX_BENCH_TOKENS);
      let sent = 0;
      const stream = new ReadableStream({
        pull(controller) {
          // Batches of events per write, as a fast server's socket would deliver them.
          let batch = "";
          for (let i = 0; i < 256 && sent < count; i++, sent++) batch += chunk({ content: ` w${sent}` });
          if (batch) return controller.enqueue(encoder.encode(batch));
          controller.enqueue(encoder.encode(chunk({}, "stop") + `data: ${JSON.stringify({ choices: [], usage: { completion_tokens: count, prompt_tokens: 10, total_tokens: count + 10 } })}\n\ndata: [DONE]\n\n`));
          controller.close();
        },
      });
      return new Response(stream, { headers: { "Content-Type": "text/event-stream" } });
    },
  });
  console.log(server.port);
} else {
  const child = Bun.spawn([process.execPath, import.meta.path], { env: { ...process.env, GLASSBOX_BENCH_SERVER: "1", GLASSBOX_BENCH_TOKENS: String(TOKENS) }, stdout: "pipe" });
  const reader = child.stdout.getReader();
  const port = new TextDecoder().decode((await reader.read()).value).trim();
  const root = mkdtempSync(join(tmpdir(), "glassbox-bench-stream-"));
  const workspace = new Workspace(root);
  const options = ModelOptionsSchema.parse({ max_tokens: TOKENS });
  const model = new LlamaCppModel("llamacpp", `http://127.0.0.1:${port}`, options, new WireLog(join(root, ".glassbox", "wire.jsonl")));
  const log = new EventLog(join(root, ".glassbox", "runs", "bench.jsonl"));
  const checkpoint = new Checkpoint({ tools: [], workspace, clock: systemClock, policy: new Policy(), maxResultChars: 2000, execute: true });

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let deltas = 0;
  let status = "";
  for await (const event of runAgent({
    runId: "bench",
    task: "stream",
    systemPrompt: "",
    model,
    checkpoint,
    offerTools: false,
    limits: resolveLimits({ max_transcript_chars: 1e9, deadline_seconds: 600 }),
    clock: systemClock,
    workspace: root,
    replyTokenCap: TOKENS,
  })) {
    log.write(event);
    if (event.kind === "model_delta") deltas++;
    if (event.kind === "stop") status = event.status;
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  child.kill();
  rmSync(root, { recursive: true, force: true });
  if (status !== "completed" || deltas !== TOKENS) throw new Error(`bench run ended ${status} with ${deltas} of ${TOKENS} tokens`);
  console.log(`${TOKENS} tokens streamed through adapter + loop + log in ${seconds.toFixed(2)} s`);
  console.log(`throughput: ${Math.round(TOKENS / seconds).toLocaleString("en")} tokens/s`);
  console.log(`harness CPU: ${((cpuSeconds / TOKENS) * 1e6).toFixed(2)} µs per token (${cpuSeconds.toFixed(2)} s of CPU, ${(cpuSeconds / seconds).toFixed(2)} cores)`);
}
