import { expect, test } from "bun:test";
import type { Candidate, Discovery } from "../../src/model/discovery.ts";
import { pickerLines } from "../../src/tui/model-picker.ts";

const ollama = (name: string, size: number | null = 986061892, contextLength: number | null = 32768): Candidate => ({ server: "ollama", spec: `ollama:${name}`, name, baseUrl: "http://127.0.0.1:11434", size, contextLength, tools: true });
const found = (candidates: Candidate[]): Discovery => ({
  candidates,
  servers: [
    { server: "llamacpp", url: "http://127.0.0.1:8080", answered: false, problem: "connection refused" },
    { server: "ollama", url: "http://127.0.0.1:11434", answered: true, problem: null },
  ],
});
const plain = (lines: string[]) => lines.map((line) => line.replace(/\{\/?(bold|inverse|gray-fg)\}/g, ""));

test("each model with its server, size and context; the selected row marked; the model in use said; silent servers named", () => {
  const lines = plain(pickerLines(found([ollama("qwen2.5:1.5b"), ollama("qwen3:4b", 2497293918, null)]), 1, "ollama:qwen3:4b", 30));
  expect(lines).toContain("   qwen2.5:1.5b  Ollama    986 MB  context 32768");
  expect(lines).toContain(" › qwen3:4b      Ollama    2.5 GB  context ?  (in use)");
  expect(lines).toContain(" no model from llama.cpp at http://127.0.0.1:8080: connection refused");
});

test("a long list shows a window that keeps the selected row in view, and says where it is", () => {
  const many = Array.from({ length: 40 }, (_, i) => ollama(`model-${String(i).padStart(2, "0")}:1b`));
  const lines = plain(pickerLines(found(many), 35, null, 16));
  expect(lines.length).toBeLessThanOrEqual(16);
  expect(lines.some((line) => line.startsWith(" › model-35:1b"))).toBe(true);
  expect(lines.some((line) => line.includes("model-00:1b"))).toBe(false);
  expect(lines.find((line) => / of 40$/.test(line))).toMatch(/^ \d+–36 of 40$/);
});

test("what a server says is escaped: a model name cannot open a tag or reach the terminal", () => {
  const lines = pickerLines(found([ollama("evil{bold}\u001b[2J:1b")]), 0, null, 30);
  const row = lines.find((line) => line.includes("evil"))!;
  expect(row).toContain("evil{open}bold{close}^[[2J:1b");
  expect(lines.join("\n")).not.toContain("\u001b");
});

test("nothing answering: why, for each address, and how to start a server", () => {
  const lines = plain(pickerLines({ candidates: [], servers: [{ server: "ollama", url: "http://127.0.0.1:11434", answered: true, problem: "no chat model installed" }] }, 0, null, 30));
  expect(lines).toContain(" No model answers.");
  expect(lines).toContain(" no model from Ollama at http://127.0.0.1:11434: no chat model installed");
  expect(lines.join("\n")).toContain("ollama serve");
  expect(lines.join("\n")).toContain("press r to ask again");
});

test("a GGUF file: its name, size and trained window; files that are not usable are named below, the first few with the reason", () => {
  const file: Candidate = { server: "gguf", spec: "gguf:/home/me/models/tiny.gguf", name: "tiny.gguf", baseUrl: "/home/me/models/tiny.gguf", size: 84318144, contextLength: 32768, tools: null };
  const unusable = Array.from({ length: 5 }, (_, i) => ({ path: `${process.env.HOME}/models/cut-${i}.gguf`, problem: "is truncated: its header ends past the file's 4 bytes" }));
  const lines = plain(pickerLines({ ...found([ollama("qwen3:4b"), file]), unusable }, 1, null, 30));
  expect(lines).toContain(" › tiny.gguf  GGUF file  84 MB  context 32768");
  expect(lines).toContain(" not usable: ~/models/cut-0.gguf is truncated: its header ends past the file's 4 bytes");
  expect(lines).toContain(" not usable: ~/models/cut-2.gguf is truncated: its header ends past the file's 4 bytes");
  expect(lines.join("\n")).not.toContain("cut-3.gguf");
  expect(lines).toContain(" and 2 more GGUF files that are not usable");
});
