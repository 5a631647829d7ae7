import { beforeAll, describe, expect, test } from "bun:test";
import { closeSync, openSync, readSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GgufError, readGgufHeader } from "../../src/model/gguf.ts";
import { GgufWriter, testModel } from "../../scripts/llama-server.ts";
import { tempFolder } from "../helpers/workspace.ts";

/** The first `bytes` of a file, written to a new one: a download cut short. */
function prefixOf(file: string, bytes: number): string {
  const buffer = Buffer.alloc(bytes);
  const fd = openSync(file, "r");
  readSync(fd, buffer, 0, bytes, 0);
  closeSync(fd);
  const cut = join(tempFolder("gguf"), `cut-${bytes}.gguf`);
  writeFileSync(cut, buffer);
  return cut;
}

// The test suite's generated models: real GGUF v3 files with Qwen2.5's whole vocabulary in their metadata.
describe("reading a GGUF file's header", () => {
  let model: string;
  let size: number;
  beforeAll(async () => {
    model = await testModel("prose", { contextLength: 16384 });
    size = statSync(model).size;
  }, 60_000);

  test("the architecture, the name, the trained window and the size", () => {
    expect(readGgufHeader(model)).toEqual({
      architecture: "qwen2",
      name: "glassbox test prose",
      contextLength: 16384,
      sizeBytes: size,
      // 2 layers, 2 heads of 64 over a width of 128, one KV head; no sliding window, no recurrent state.
      memory: { layers: 2, kvHeads: 1, headDim: 64, slidingWindow: null, slidingLayers: 0, recurrent: false },
    });
  });

  test("Gemma 3's sliding-window layers: the window from the file, and llama.cpp's pattern (five of every six layers slide)", async () => {
    const gemma = readGgufHeader(await testModel("gemma3"));
    expect(gemma.architecture).toBe("gemma3");
    expect(gemma.memory).toEqual({ layers: 6, kvHeads: 1, headDim: 64, slidingWindow: 128, slidingLayers: 5, recurrent: false });
  });

  test("recurrent or hybrid layers are known by their state's metadata (ssm.*, wkv.*, shortconv.*); a plain model has none", async () => {
    const write = async (architecture: string, extra: (gguf: GgufWriter) => void) => {
      const gguf = new GgufWriter();
      gguf.string("general.architecture", architecture);
      gguf.uint32(`${architecture}.block_count`, 8);
      gguf.uint32(`${architecture}.attention.head_count`, 4);
      gguf.uint32(`${architecture}.embedding_length`, 256);
      extra(gguf);
      const file = join(tempFolder("gguf"), `${architecture}.gguf`);
      await Bun.write(file, gguf.bytes());
      return readGgufHeader(file).memory;
    };
    expect((await write("qwen3next", (gguf) => gguf.uint32("qwen3next.ssm.state_size", 128))).recurrent).toBe(true);
    expect((await write("rwkv7", (gguf) => gguf.uint32("rwkv7.wkv.head_size", 64))).recurrent).toBe(true);
    expect((await write("lfm2", (gguf) => gguf.uint32("lfm2.shortconv.l_cache", 3))).recurrent).toBe(true);
    expect(await write("llama", () => {})).toEqual({ layers: 8, kvHeads: 4, headDim: 64, slidingWindow: null, slidingLayers: 0, recurrent: false });
  });

  test("a file cut short in its tensor data is refused as truncated, naming both sizes", () => {
    const cut = prefixOf(model, size - 1);
    expect(() => readGgufHeader(cut)).toThrow(GgufError);
    expect(() => readGgufHeader(cut)).toThrow(`is truncated: its tensors end at byte ${size} and the file has ${size - 1}`);
  });

  test("a file cut short inside its metadata (the vocabulary) is refused as truncated", () => {
    expect(() => readGgufHeader(prefixOf(model, 1_000_000))).toThrow("is truncated: its header ends past the file's 1000000 bytes");
    expect(() => readGgufHeader(prefixOf(model, 10))).toThrow("is truncated");
  });

  test("a file that is not GGUF says so", () => {
    const text = join(tempFolder("gguf"), "model.gguf");
    writeFileSync(text, "<!DOCTYPE html><title>404 Not Found</title>");
    expect(() => readGgufHeader(text)).toThrow("is not a GGUF file (it does not start with GGUF)");
    const empty = join(tempFolder("gguf"), "empty.gguf");
    writeFileSync(empty, "");
    expect(() => readGgufHeader(empty)).toThrow("is not a GGUF file");
  });

  test("a version llama.cpp does not read is named", () => {
    const bytes = Buffer.alloc(24);
    bytes.write("GGUF", 0, "latin1");
    bytes.writeUInt32LE(7, 4);
    const file = join(tempFolder("gguf"), "v7.gguf");
    writeFileSync(file, bytes);
    expect(() => readGgufHeader(file)).toThrow("is GGUF version 7");
  });
});
