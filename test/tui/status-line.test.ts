/**
 * --insecure-tls on the status line: beside the model, for as long as it is on, whatever else the
 * line shows (the keys when idle, a warning first when there is one).
 */
import { expect, test } from "bun:test";
import { statusLine, type StatusFacts } from "../../src/tui/status-line.ts";

const facts: StatusFacts = { state: "idle", queued: 0, warning: "", model: "openai:https://gpu-box:8000/v1", workspace: "/ws", sandbox: { kind: "none", reason: "" } as never };
const plain = (text: string) => text.replace(/\{\/?[a-z-]+\}/g, "");

test("--insecure-tls is shown in red beside the model while it is on, and not otherwise", () => {
  expect(plain(statusLine({ ...facts, insecureTls: true }))).toStartWith(" openai:https://gpu-box:8000/v1 · insecure TLS · /ws · ");
  expect(statusLine({ ...facts, insecureTls: true })).toContain("{red-fg}insecure TLS{/red-fg}");
  expect(plain(statusLine({ ...facts, insecureTls: true, warning: "stopping the run…" }))).toContain("stopping the run… · openai:https://gpu-box:8000/v1 · insecure TLS · /ws");
  expect(plain(statusLine(facts))).not.toContain("insecure");
});

test("the model's profile (glassbox tune wrote it) is named beside the model; none, nothing is said", () => {
  const profiled = { ...facts, profile: "/home/me/.config/glassbox/profiles/qwen2.5-coder-7b-q4_k_m.gguf-1a2b3c4d5e6f.json" };
  expect(plain(statusLine(profiled))).toStartWith(" openai:https://gpu-box:8000/v1 · profile qwen2.5-coder-7b-q4_k_m.gguf-1a2b3c4d5e6f · /ws · ");
  expect(plain(statusLine({ ...profiled, warning: "stopping the run…" }))).toContain("openai:https://gpu-box:8000/v1 · profile qwen2.5-coder-7b-q4_k_m.gguf-1a2b3c4d5e6f · /ws");
  expect(plain(statusLine({ ...facts, profile: null }))).not.toContain("profile");
});
