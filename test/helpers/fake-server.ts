import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll } from "bun:test";
import { Buffer } from "node:buffer";

/** Copies of shared/fixtures (real llama.cpp captures, documented Ollama shapes), kept in the repo so a clone tests anywhere. */
export const FIXTURES = join(import.meta.dir, "..", "fixtures");

/** What the fake server answers to one request. */
export interface Scene {
  status: number;
  headers: Record<string, string>;
  /** Body pieces, sent one after another; a number pauses that many milliseconds. */
  pieces: Array<string | number>;
  /** After the pieces: "end" closes normally, "cut" breaks the connection, "hang" keeps it open and silent. */
  after?: "end" | "cut" | "hang";
  /** The connection is closed before any answer, as by a server going down (status, headers and pieces unused). */
  unanswered?: true;
}

export interface SeenRequest {
  method: string;
  path: string;
  body: any;
  raw: string;
}

export interface FakeServer {
  url: string;
  requests: SeenRequest[];
  /** The most responses that were being played at once. */
  maxInFlight(): number;
  stop(): void;
}

const servers: FakeServer[] = [];
// Benchmarks in scripts/ start these servers outside bun test (which sets NODE_ENV=test), where there is no afterAll.
if (process.env.NODE_ENV === "test") {
  afterAll(() => {
    for (const server of servers.splice(0)) server.stop();
  });
}

/**
 * A real HTTP/1.1 server on 127.0.0.1 (port 0), written at the socket level so a scene can do what
 * real servers do and a framework would smooth over: trickle a chunked body, stall, or drop the
 * connection in the middle of a chunk.
 */
/**
 * A fake answers llama-server's prompt-counting endpoints as an older server does (404), so the
 * adapter falls back to its estimate; counting is tested against the real server (test/helpers/llama.ts).
 */
const COUNTING_PATHS = new Set(["/apply-template", "/tokenize"]);
const NOT_FOUND: Scene = { status: 404, headers: { "Content-Type": "text/plain" }, pieces: ["File Not Found"] };

/** `port`: 0 for any free one; a port a stopped fake had, to start it again where a client knows it. */
export function startFakeServer(route: (request: SeenRequest) => Scene, port = 0): FakeServer {
  const requests: SeenRequest[] = [];
  const buffers = new Map<unknown, Buffer>();
  let inFlight = 0;
  let maxInFlight = 0;
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(socket, data) {
        const buffer = Buffer.concat([buffers.get(socket) ?? Buffer.alloc(0), Buffer.from(data)]);
        buffers.set(socket, buffer);
        const headEnd = buffer.indexOf("\r\n\r\n");
        if (headEnd === -1) return;
        const head = buffer.subarray(0, headEnd).toString("latin1");
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < headEnd + 4 + length) return;
        buffers.delete(socket);
        const raw = buffer.subarray(headEnd + 4, headEnd + 4 + length).toString("utf8");
        const [method = "GET", target = "/"] = head.split(" ");
        let body: any = null;
        try {
          body = raw ? JSON.parse(raw) : null;
        } catch {
          body = raw;
        }
        const seen = { method, path: target.split("?")[0]!, body, raw };
        requests.push(seen);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        void play(socket, COUNTING_PATHS.has(seen.path) ? NOT_FOUND : route(seen)).finally(() => inFlight--);
      },
      error() {},
    },
  });
  const fake = {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    maxInFlight: () => maxInFlight,
    stop: () => server.stop(true),
  };
  servers.push(fake);
  return fake;
}

async function play(socket: { write(data: string | Uint8Array): number; end(): void; flush(): void }, scene: Scene): Promise<void> {
  if (scene.unanswered) return socket.end();
  const headers = Object.entries(scene.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.write(`HTTP/1.1 ${scene.status} ${scene.status === 200 ? "OK" : "Error"}\r\n${headers}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n`);
  for (const piece of scene.pieces) {
    if (typeof piece === "number") {
      await Bun.sleep(piece);
      continue;
    }
    const bytes = Buffer.from(piece, "utf8");
    if (bytes.length) socket.write(Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]));
  }
  if (scene.after === "hang") return;
  // "cut": the connection closes without the chunked body's terminating chunk.
  if (scene.after !== "cut") socket.write("0\r\n\r\n");
  socket.end();
}

/** A capture's status and headers (`NN-name.headers`, or the head of a `.txt`). */
function parseHead(text: string): { status: number; headers: Record<string, string> } {
  const [statusLine, ...lines] = text.split(/\r?\n/).filter(Boolean);
  const status = Number(statusLine!.split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(":");
    const name = line.slice(0, at).trim();
    // The fake server frames its own body; the capture's framing headers do not apply.
    if (/^(transfer-encoding|content-length|connection|keep-alive)$/i.test(name)) continue;
    headers[name] = line.slice(at + 1).trim();
  }
  return { status, headers };
}

/**
 * A llama.cpp capture replayed byte for byte: `.sse` bodies are sent one event at a time, `.json`
 * and `.txt` bodies whole. `pauseMs` spaces the events out.
 */
export function llamaCppCapture(name: string, pauseMs = 0): Scene {
  const base = join(FIXTURES, "llamacpp-wire", name);
  if (existsSync(`${base}.txt`)) {
    const text = readFileSync(`${base}.txt`, "utf8");
    const split = text.search(/\r?\n\r?\n/);
    const head = parseHead(text.slice(0, split));
    return { ...head, pieces: [text.slice(split).replace(/^\r?\n\r?\n/, "")] };
  }
  const head = parseHead(readFileSync(`${base}.headers`, "utf8"));
  if (existsSync(`${base}.sse`)) {
    const events = readFileSync(`${base}.sse`, "utf8").split(/(?<=\n\n)/);
    return { ...head, pieces: events.flatMap((event) => (pauseMs ? [event, pauseMs] : [event])) };
  }
  return { ...head, pieces: [readFileSync(`${base}.json`, "utf8")] };
}

/** An Ollama example replayed line by line, as `application/x-ndjson`. */
export function ollamaExample(name: string, pauseMs = 0): Scene {
  const base = join(FIXTURES, "ollama-ndjson", name);
  if (existsSync(`${base}.txt`)) {
    const text = readFileSync(`${base}.txt`, "utf8");
    const split = text.search(/\r?\n\r?\n/);
    return { ...parseHead(text.slice(0, split)), pieces: [text.slice(split).replace(/^\r?\n\r?\n/, "")] };
  }
  if (existsSync(`${base}.json`)) {
    return { status: 200, headers: { "Content-Type": "application/json" }, pieces: [readFileSync(`${base}.json`, "utf8")] };
  }
  const lines = readFileSync(`${base}.ndjson`, "utf8").split(/(?<=\n)/);
  return { status: 200, headers: { "Content-Type": "application/x-ndjson" }, pieces: lines.flatMap((line) => (pauseMs ? [line, pauseMs] : [line])) };
}

export function readFixture(path: string): string {
  return readFileSync(join(FIXTURES, path), "utf8");
}

/** The chunk envelope of the llama.cpp captures, around a delta of our choosing. */
export function llamaChunk(delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}): string {
  const chunk = {
    choices: [{ finish_reason: finish, index: 0, delta }],
    created: 1796011079,
    id: "chatcmpl-glassboxtest",
    model: "models/tiny-32k.gguf",
    system_fingerprint: "b0-82bb485",
    object: "chat.completion.chunk",
    ...extra,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

export const SSE_HEADERS = { Server: "llama.cpp", "X-Accel-Buffering": "no", "Content-Type": "text/event-stream" };
const USAGE = (prompt: number, generated: number) =>
  `data: ${JSON.stringify({ choices: [], created: 1796011079, id: "chatcmpl-glassboxtest", model: "models/tiny-32k.gguf", object: "chat.completion.chunk", usage: { completion_tokens: generated, prompt_tokens: prompt, total_tokens: prompt + generated }, timings: { predicted_n: generated, predicted_per_second: 80 } })}\n\n`;

/**
 * A llama.cpp reply in the exact shape of the captures (role chunk, one token per chunk, finish
 * chunk, usage chunk, [DONE]) carrying our own tool call: the id and name first with "{", then
 * the rest of the arguments in small fragments.
 */
export function llamaCppToolCallScene(name: string, args: string, id = "Abcdefghijklmnopqrstuvwxyz012345"): Scene {
  const fragments = (args.slice(1).match(/.{1,3}/gs) ?? []).map((piece) => llamaChunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  return {
    status: 200,
    headers: SSE_HEADERS,
    pieces: [
      llamaChunk({ role: "assistant", content: null }),
      llamaChunk({ tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "{" } }] }),
      ...fragments,
      llamaChunk({}, "tool_calls"),
      USAGE(300, fragments.length + 1),
      "data: [DONE]\n\n",
    ],
  };
}

/** A llama.cpp text reply, one word a chunk, in the captures' shape. */
export function llamaCppTextScene(text: string, pauseMs = 0): Scene {
  const words = text.match(/\S+\s*/g) ?? [];
  return {
    status: 200,
    headers: SSE_HEADERS,
    pieces: [
      llamaChunk({ role: "assistant", content: null }),
      ...words.flatMap((word) => (pauseMs ? [llamaChunk({ content: word }), pauseMs] : [llamaChunk({ content: word })])),
      llamaChunk({}, "stop"),
      USAGE(400, words.length),
      "data: [DONE]\n\n",
    ],
  };
}

/** The llama.cpp info endpoints from the captures (`props` may change /props); chat requests go to `chat`. */
export function llamaCppServer(chat: (n: number, request: SeenRequest) => Scene, props: (captured: any) => unknown = (captured) => captured): FakeServer {
  let n = 0;
  const propsText = JSON.stringify(props(JSON.parse(readFixture("llamacpp-wire/00-props.json"))));
  return startFakeServer((request) => {
    if (request.path === "/props") return { status: 200, headers: { "Content-Type": "application/json" }, pieces: [propsText] };
    if (request.path === "/health") return { status: 200, headers: { "Content-Type": "application/json" }, pieces: [readFixture("llamacpp-wire/00-health.json")] };
    if (request.path === "/v1/models") return { status: 200, headers: { "Content-Type": "application/json" }, pieces: [readFixture("llamacpp-wire/00-models.json")] };
    return chat(n++, request);
  });
}

/** An Ollama reply carrying our own tool call, in the examples' shape. */
export function ollamaToolCallScene(name: string, args: Record<string, unknown>): Scene {
  const line = (message: unknown, done: Record<string, unknown> | null) =>
    JSON.stringify({ model: "qwen2.5:1.5b", created_at: "2026-11-30T10:02:00.000000Z", message, done: done !== null, ...(done ?? {}) }) + "\n";
  return {
    status: 200,
    headers: { "Content-Type": "application/x-ndjson" },
    pieces: [
      line({ role: "assistant", content: "", tool_calls: [{ function: { name, arguments: args } }] }, null),
      line({ role: "assistant", content: "" }, { done_reason: "stop", total_duration: 1e9, prompt_eval_count: 655, eval_count: 31, eval_duration: 6e8 }),
    ],
  };
}

/** The Ollama info endpoints from the examples; chat requests go to `chat`. */
export function ollamaServer(chat: (n: number, request: SeenRequest) => Scene): FakeServer {
  let n = 0;
  return startFakeServer((request) => {
    if (request.path === "/api/show") return ollamaExample("09-show");
    if (request.path === "/api/tags") return ollamaExample("10-tags");
    return chat(n++, request);
  });
}

export interface FakeOllamaModel {
  name: string;
  size: number;
  contextLength: number;
  capabilities?: string[];
}

/**
 * An Ollama with the installed models we choose: `/api/tags` and `/api/show` in the shape of the
 * captures (10-tags, 09-show), with each model's name, size and context length; chat requests go
 * to `chat`.
 */
export function fakeOllama(models: FakeOllamaModel[], chat: (n: number, request: SeenRequest) => Scene): FakeServer {
  const tagsTemplate = JSON.parse(readFixture("ollama-ndjson/10-tags.json")).models[0];
  const showTemplate = JSON.parse(readFixture("ollama-ndjson/09-show.json"));
  const json = (body: unknown): Scene => ({ status: 200, headers: { "Content-Type": "application/json; charset=utf-8" }, pieces: [JSON.stringify(body)] });
  let n = 0;
  return startFakeServer((request) => {
    if (request.path === "/api/tags") return json({ models: models.map((model) => ({ ...tagsTemplate, name: model.name, model: model.name, size: model.size })) });
    if (request.path === "/api/show") {
      const model = models.find((candidate) => candidate.name === request.body?.model);
      if (!model) return { status: 404, headers: { "Content-Type": "application/json; charset=utf-8" }, pieces: [JSON.stringify({ error: `model '${request.body?.model}' not found` })] };
      return json({ ...showTemplate, model_info: { ...showTemplate.model_info, "qwen2.context_length": model.contextLength }, capabilities: model.capabilities ?? showTemplate.capabilities });
    }
    if (request.path === "/api/chat") return chat(n++, request);
    return { status: 404, headers: { "Content-Type": "text/plain" }, pieces: ["404 page not found"] };
  });
}

/** An address on 127.0.0.1 where nothing listens: a port the system gave out and took back. */
export function closedAddress(): string {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const url = `http://127.0.0.1:${listener.port}`;
  listener.stop(true);
  return url;
}
