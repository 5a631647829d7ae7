import { expect, test } from "bun:test";
import { WINDOW_CEILING, kvBytes, planServer } from "../../src/model/server-plan.ts";
import type { GgufInfo, GgufMemory } from "../../src/model/gguf.ts";

const GiB = 1024 ** 3;
/** Gemma 3 4B's shape: 34 layers, 4 KV heads of 256, five of every six layers sliding over 1,024 tokens, trained for 131,072. */
const GEMMA3_4B: GgufMemory = { layers: 34, kvHeads: 4, headDim: 256, slidingWindow: 1024, slidingLayers: 29, recurrent: false };
/** Qwen2.5 7B's: 28 layers, 4 KV heads of 128, no sliding window. */
const QWEN_7B: GgufMemory = { layers: 28, kvHeads: 4, headDim: 128, slidingWindow: null, slidingLayers: 0, recurrent: false };
const HYBRID: GgufMemory = { layers: 48, kvHeads: 2, headDim: 256, slidingWindow: null, slidingLayers: 0, recurrent: true };

const info = (memory: GgufMemory, contextLength: number | null = 131_072, sizeBytes = 3 * GiB): GgufInfo => ({ architecture: "gemma3", name: null, contextLength, sizeBytes, memory });
const inputs = (freeBytes: number, extra: Partial<Parameters<typeof planServer>[1]> = {}) => ({ slots: 1, freeBytes, userArgs: [], ...extra });

test("the KV cache: every layer a token without sliding windows; sliding layers keep their window and a batch unless --swa-full", () => {
  const perLayer = 2 * 4 * 256 * 2;
  expect(kvBytes(GEMMA3_4B, 32_768, 1, true)).toBe(perLayer * 34 * 32_768);
  expect(kvBytes(GEMMA3_4B, 32_768, 1, false)).toBe(perLayer * (5 * 32_768 + 29 * (1024 + 512)));
  // About 5 times the memory at 32k for Gemma 3's pattern.
  expect(kvBytes(GEMMA3_4B, 32_768, 1, true) / kvBytes(GEMMA3_4B, 32_768, 1, false)).toBeCloseTo(5.35, 2);
  expect(kvBytes(QWEN_7B, 1000, 2, false)).toBe(2 * 4 * 128 * 2 * 28 * 2000);
});

test("the window passes 32768 where the trained length and memory allow, up to the ceiling, and says why", () => {
  const roomy = planServer(info(QWEN_7B, 131_072), inputs(64 * GiB));
  expect(roomy.window).toBe(WINDOW_CEILING);
  expect(roomy.windowReason).toContain("the model's trained length (131,072 tokens)");
  const trained = planServer(info(QWEN_7B, 65_536), inputs(64 * GiB));
  expect(trained).toMatchObject({ window: 65_536, flags: [], cachePlan: null, batchedCompaction: false });
});

test("memory bounds the window: half of what the weights leave, in KV cache tokens, rounded to 256", () => {
  const plan = planServer(info(QWEN_7B, 131_072, 4 * GiB), inputs(6 * GiB));
  const perToken = 2 * 4 * 128 * 2 * 28;
  expect(plan.window).toBe(Math.floor(GiB / perToken / 256) * 256);
  expect(plan.windowReason).toStartWith("free memory: 6.0 GiB free, less the weights' 4.0 GiB");
  expect(planServer(info(QWEN_7B, 131_072, 8 * GiB), inputs(6 * GiB)).window).toBe(4096);
});

test("num_ctx in the config is the window, whatever else", () => {
  expect(planServer(info(QWEN_7B), inputs(64 * GiB, { numCtx: 12_000 }))).toMatchObject({ window: 12_000, windowReason: "model_options.num_ctx is 12000" });
});

test("sliding-window layers get --swa-full where its full-size cache fits, the cost printed; no cause left for a miss", () => {
  const plan = planServer(info(GEMMA3_4B, 32_768), inputs(16 * GiB));
  expect(plan.flags).toEqual(["--swa-full"]);
  expect(plan.cachePlan).toBe("sliding-window layers (29 of 34, window 1024): --swa-full keeps the prompt cache past a compaction, at 4352.0 MiB of KV cache instead of 814.0 MiB");
  expect(plan).toMatchObject({ cacheNote: null, batchedCompaction: false });
});

test("where --swa-full does not fit: compaction in fewer, larger steps, and a miss's cause names the model", () => {
  const plan = planServer(info(GEMMA3_4B, 32_768), inputs(8 * GiB));
  expect(plan.flags).toEqual([]);
  expect(plan.batchedCompaction).toBe(true);
  expect(plan.cachePlan).toContain("--swa-full would take");
  expect(plan.cacheNote).toBe("a sliding-window model (gemma3) started without --swa-full, whose cache cannot keep a changed history");
});

test("llama_server.swa_full: false never adds it, where it would fit; true adds it where it does not; each plan says so", () => {
  const never = planServer(info(GEMMA3_4B, 32_768), inputs(16 * GiB, { swaFull: false }));
  expect(never).toMatchObject({ flags: [], batchedCompaction: true, cacheNote: "a sliding-window model (gemma3) started without --swa-full, whose cache cannot keep a changed history" });
  expect(never.cachePlan).toBe("sliding-window layers (29 of 34, window 1024): --swa-full would take 4352.0 MiB of KV cache instead of 814.0 MiB, llama_server.swa_full is false, so compaction is done in fewer, larger steps");
  const always = planServer(info(GEMMA3_4B, 32_768), inputs(8 * GiB, { swaFull: true }));
  expect(always).toMatchObject({ flags: ["--swa-full"], batchedCompaction: false, cacheNote: null });
  expect(always.cachePlan).toEndWith("(llama_server.swa_full is true)");
  expect(planServer(info(GEMMA3_4B, 32_768), inputs(16 * GiB, { swaFull: "auto" })).flags).toEqual(["--swa-full"]);
  // A model with no sliding window is not touched by it.
  expect(planServer(info(QWEN_7B), inputs(64 * GiB, { swaFull: true })).flags).toEqual([]);
});

test("a --swa-full of the person's own is kept and not added again; recurrent or hybrid layers: fewer, larger compactions", () => {
  const own = planServer(info(GEMMA3_4B, 32_768), inputs(64 * GiB, { userArgs: ["--swa-full"] }));
  expect(own.flags).toEqual([]);
  expect(own.cachePlan).toContain("--swa-full from llama_server.args");
  const hybrid = planServer(info(HYBRID), inputs(64 * GiB));
  expect(hybrid).toMatchObject({ flags: [], batchedCompaction: true });
  expect(hybrid.cacheNote).toContain("recurrent or hybrid layers");
});
