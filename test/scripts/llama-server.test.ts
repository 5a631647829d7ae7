/**
 * scripts/llama-server.ts: the generated models are what llama.cpp expects (read back from the
 * GGUF header) and the same bytes for a seed; the real server they run in streams text, calls
 * tools, is started as asked, and stops, also when its parent is killed.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startLlamaServer, testModel, writeTestModel } from "../../scripts/llama-server.ts";
import { LLAMA_START_TIMEOUT, llamaServer, withoutLlama, type LlamaServer } from "../helpers/llama.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { processAlive as alive } from "../../src/platform/process-alive.ts";

const TEMPLATE = readFileSync(join(import.meta.dir, "../fixtures/llama-server/qwen2.5-instruct.jinja"), "utf8");

describe("writeTestModel", () => {
  let prose: Gguf;
  let tools: Gguf;
  beforeAll(async () => {
    const folder = tempFolder("gguf");
    await writeTestModel("prose", join(folder, "prose.gguf"), { seed: 3 });
    await writeTestModel("tools", join(folder, "tools.gguf"), { seed: 3, contextLength: 8192 });
    prose = readGguf(readFileSync(join(folder, "prose.gguf")));
    tools = readGguf(readFileSync(join(folder, "tools.gguf")));
  }, 60_000);

  test("writes GGUF v3 with qwen2's shape as the converter would", () => {
    expect(prose.version).toBe(3);
    expect(prose.metadata).toMatchObject({
      "general.architecture": "qwen2",
      "qwen2.block_count": 2,
      "qwen2.context_length": 32768,
      "qwen2.embedding_length": 128,
      "qwen2.feed_forward_length": 256,
      "qwen2.attention.head_count": 2,
      "qwen2.attention.head_count_kv": 1,
    });
    expect(tools.metadata["qwen2.context_length"]).toBe(8192);
    expect(prose.tensors.get("token_embd.weight")).toEqual({ dims: [128, 151936], type: 1 });
    expect(prose.tensors.get("blk.1.attn_k.weight")).toEqual({ dims: [128, 64], type: 1 });
    expect(prose.tensors.get("output_norm.weight")).toEqual({ dims: [128], type: 0 });
    // Prose ties its output to the embedding; the tools model's own output holds its bigrams.
    expect(prose.tensors.has("output.weight")).toBe(false);
    expect(tools.tensors.get("output.weight")).toEqual({ dims: [128, 151936], type: 1 });
    expect(prose.size).toBeLessThan(50e6);
    expect(tools.size).toBeLessThan(90e6);
  });

  test("carries Qwen2.5's tokenizer and chat template", () => {
    const meta = prose.metadata;
    expect(meta).toMatchObject({
      "tokenizer.ggml.model": "gpt2",
      "tokenizer.ggml.pre": "qwen2",
      "tokenizer.ggml.bos_token_id": 151643,
      "tokenizer.ggml.eos_token_id": 151645,
      "tokenizer.ggml.add_bos_token": false,
      "tokenizer.chat_template": TEMPLATE,
    });
    const tokens = meta["tokenizer.ggml.tokens"] as string[];
    const types = meta["tokenizer.ggml.token_type"] as number[];
    expect(tokens).toHaveLength(151936);
    expect(types).toHaveLength(151936);
    expect((meta["tokenizer.ggml.merges"] as string[]).slice(0, 2)).toEqual(["Ġ Ġ", "ĠĠ ĠĠ"]);
    const token = (id: number) => ({ text: tokens[id], type: types[id] });
    expect(token(21927)).toEqual({ text: "ĠHello", type: 1 });
    expect(token(151645)).toEqual({ text: "<|im_end|>", type: 3 });
    expect(token(151657)).toEqual({ text: "<tool_call>", type: 4 });
    expect(token(151664)).toEqual({ text: "<|file_sep|>", type: 3 });
    expect(token(151665)).toEqual({ text: "[PAD151665]", type: 5 });
    expect(token(151935)).toEqual({ text: "[PAD151935]", type: 5 });
  });

  test.each(["prose", "tools"] as const)("%s: the same bytes for a seed, others for another", async (kind) => {
    const folder = tempFolder("gguf-seed");
    const digest = async (seed: number, name: string) => {
      await writeTestModel(kind, join(folder, name), { seed });
      return Bun.hash(readFileSync(join(folder, name))).toString(16);
    };
    const first = await digest(11, "a.gguf");
    expect(await digest(11, "b.gguf")).toBe(first);
    expect(await digest(12, "c.gguf")).not.toBe(first);
  }, 60_000);
});

describe.skipIf(await withoutLlama())("a real llama-server with the test models", () => {
  let prose: LlamaServer;
  let tools: LlamaServer;
  beforeAll(async () => {
    [prose, tools] = await Promise.all([llamaServer("prose"), llamaServer("tools")]);
  }, LLAMA_START_TIMEOUT);

  test("the prose model streams text over /v1/chat/completions", async () => {
    const chunks = await streamChat(prose.url, { messages: [{ role: "user", content: "Hello" }], max_tokens: 8 });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? "").join("");
    expect(text.length).toBeGreaterThan(0);
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta?.content).length).toBeGreaterThan(1);
    expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toMatch(/^(length|stop)$/);
  }, 30_000);

  test("the tools model answers with one real tool call, the same again after the tool's result", async () => {
    const user = { role: "user", content: "What does the README say?" };
    const first = await chat(tools.url, { messages: [user], tools: [READ_FILE], max_tokens: 200 });
    expect(first.finish_reason).toBe("tool_calls");
    const call = first.message.tool_calls[0];
    expect(call.function.name).toBe("read_file");
    expect(JSON.parse(call.function.arguments)).toEqual({ path: expect.any(String) });

    const result = { role: "tool", tool_call_id: call.id, content: "# Toy\n" };
    const second = await chat(tools.url, { messages: [user, first.message, result], tools: [READ_FILE], max_tokens: 200 });
    expect(second.finish_reason).toBe("tool_calls");
  }, 60_000);

  test("runs with the -c and -np it was started with (/props), and stop() ends it", async () => {
    const server = await startLlamaServer({ model: await testModel("prose"), ctx: 4096, slots: 2 });
    try {
      const props = (await (await fetch(`${server.url}/props`)).json()) as { total_slots: number; default_generation_settings: { n_ctx: number } };
      // The window is shared out among the slots.
      expect({ slots: props.total_slots, perSlot: props.default_generation_settings.n_ctx }).toEqual({ slots: 2, perSlot: 2048 });
      const models = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: { meta: { n_ctx_train: number } }[] };
      expect(models.data[0]?.meta.n_ctx_train).toBe(32768);
    } finally {
      await server.stop();
    }
    expect(alive(server.pid)).toBe(false);
    expect(await fetch(`${server.url}/health`).catch(() => "refused")).toBe("refused");
  }, LLAMA_START_TIMEOUT);

  test("a server outlives no parent: SIGKILL the process that started it and it stops", async () => {
    const model = await testModel("prose");
    const script = `const { startLlamaServer } = await import(${JSON.stringify(join(import.meta.dir, "../../scripts/llama-server.ts"))});
      const server = await startLlamaServer({ model: ${JSON.stringify(model)}, ctx: 1024 });
      console.log(server.pid); await Bun.sleep(60_000);`;
    const parent = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
    const pid = Number((await readLine(parent.stdout)).trim());
    expect(alive(pid)).toBe(true);
    parent.kill("SIGKILL");
    const deadline = Date.now() + 10_000;
    while (alive(pid) && Date.now() < deadline) await Bun.sleep(100);
    expect(alive(pid)).toBe(false);
  }, LLAMA_START_TIMEOUT);
});

const READ_FILE = {
  type: "function",
  function: {
    name: "read_file",
    description: "Read a file of the workspace",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
};

async function chat(url: string, body: object): Promise<{ finish_reason: string; message: any }> {
  const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { choices: any[] }).choices[0];
}

/** The SSE stream's JSON chunks, up to `data: [DONE]` (which must come). */
async function streamChat(url: string, body: object): Promise<any[]> {
  const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...body, stream: true }) });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const events = (await response.text()).split("\n\n").map((event) => event.trim()).filter(Boolean);
  expect(events.at(-1)).toBe("data: [DONE]");
  return events.slice(0, -1).map((event) => JSON.parse(event.replace(/^data: /, "")));
}

async function readLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    text += decoder.decode(chunk);
    if (text.includes("\n")) break;
  }
  return text;
}


// ───────── a GGUF header reader, written from the spec independently of the writer ─────────

interface Gguf {
  version: number;
  size: number;
  metadata: Record<string, unknown>;
  tensors: Map<string, { dims: number[]; type: number }>;
}

function readGguf(bytes: Uint8Array): Gguf {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  let at = 0;
  const u32 = () => ((at += 4), view.getUint32(at - 4, true));
  const u64 = () => ((at += 8), Number(view.getBigUint64(at - 8, true)));
  const string = () => {
    const length = u64();
    at += length;
    return decoder.decode(bytes.subarray(at - length, at));
  };
  const value = (type: number): unknown => {
    switch (type) {
      case 4: return u32();
      case 5: return ((at += 4), view.getInt32(at - 4, true));
      case 6: return ((at += 4), view.getFloat32(at - 4, true));
      case 7: return bytes[at++] === 1;
      case 8: return string();
      case 9: {
        const itemType = u32();
        return Array.from({ length: u64() }, () => value(itemType));
      }
      default: throw new Error(`GGUF value type ${type} not expected here`);
    }
  };
  expect(decoder.decode(bytes.subarray(0, 4))).toBe("GGUF");
  at = 4;
  const version = u32();
  const tensorCount = u64();
  const metadataCount = u64();
  const metadata: Record<string, unknown> = {};
  for (let i = 0; i < metadataCount; i++) {
    const key = string();
    metadata[key] = value(u32());
  }
  const tensors = new Map<string, { dims: number[]; type: number }>();
  for (let i = 0; i < tensorCount; i++) {
    const name = string();
    const dims = Array.from({ length: u32() }, u64);
    tensors.set(name, { dims, type: u32() });
    u64(); // offset
  }
  return { version, size: bytes.length, metadata, tensors };
}
