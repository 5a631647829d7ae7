import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/**
 * What glassbox needs of a GGUF file before it starts llama-server on it: the architecture, the
 * model's name, its trained window, and proof that the whole file is there (a download cut short
 * would otherwise surface as a server that dies while loading). Only the header is read: the
 * metadata, the tensor table, and from it where the last tensor's data must end.
 */
export interface GgufInfo {
  architecture: string;
  name: string | null;
  /** `ARCH.context_length`: the window the model was trained for (null when the file does not say). */
  contextLength: number | null;
  sizeBytes: number;
  /** What the KV cache of this architecture is made of (what keeps or loses the prompt cache, and what it costs). */
  memory: GgufMemory;
}

/** The architecture's memory, from the file's metadata (llama.cpp's keys, `ARCH.…`); null where the file does not say. */
export interface GgufMemory {
  layers: number | null;
  /** Key and value heads, and the width of one, for the KV cache's size per token. */
  kvHeads: number | null;
  headDim: number | null;
  /** `ARCH.attention.sliding_window`: the window of the sliding-window layers (null: none). */
  slidingWindow: number | null;
  /** How many of the layers use the sliding window (llama.cpp's pattern for the architecture). */
  slidingLayers: number;
  /** Recurrent or hybrid layers (state-space `ssm.*`, RWKV `wkv.*`, short convolutions): a state that cannot be cut back to an earlier token. */
  recurrent: boolean;
}

/** llama.cpp's sliding-window patterns: every Nth layer is global, the rest slide (set_swa_pattern). */
const SWA_PATTERNS: Record<string, number> = { gemma2: 2, gemma3: 6, gemma3n: 5, cohere2: 4, "gpt-oss": 2 };
/** Metadata that only recurrent or hybrid architectures carry. */
const RECURRENT_KEYS = /\.(ssm|wkv|shortconv)\.|\.rwkv|time_mix_extra_dim/;

/** A file that is not a whole GGUF; the message is one line, for the person. */
export class GgufError extends Error {}

const MAGIC = 0x46554747; // "GGUF", little-endian
const DEFAULT_ALIGNMENT = 32;

/** ggml tensor types: [elements per block, bytes per block] (llama.cpp's gguf-py, GGML_QUANT_SIZES). */
const QK_K = 256;
const TYPE_SIZES: Record<number, [number, number]> = {
  0: [1, 4], 1: [1, 2], 2: [32, 18], 3: [32, 20], 6: [32, 22], 7: [32, 24], 8: [32, 34], 9: [32, 40],
  10: [QK_K, 84], 11: [QK_K, 110], 12: [QK_K, 144], 13: [QK_K, 176], 14: [QK_K, 210], 15: [QK_K, 292],
  16: [QK_K, 66], 17: [QK_K, 74], 18: [QK_K, 98], 19: [QK_K, 50], 20: [32, 18], 21: [QK_K, 110],
  22: [QK_K, 82], 23: [QK_K, 136], 24: [1, 1], 25: [1, 2], 26: [1, 4], 27: [1, 8], 28: [1, 8],
  29: [QK_K, 56], 30: [1, 2], 34: [QK_K, 54], 35: [QK_K, 66], 39: [32, 17],
};

/** Metadata value types whose size is fixed, in bytes (8 string and 9 array are read apart). */
const SCALAR_SIZES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const STRING = 8;
const ARRAY = 9;

export function readGgufHeader(path: string): GgufInfo {
  const reader = new HeaderReader(path);
  try {
    return readHeader(reader);
  } finally {
    reader.close();
  }
}

function readHeader(reader: HeaderReader): GgufInfo {
  if (reader.size < 4 || reader.u32() !== MAGIC) throw new GgufError("is not a GGUF file (it does not start with GGUF)");
  const version = reader.u32();
  if (version < 2 || version > 3) throw new GgufError(`is GGUF version ${version}, which llama.cpp does not read (2 and 3 are)`);
  const tensors = reader.u64();
  const entries = reader.u64();
  const wanted = new Map<string, unknown>();
  let recurrent = false;
  for (let i = 0; i < entries; i++) {
    const key = reader.string();
    if (RECURRENT_KEYS.test(key)) recurrent = true;
    const type = reader.u32();
    if (type === STRING || type in SCALAR_SIZES) wanted.set(key, reader.value(type));
    else if (type === ARRAY) reader.skipArray();
    else throw new GgufError(`is damaged: metadata ${JSON.stringify(key.slice(0, 60))} has an unknown type ${type}`);
  }
  const dataEnd = tensorDataEnd(reader, tensors, Number(wanted.get("general.alignment") ?? DEFAULT_ALIGNMENT));
  if (dataEnd > reader.size) throw new GgufError(`is truncated: its tensors end at byte ${dataEnd} and the file has ${reader.size} (a download cut short?)`);
  const architecture = String(wanted.get("general.architecture") ?? "");
  if (!architecture) throw new GgufError("is damaged: it names no architecture (general.architecture)");
  const context = wanted.get(`${architecture}.context_length`);
  const name = wanted.get("general.name");
  return { architecture, name: typeof name === "string" ? name : null, contextLength: typeof context === "number" ? context : null, sizeBytes: reader.size, memory: memoryOf(architecture, wanted, recurrent) };
}

function memoryOf(architecture: string, wanted: Map<string, unknown>, recurrent: boolean): GgufMemory {
  const number = (key: string) => {
    const value = wanted.get(`${architecture}.${key}`);
    return typeof value === "number" && value > 0 ? value : null;
  };
  const layers = number("block_count");
  const heads = number("attention.head_count");
  const width = number("embedding_length");
  const slidingWindow = number("attention.sliding_window");
  const pattern = SWA_PATTERNS[architecture] ?? number("attention.sliding_window_pattern");
  let slidingLayers = 0;
  if (slidingWindow && layers) for (let layer = 0; layer < layers; layer++) if (!pattern || layer % pattern < pattern - 1) slidingLayers++;
  const headDim = number("attention.key_length") ?? (heads && width ? width / heads : null);
  return { layers, kvHeads: number("attention.head_count_kv") ?? heads, headDim, slidingWindow, slidingLayers, recurrent };
}

/** Where the last tensor's data ends: the tensor table's end, aligned, plus the furthest tensor's offset and size. */
function tensorDataEnd(reader: HeaderReader, tensors: number, alignment: number): number {
  let furthest = 0;
  for (let i = 0; i < tensors; i++) {
    reader.string();
    const dims = reader.u32();
    if (dims > 8) throw new GgufError(`is damaged: a tensor has ${dims} dimensions`);
    let elements = 1;
    for (let d = 0; d < dims; d++) elements *= reader.u64();
    const [perBlock, blockBytes] = TYPE_SIZES[reader.u32()] ?? [1, 0]; // an unknown type: only its offset is checked
    const offset = reader.u64();
    furthest = Math.max(furthest, offset + Math.ceil(elements / perBlock) * blockBytes);
  }
  const dataStart = Math.ceil(reader.position / alignment) * alignment;
  return dataStart + furthest;
}

/** Reads the header front to back through a buffer: the metadata of a real model is megabytes (its vocabulary). */
class HeaderReader {
  readonly size: number;
  position = 0;
  private readonly fd: number;
  private buffer = Buffer.alloc(1 << 20);
  private bufferStart = 0;
  private bufferEnd = 0;

  constructor(path: string) {
    this.fd = openSync(path, "r");
    this.size = fstatSync(this.fd).size;
  }

  close(): void {
    closeSync(this.fd);
  }

  u32(): number {
    return this.bytes(4).readUInt32LE(0);
  }

  u64(): number {
    const value = this.bytes(8).readBigUInt64LE(0);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufError("is damaged: a length in its header is impossibly large");
    return Number(value);
  }

  string(): string {
    return this.bytes(this.u64()).toString("utf8");
  }

  value(type: number): unknown {
    if (type === STRING) return this.string();
    const bytes = this.bytes(SCALAR_SIZES[type]!);
    switch (type) {
      case 0: return bytes.readUInt8(0);
      case 1: return bytes.readInt8(0);
      case 2: return bytes.readUInt16LE(0);
      case 3: return bytes.readInt16LE(0);
      case 4: return bytes.readUInt32LE(0);
      case 5: return bytes.readInt32LE(0);
      case 6: return bytes.readFloatLE(0);
      case 7: return bytes.readUInt8(0) !== 0;
      case 12: return bytes.readDoubleLE(0);
      default: return Number(type === 10 ? bytes.readBigUInt64LE(0) : bytes.readBigInt64LE(0));
    }
  }

  /** Arrays (the vocabulary, its scores and merges) are skipped without keeping their values. */
  skipArray(): void {
    const type = this.u32();
    const count = this.u64();
    if (type === STRING) for (let i = 0; i < count; i++) this.skip(this.u64());
    else if (type in SCALAR_SIZES) this.skip(count * SCALAR_SIZES[type]!);
    else throw new GgufError(`is damaged: an array of type ${type} in its metadata`);
  }

  private skip(length: number): void {
    this.need(length);
    this.position += length;
  }

  private bytes(length: number): Buffer {
    this.need(length);
    if (this.position < this.bufferStart || this.position + length > this.bufferEnd) this.fill(length);
    const at = this.position - this.bufferStart;
    this.position += length;
    return this.buffer.subarray(at, at + length);
  }

  private need(length: number): void {
    if (this.position + length > this.size) throw new GgufError(`is truncated: its header ends past the file's ${this.size} bytes`);
  }

  private fill(length: number): void {
    if (length > this.buffer.length) this.buffer = Buffer.alloc(length);
    this.bufferStart = this.position;
    this.bufferEnd = this.position + readSync(this.fd, this.buffer, 0, this.buffer.length, this.position);
  }
}
