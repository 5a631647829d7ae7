import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll } from "bun:test";
import { Buffer } from "node:buffer";

export const FIXTURES = join(import.meta.dir, "..", "..", "..", "shared", "fixtures");

/** What the fake server answers to one request. */
export interface Scene {
  status: number;
  headers: Record<string, string>;
  /** Body pieces, sent one after another; a number pauses that many milliseconds. */
  pieces: Array<string | number>;
  /** After the pieces: "end" closes normally, "cut" breaks the connection, "hang" keeps it open and silent. */
  after?: "end" | "cut" | "hang";
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
  stop(): void;
}

const servers: FakeServer[] = [];
afterAll(() => {
  for (const server of servers.splice(0)) server.stop();
});

/**
 * A real HTTP/1.1 server on 127.0.0.1 (port 0), written at the socket level so a scene can do what
 * real servers do and a framework would smooth over: trickle a chunked body, stall, or drop the
 * connection in the middle of a chunk.
 */
export function startFakeServer(route: (request: SeenRequest) => Scene): FakeServer {
  const requests: SeenRequest[] = [];
  const buffers = new Map<unknown, Buffer>();
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
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
        void play(socket, route(seen));
      },
      error() {},
    },
  });
  const fake = {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    stop: () => server.stop(true),
  };
  servers.push(fake);
  return fake;
}

async function play(socket: { write(data: string | Uint8Array): number; end(): void; flush(): void }, scene: Scene): Promise<void> {
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
