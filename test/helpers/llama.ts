/**
 * A real llama.cpp llama-server for the tests, from scripts/llama-server.ts: found on the machine
 * or unpacked from Debian unstable into a cache outside the repo, serving a tiny generated model.
 *
 *   describe.skipIf(await withoutLlama())("against a real llama-server", () => {
 *     let server: LlamaServer;
 *     beforeAll(async () => { server = await llamaServer("tools"); }, LLAMA_START_TIMEOUT);
 *     …
 *   });
 *
 * Servers are shared: one per (kind, options) for the whole `bun test` process, so many files
 * reuse one (never stop() a shared server). They stop when the process ends, by the watchdog
 * startLlamaServer gives each (bun test runs no "exit" handlers).
 */
import { findLlamaServer, startLlamaServer, testModel, type LlamaServer, type TestModelKind } from "../../scripts/llama-server.ts";
import { required } from "./required.ts";
import { processAlive as alive } from "../../src/platform/process-alive.ts";

export type { LlamaServer, TestModelKind };

export interface SharedLlamaOptions {
  /** Context size (-c), 32768 by default. */
  ctx?: number;
  /** Parallel slots (-np), 1 by default. */
  slots?: number;
  /** The model's seed. */
  seed?: number;
  /** What the model says it was trained for (n_ctx_train), 32768 by default. */
  contextLength?: number;
  /** More llama-server arguments. */
  args?: string[];
}

/** What a beforeAll should allow for llamaServer(): writing a model (~1.5 s) and loading it (~0.5 s), on a loaded machine. */
export const LLAMA_START_TIMEOUT = 120_000;

/** Whether this run insists on a real llama-server: .ci/run sets GLASSBOX_REQUIRE_LLAMA=1, so its tests fail rather than skip. */
export function llamaRequired(): boolean {
  return required("llama");
}

let warned = false;

/**
 * For describe.skipIf: true when no llama-server can be had here and this run does not insist on
 * one. Finds it, or unpacks it once per cache (a download of ~13 MB), so await it at the top of
 * the file. When GLASSBOX_REQUIRE_LLAMA=1 it is false, and llamaServer() fails with the reason;
 * GLASSBOX_SKIP_LLAMA=1 (`npm run test:quick`) skips them by choice.
 */
export async function withoutLlama(): Promise<boolean> {
  if (process.env.GLASSBOX_SKIP_LLAMA === "1" && !llamaRequired()) return true;
  const found = await findLlamaServer();
  if (!("missing" in found) || llamaRequired()) return false;
  if (!warned) console.warn(`no llama-server, its tests are skipped: ${found.missing}`);
  warned = true;
  return true;
}

const shared = new Map<string, Promise<LlamaServer>>();

/** The shared, started server for this kind and these options; started on first use, restarted if it died. */
export async function llamaServer(kind: TestModelKind, options: SharedLlamaOptions = {}): Promise<LlamaServer> {
  const key = JSON.stringify([kind, options.ctx, options.slots, options.seed, options.contextLength, options.args]);
  const known = shared.get(key);
  if (known) {
    const server = await known.catch(() => null);
    if (server && alive(server.pid)) return server;
  }
  const starting = start(kind, options);
  shared.set(key, starting);
  starting.catch(() => shared.get(key) === starting && shared.delete(key));
  return starting;
}

async function start(kind: TestModelKind, options: SharedLlamaOptions): Promise<LlamaServer> {
  const model = await testModel(kind, { seed: options.seed, contextLength: options.contextLength });
  return startLlamaServer({ model, ctx: options.ctx, slots: options.slots, args: options.args });
}

