/** The context policy a run gets: the config's, or compaction in fewer, larger steps for a server that cannot keep its cache past one. */
import { expect, test } from "bun:test";
import { contextPolicy } from "../../src/session/start-run.ts";
import { BATCHED_CONTEXT_POLICY, DEFAULT_CONTEXT_POLICY } from "../../src/core/discipline.ts";
import type { Session } from "../../src/session/session.ts";

const session = (batchedCompaction: boolean | null, context = DEFAULT_CONTEXT_POLICY) =>
  ({ ownServer: batchedCompaction === null ? null : { launch: { plan: { batchedCompaction } } }, config: { context } }) as unknown as Session;

test("glassbox's own server that cannot keep its cache past a compaction: fewer, larger compactions", () => {
  expect(contextPolicy(session(true))).toBe(BATCHED_CONTEXT_POLICY);
  expect(BATCHED_CONTEXT_POLICY.target_ratio).toBeLessThan(DEFAULT_CONTEXT_POLICY.target_ratio);
});

test("a server that keeps it, no server of glassbox's own, or a policy of the person's own: the config's", () => {
  expect(contextPolicy(session(false))).toBe(DEFAULT_CONTEXT_POLICY);
  expect(contextPolicy(session(null))).toBe(DEFAULT_CONTEXT_POLICY);
  const own = { ...DEFAULT_CONTEXT_POLICY, soft_ratio: 0.7 };
  expect(contextPolicy(session(true, own))).toBe(own);
});
