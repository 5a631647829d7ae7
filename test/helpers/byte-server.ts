import { Buffer } from "node:buffer";

/**
 * A server on 127.0.0.1 that answers every request with raw bytes of the test's choosing, head
 * and framing included: what fake-server.ts cannot send (a body cut inside a UTF-8 character, a
 * chunk-size line split between two packets, bytes that are not HTTP at all). For the property
 * tests of the readers of a model's reply.
 */
export interface ByteScene {
  /** Written one after another, each in a write of its own; a number pauses that many milliseconds. */
  writes: Array<Uint8Array | number>;
  /** After the writes: "end" closes the connection, "hang" keeps it open and silent. */
  after: "end" | "hang";
}

export interface ByteServer {
  url: string;
  /** How many requests it has answered. */
  answered(): number;
  stop(): void;
}

interface Connection {
  buffer: Buffer;
  playing: boolean;
  closed: boolean;
  drained: (() => void) | null;
}

/** Started for one test file, which stops it in its own afterAll (a hook here would belong to the first file that loads this module). */
export function startByteServer(scene: () => ByteScene): ByteServer {
  const connections = new Map<unknown, Connection>();
  let answered = 0;
  const connection = (socket: unknown): Connection => {
    let found = connections.get(socket);
    if (!found) connections.set(socket, (found = { buffer: Buffer.alloc(0), playing: false, closed: false, drained: null }));
    return found;
  };
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, data) {
        const state = connection(socket);
        if (state.playing) return;
        state.buffer = Buffer.concat([state.buffer, Buffer.from(data)]);
        const headEnd = state.buffer.indexOf("\r\n\r\n");
        if (headEnd === -1) return;
        const length = Number(/content-length:\s*(\d+)/i.exec(state.buffer.subarray(0, headEnd).toString("latin1"))?.[1] ?? 0);
        if (state.buffer.length < headEnd + 4 + length) return;
        state.playing = true;
        answered++;
        void play(socket, state, scene());
      },
      drain(socket) {
        const state = connection(socket);
        const drained = state.drained;
        state.drained = null;
        drained?.();
      },
      close(socket) {
        const state = connection(socket);
        state.closed = true;
        state.drained?.();
        connections.delete(socket);
      },
      error() {},
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, answered: () => answered, stop: () => server.stop(true) };
}

async function play(socket: { write(data: Uint8Array): number; end(): void }, state: Connection, scene: ByteScene): Promise<void> {
  for (const write of scene.writes) {
    if (state.closed) return;
    if (typeof write === "number") {
      await Bun.sleep(write);
      continue;
    }
    let rest = write;
    while (rest.length && !state.closed) {
      const written = socket.write(rest);
      if (written > 0) rest = rest.subarray(written);
      else await new Promise<void>((resolve) => (state.drained = resolve));
    }
  }
  if (scene.after === "end" && !state.closed) socket.end();
}

const encoder = new TextEncoder();

export function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

export function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** A response head: status line, the headers, and the blank line. */
export function head(status: number, headers: Record<string, string>): Uint8Array {
  return bytes(`HTTP/1.1 ${status} ${status === 200 ? "OK" : "Error"}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`);
}

/** `body` in chunked framing, a chunk ending at each of `cuts` (offsets into the body), then the last chunk. */
export function chunked(body: Uint8Array, cuts: number[] = []): Uint8Array {
  const pieces = splitAt(body, cuts);
  return concat([...pieces.flatMap((piece) => (piece.length ? [bytes(`${piece.length.toString(16)}\r\n`), piece, bytes("\r\n")] : [])), bytes("0\r\n\r\n")]);
}

/** `data` cut at each of `cuts` (offsets; out of range, repeated and unsorted ones are fine). */
export function splitAt(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.filter((cut) => cut > 0 && cut < data.length))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, data.length]) {
    pieces.push(data.subarray(from, point));
    from = point;
  }
  return pieces;
}
