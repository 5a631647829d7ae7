import { afterAll, describe, expect, test } from "bun:test";
import { isLoopbackHttp, loopbackFetch } from "../../src/model/loopback.ts";
import { READ_INTERVAL_MS, ServerExchange } from "../../src/model/http.ts";
import { closedAddress } from "../helpers/fake-server.ts";

/** What a raw server does with a connection once the request is in: writes (strings), pauses (numbers), then ends, cuts or holds it. */
type Script = { writes: Array<string | number>; after?: "end" | "hold" };

interface RawServer {
  url: string;
  /** Each request as it arrived, head and body. */
  requests: string[];
  /** Resolves when the client has closed the connection of the request numbered `n`. */
  closed(n: number): Promise<void>;
  /** Resolves when the script's writes for the request numbered `n` have all been handed to the socket. */
  written(n: number): Promise<void>;
  stop(): void;
}

const running: RawServer[] = [];
afterAll(() => running.forEach((server) => server.stop()));

/** A server on `hostname` that answers every request with the same bytes, so the framing can be exactly what a test needs. */
function rawServer(script: Script, hostname = "127.0.0.1"): RawServer {
  const requests: string[] = [];
  const closings: Array<{ promise: Promise<void>; resolve: () => void }> = [];
  const closing = (n: number) => (closings[n] ??= Promise.withResolvers<void>());
  const writings: Array<{ promise: Promise<void>; resolve: () => void }> = [];
  const writing = (n: number) => (writings[n] ??= Promise.withResolvers<void>());
  const received = new Map<unknown, string>();
  const numbers = new Map<unknown, number>();
  const server = Bun.listen({
    hostname,
    port: 0,
    socket: {
      async data(socket, data) {
        const text = (received.get(socket) ?? "") + Buffer.from(data).toString("latin1");
        received.set(socket, text);
        const headEnd = text.indexOf("\r\n\r\n");
        const length = Number(/content-length:\s*(\d+)/i.exec(text)?.[1] ?? 0);
        if (headEnd < 0 || text.length < headEnd + 4 + length || numbers.has(socket)) return;
        const n = requests.push(text) - 1;
        numbers.set(socket, n);
        for (const write of script.writes) {
          if (typeof write === "number") await Bun.sleep(write);
          else socket.write(write);
        }
        writing(n).resolve();
        if (script.after !== "hold") socket.end();
      },
      close(socket) {
        const n = numbers.get(socket);
        if (n !== undefined) closing(n).resolve();
      },
    },
  });
  const raw = { url: `http://${hostname}:${server.port}`, requests, closed: (n: number) => closing(n).promise, written: (n: number) => writing(n).promise, stop: () => server.stop(true) };
  running.push(raw);
  return raw;
}

const signal = () => new AbortController().signal;

async function pieces(response: Response): Promise<string[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const read: string[] = [];
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) read.push(decoder.decode(chunk.value, { stream: true }));
  return read;
}

const OK_CHUNKED = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

/** A chunked answer carrying each event in a packet of its own, `pauseMs` apart, then the body's end. */
function chunkedEvents(events: string[], pauseMs: number): Array<string | number> {
  const packets = events.flatMap((event) => [`${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`, pauseMs]);
  return [OK_CHUNKED, ...packets, "0\r\n\r\n"];
}

describe("the body, however it is framed", () => {
  test("chunked, with a size line and a chunk's end cut between packets", async () => {
    const server = rawServer({ writes: [OK_CHUNKED, "5\r\nhel", 5, "lo\r", 5, "\n", 5, "6", 5, "\r\n world\r\n0\r", 5, "\n\r\n"] });
    const response = await loopbackFetch(`${server.url}/v1/chat`, { method: "GET", signal: signal() });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect((await pieces(response)).join("")).toBe("hello world");
  });

  test("counted by Content-Length, and to the connection's end", async () => {
    const counted = rawServer({ writes: ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "ab", 5, "cde"], after: "hold" });
    expect(await (await loopbackFetch(counted.url, { method: "GET", signal: signal() })).text()).toBe("abcde");
    const toTheEnd = rawServer({ writes: ["HTTP/1.1 200 OK\r\n\r\n", "all ", 5, "of it"] });
    expect(await (await loopbackFetch(toTheEnd.url, { method: "GET", signal: signal() })).text()).toBe("all of it");
  });

  test("a chunked body cut off before its last chunk is an error fetch would give (ECONNRESET), not a short reply", async () => {
    const server = rawServer({ writes: [OK_CHUNKED, "5\r\nhello\r\n"] });
    const response = await loopbackFetch(server.url, { method: "GET", signal: signal() });
    const error = await response.text().catch((caught) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("ECONNRESET");
  });

  test("a malformed size line and an answer that is not HTTP are errors", async () => {
    const malformed = rawServer({ writes: [OK_CHUNKED, "zz\r\nhello\r\n0\r\n\r\n"] });
    const response = await loopbackFetch(malformed.url, { method: "GET", signal: signal() });
    expect(((await response.text().catch((caught) => caught)) as { code: string }).code).toBe("EBADRESPONSE");
    const notHttp = rawServer({ writes: ["SSH-2.0-OpenSSH\r\n\r\n"] });
    expect(((await loopbackFetch(notHttp.url, { method: "GET", signal: signal() }).catch((caught) => caught)) as { code: string }).code).toBe("EBADRESPONSE");
  });

  test("a request of several megabytes reaches the server whole, with its length", async () => {
    const server = rawServer({ writes: ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"] });
    const body = JSON.stringify({ messages: [{ role: "user", content: "é".repeat(3_000_000) }] });
    const response = await loopbackFetch(`${server.url}/v1/chat/completions?x=1`, { method: "POST", body, headers: { "Content-Type": "application/json" }, signal: signal() });
    expect(await response.text()).toBe("ok");
    const [request] = server.requests;
    expect(request!.startsWith("POST /v1/chat/completions?x=1 HTTP/1.1\r\n")).toBe(true);
    expect(request).toContain(`Content-Length: ${Buffer.byteLength(body)}\r\n`);
    expect(request).toContain("Content-Type: application/json\r\n");
    expect(Buffer.from(request!.slice(request!.indexOf("\r\n\r\n") + 4), "latin1").toString("utf8")).toBe(body);
  });
});

describe("read only when asked", () => {
  test("what arrives between two reads comes as one piece", async () => {
    const events = Array.from({ length: 40 }, (_, i) => `data: ${i}\n\n`);
    const server = rawServer({ writes: chunkedEvents(events, 2) });
    const response = await loopbackFetch(server.url, { method: "GET", signal: signal() });
    await server.written(0); // all 40 packets are in the kernel's buffers, unread
    const read = await pieces(response);
    expect(read.join("")).toBe(events.join(""));
    // The first event may have come in the head's packet, taken apart with it; the other 39 wait for the read.
    expect(read.length).toBeLessThanOrEqual(2);
  });

  test("between reads the socket is paused; a read resumes it, and the packet that answers it pauses it again", async () => {
    const server = rawServer({ writes: [OK_CHUNKED, 50, "3\r\none\r\n", 50, "3\r\ntwo\r\n", 50, "0\r\n\r\n"] });
    const calls: string[] = [];
    const original = Bun.connect;
    Bun.connect = (async (options: Parameters<typeof Bun.connect>[0]) => {
      const socket = await original(options);
      const pause = socket.pause.bind(socket);
      const resume = socket.resume.bind(socket);
      return Object.assign(socket, { pause: () => (calls.push("pause"), pause()), resume: () => (calls.push("resume"), resume()) });
    }) as typeof Bun.connect;
    let response: Response;
    try {
      response = await loopbackFetch(server.url, { method: "GET", signal: signal() });
    } finally {
      Bun.connect = original;
    }
    // The head is in and nobody reads yet: the socket rests.
    expect(calls).toEqual(["pause"]);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("one");
    expect(calls).toEqual(["pause", "resume", "pause"]);
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("two");
    expect(calls).toEqual(["pause", "resume", "pause", "resume", "pause"]);
    expect((await reader.read()).done).toBe(true);
  });
});

describe("how often a reply is read", () => {
  test("a server streaming a packet a millisecond is read at most once every READ_INTERVAL_MS, every byte kept", async () => {
    const events = Array.from({ length: 150 }, (_, i) => `data: ${i}\n\n`);
    const server = rawServer({ writes: chunkedEvents(events, 1) });
    const exchange = new ServerExchange(server.url, 5000, signal());
    const response = await exchange.send({ method: "GET", reply: true });
    const read: string[] = [];
    const started = performance.now();
    for await (const piece of exchange.text(response)) read.push(piece);
    const elapsed = performance.now() - started;
    expect(read.join("")).toBe(events.join(""));
    // Read as each packet came, it would be a piece per packet, 150 of them.
    expect(read.length).toBeLessThanOrEqual(Math.ceil(elapsed / READ_INTERVAL_MS) + 2);
    expect(read.length).toBeLessThan(events.length / 3);
  });
});

describe("the end of an exchange", () => {
  test("stopped mid-body: the connection is closed at once, so the server stops generating", async () => {
    const server = rawServer({ writes: [OK_CHUNKED, "5\r\nhello\r\n"], after: "hold" });
    const controller = new AbortController();
    const response = await loopbackFetch(server.url, { method: "GET", signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("hello");
    const next = reader.read().catch((error) => error);
    controller.abort();
    expect(await next).toBeInstanceOf(Error);
    await server.closed(0);
  });

  test("a body cancelled by its reader closes the connection too", async () => {
    const server = rawServer({ writes: [OK_CHUNKED, "5\r\nhello\r\n"], after: "hold" });
    const response = await loopbackFetch(server.url, { method: "GET", signal: signal() });
    await response.body!.cancel();
    await server.closed(0);
  });

  test("an already stopped request never connects; a refused one fails as fetch's does (ECONNREFUSED)", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(loopbackFetch("http://127.0.0.1:9/", { method: "GET", signal: controller.signal })).rejects.toThrow();
    const refused = await loopbackFetch(`${closedAddress()}/health`, { method: "GET", signal: signal() }).catch((error) => error);
    expect(refused.code).toBe("ECONNREFUSED");
  });
});

describe("which way a request goes", () => {
  test("http to 127.0.0.1, localhost or [::1] is this machine; https, another host or another loopback address is not", () => {
    for (const url of ["http://127.0.0.1:8080/v1", "http://localhost:11434", "http://[::1]:8080"]) expect(isLoopbackHttp(url)).toBe(true);
    for (const url of ["https://127.0.0.1:8080", "http://192.168.1.2:8080", "http://127.0.0.2:8080", "http://example.com", "not a url"]) expect(isLoopbackHttp(url)).toBe(false);
  });

  test("ServerExchange sends a model's reply from this machine over glassbox's socket, and everything else through fetch", async () => {
    const answer: Script = { writes: ['HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n"ok"'] };
    const viaFetch = /user-agent: bun/i;
    const local = rawServer(answer);
    const reply = new ServerExchange(`${local.url}/v1/chat/completions`, 5000, signal());
    expect(await reply.json(await reply.send({ method: "POST", body: "{}", reply: true }))).toBe("ok");
    expect(local.requests[0]).toContain("Connection: close\r\n");
    expect(local.requests[0]).not.toMatch(viaFetch);
    // A small endpoint, asked at start, where fetch is native and warm.
    const props = new ServerExchange(`${local.url}/props`, 5000, signal());
    expect(await props.json(await props.send({ method: "GET" }))).toBe("ok");
    expect(local.requests[1]).toMatch(viaFetch);
    // Every address of 127/8 is this machine, but only the usual ones take the socket: 127.0.0.2 goes through fetch.
    const other = rawServer(answer, "0.0.0.0");
    const elsewhere = new ServerExchange(other.url.replace("0.0.0.0", "127.0.0.2") + "/v1/chat/completions", 5000, signal());
    expect(await elsewhere.json(await elsewhere.send({ method: "POST", body: "{}", reply: true }))).toBe("ok");
    expect(other.requests[0]).toMatch(viaFetch);
  });
});
