import type { GgufInfo, GgufMemory } from "./gguf.ts";

/** The largest window glassbox asks of a model by default, whatever its trained length and the memory: beyond it a slot's prefill is minutes on a laptop. */
export const WINDOW_CEILING = 131_072;
/** A window past any sliding window, where the cache's cost per token is measured. */
const MEASURE_AT = 1 << 20;
/** The smallest window sized by memory (a model trained for less gets its trained length). */
const WINDOW_FLOOR = 4096;
/** The share of free memory (after the weights) the KV cache may take. */
const KV_SHARE = 0.5;
/** llama-server's -c rounds to this. */
const WINDOW_STEP = 256;
/** What llama.cpp keeps of a sliding-window layer without --swa-full: the window plus one batch (n_ubatch, 512 by default). */
const SWA_BATCH = 512;
/** Bytes of one K or V value in llama-server's default cache type (f16). */
const KV_VALUE_BYTES = 2;
/** When the file does not say how wide its KV cache is: a 7B-class model's (28 layers, 4 KV heads of 128). */
const FALLBACK_TOKEN_BYTES = 28 * 4 * 128 * 2 * KV_VALUE_BYTES;

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** How glassbox starts llama-server for a GGUF file, by what its architecture and the machine allow. */
export interface ServerPlan {
  /** The window per slot, and why (a sentence naming the trained length, the memory or the config). */
  window: number;
  windowReason: string;
  /** Flags added for the architecture (`--swa-full`), before the person's own arguments. */
  flags: string[];
  /** What was chosen for the prompt cache and what it costs, in a sentence; null for a model with nothing to choose. */
  cachePlan: string | null;
  /** For a cache miss's cause: what the server's cache cannot keep, as started; null when it keeps a changed history. */
  cacheNote: string | null;
  /** Compaction in fewer, larger steps: the server cannot keep the cache past a change earlier in the conversation. */
  batchedCompaction: boolean;
}

export interface PlanInputs {
  /** model_options.num_ctx, when set: the window, whatever else. */
  numCtx?: number;
  slots: number;
  /** Free memory in bytes (os.freemem()). */
  freeBytes: number;
  /** The person's llama_server.args: a --swa-full there is kept, never added twice. */
  userArgs: readonly string[];
  /** llama_server.swa_full: "auto" (absent) adds --swa-full where its cache fits the budget; true always; false never. */
  swaFull?: boolean | "auto";
}

/** KV cache bytes of one token in one layer (K and V). */
function tokenLayerBytes(memory: GgufMemory): number | null {
  return memory.kvHeads && memory.headDim ? 2 * memory.kvHeads * memory.headDim * KV_VALUE_BYTES : null;
}

/** The KV cache of `window` tokens a slot over `slots` slots, with or without --swa-full. */
export function kvBytes(memory: GgufMemory, window: number, slots: number, swaFull: boolean): number {
  const perLayer = tokenLayerBytes(memory);
  if (!perLayer || !memory.layers) return FALLBACK_TOKEN_BYTES * window * slots;
  const sliding = swaFull || !memory.slidingWindow ? 0 : memory.slidingLayers;
  const slidingTokens = Math.min(window * slots, (memory.slidingWindow ?? 0) * slots + SWA_BATCH);
  return perLayer * ((memory.layers - sliding) * window * slots + sliding * slidingTokens);
}

/**
 * The window and the flags for a GGUF file. The window: the config's num_ctx; else the trained
 * length, up to WINDOW_CEILING and what half the free memory (after the weights) holds of KV
 * cache. The cache: sliding-window layers get --swa-full where its full-size cache fits that
 * budget (it keeps the prefix up to a change earlier in the conversation, which llama-server's
 * context checkpoints do not); otherwise, and for recurrent or hybrid layers, compaction in
 * fewer, larger steps.
 */
export function planServer(info: GgufInfo, inputs: PlanInputs): ServerPlan {
  const budget = Math.max(0, inputs.freeBytes - info.sizeBytes) * KV_SHARE;
  const sized = sizeWindow(info, inputs, budget);
  return { ...sized, ...cacheChoice(info, sized.window, inputs, budget) };
}

function sizeWindow(info: GgufInfo, inputs: PlanInputs, budget: number): { window: number; windowReason: string } {
  if (inputs.numCtx) return { window: inputs.numCtx, windowReason: `model_options.num_ctx is ${inputs.numCtx}` };
  const trained = info.contextLength;
  // What one more token of window costs (the full-attention layers), and what the sliding layers take whatever the window.
  const [far, farther] = [kvBytes(info.memory, MEASURE_AT, inputs.slots, false), kvBytes(info.memory, 2 * MEASURE_AT, inputs.slots, false)];
  const perToken = (farther - far) / MEASURE_AT;
  const fixed = far - perToken * MEASURE_AT;
  const byMemory = Math.max(WINDOW_FLOOR, Math.floor((budget - fixed) / perToken / WINDOW_STEP) * WINDOW_STEP);
  const fromFile = trained ?? 32_768;
  const window = Math.min(fromFile, byMemory, WINDOW_CEILING);
  const memoryWords = `${gib(inputs.freeBytes)} free, less the weights' ${gib(info.sizeBytes)}: half of it holds ${byMemory.toLocaleString("en")} tokens of KV cache at ${kib(perToken)} a token`;
  if (window === fromFile) return { window, windowReason: trained ? `the model's trained length (${trained.toLocaleString("en")} tokens); memory allows it (${memoryWords})` : `32,768: the file does not say its trained length (${memoryWords})` };
  if (window === byMemory) return { window, windowReason: `free memory: ${memoryWords}; the model was trained for ${fromFile.toLocaleString("en")}` };
  return { window, windowReason: `glassbox's ceiling of ${WINDOW_CEILING.toLocaleString("en")} tokens (trained for ${fromFile.toLocaleString("en")}; ${memoryWords})` };
}

function cacheChoice(info: GgufInfo, window: number, inputs: PlanInputs, budget: number): Pick<ServerPlan, "flags" | "cachePlan" | "cacheNote" | "batchedCompaction"> {
  const { memory, architecture } = info;
  if (memory.recurrent) {
    return {
      flags: [],
      cachePlan: `recurrent or hybrid layers (${architecture}): llama-server cannot cut their state back to a change earlier in the conversation, so compaction is done in fewer, larger steps`,
      cacheNote: `a model with recurrent or hybrid layers (${architecture}), whose cache cannot keep a changed history`,
      batchedCompaction: true,
    };
  }
  if (!memory.slidingWindow) return { flags: [], cachePlan: null, cacheNote: null, batchedCompaction: false };
  const layers = `sliding-window layers (${memory.slidingLayers} of ${memory.layers}, window ${memory.slidingWindow})`;
  const full = kvBytes(memory, window, inputs.slots, true);
  const sliding = kvBytes(memory, window, inputs.slots, false);
  const cost = `${mib(full)} of KV cache instead of ${mib(sliding)}`;
  if (inputs.userArgs.includes("--swa-full")) return { flags: [], cachePlan: `${layers}: --swa-full from llama_server.args keeps the prompt cache past a compaction, at ${cost}`, cacheNote: null, batchedCompaction: false };
  const swaFull = inputs.swaFull ?? "auto";
  if (swaFull === true || (swaFull === "auto" && full <= budget)) {
    const forced = swaFull === true ? " (llama_server.swa_full is true)" : "";
    return { flags: ["--swa-full"], cachePlan: `${layers}: --swa-full keeps the prompt cache past a compaction, at ${cost}${forced}`, cacheNote: null, batchedCompaction: false };
  }
  const why = swaFull === false ? "llama_server.swa_full is false" : "more than half the free memory";
  return {
    flags: [],
    cachePlan: `${layers}: --swa-full would take ${cost}, ${why}, so compaction is done in fewer, larger steps`,
    cacheNote: `a sliding-window model (${architecture}) started without --swa-full, whose cache cannot keep a changed history`,
    batchedCompaction: true,
  };
}

const gib = (bytes: number) => `${(bytes / GiB).toFixed(1)} GiB`;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
