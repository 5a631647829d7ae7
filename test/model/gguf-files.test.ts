/**
 * The GGUF files the model picker offers: found under a fake home folder's usual places, each
 * with its size and trained window from its header, a broken one named with the reason, and the
 * scan bounded so a huge folder cannot stall the picker.
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { testModel } from "../../scripts/llama-server.ts";
import { findGgufFiles, SCAN_LIMITS } from "../../src/model/gguf-files.ts";
import { unusableFiles } from "../../src/model/find-model.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { LLAMA_START_TIMEOUT } from "../helpers/llama.ts";

let model: string;
beforeAll(async () => {
  model = await testModel("finish");
}, LLAMA_START_TIMEOUT);

/** A fake home folder with each of `files` (relative to it) a link to the test model, or the given text. */
function home(files: Record<string, string | null>): string {
  const folder = tempFolder("home");
  for (const [path, text] of Object.entries(files)) {
    const file = join(folder, path);
    mkdirSync(dirname(file), { recursive: true });
    if (text === null) symlinkSync(model, file);
    else writeFileSync(file, text);
  }
  return folder;
}

test("each usual folder: llama.cpp's cache, LM Studio's models a few levels down, ~/models; each file with its size and trained window", async () => {
  const folder = home({
    ".cache/llama.cpp/org_repo_model-Q4_K_M.gguf": null,
    ".lmstudio/models/publisher/Repo-GGUF/repo-q8_0.gguf": null,
    "models/tiny.gguf": null,
    "models/notes.txt": "not a model",
  });
  const found = await findGgufFiles(folder);
  const size = readFileSync(model).length;
  expect(found.candidates).toEqual([
    { server: "gguf", spec: `gguf:${folder}/.cache/llama.cpp/org_repo_model-Q4_K_M.gguf`, name: "org_repo_model-Q4_K_M.gguf", baseUrl: `${folder}/.cache/llama.cpp/org_repo_model-Q4_K_M.gguf`, size, contextLength: 32768, tools: null },
    { server: "gguf", spec: `gguf:${folder}/.lmstudio/models/publisher/Repo-GGUF/repo-q8_0.gguf`, name: "repo-q8_0.gguf", baseUrl: `${folder}/.lmstudio/models/publisher/Repo-GGUF/repo-q8_0.gguf`, size, contextLength: 32768, tools: null },
    { server: "gguf", spec: `gguf:${folder}/models/tiny.gguf`, name: "tiny.gguf", baseUrl: `${folder}/models/tiny.gguf`, size, contextLength: 32768, tools: null },
  ]);
  expect(found.unusable).toEqual([]);
});

test("a file that fails the header check is named with the reason, not offered", async () => {
  const folder = home({ "models/good.gguf": null, "models/broken.gguf": "<html>404</html>" });
  const found = await findGgufFiles(folder);
  expect(found.candidates.map((candidate) => candidate.name)).toEqual(["good.gguf"]);
  expect(found.unusable).toEqual([{ path: `${folder}/models/broken.gguf`, problem: "is not a GGUF file (it does not start with GGUF)" }]);
  expect(unusableFiles(found, { HOME: folder })).toEqual(["~/models/broken.gguf is not a GGUF file (it does not start with GGUF)"]);
});

test("a split model is offered once, by its first part; hidden folders and a missing folder are passed over", async () => {
  const folder = home({
    "models/big-00001-of-00002.gguf": null,
    "models/big-00002-of-00002.gguf": "the second part has no header of its own",
    "models/.trash/old.gguf": null,
  });
  const found = await findGgufFiles(folder);
  expect(found.candidates.map((candidate) => candidate.name)).toEqual(["big-00001-of-00002.gguf"]);
  expect(found.unusable).toEqual([]);
});

test("the scan is bounded: folder depth, entries looked at, and files read", async () => {
  const deep = home({ "models/a/b/c/d/deep.gguf": null, "models/a/b/c/d/e/too-deep.gguf": null });
  expect((await findGgufFiles(deep)).candidates.map((candidate) => candidate.name)).toEqual(["deep.gguf"]);

  const crowded = home(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`models/junk-${String(i).padStart(2, "0")}.txt`, "x"])));
  writeFileSync(join(crowded, "models", "zz.gguf"), "");
  symlinkSync(model, join(crowded, "models", "zz.gguf.link.gguf"));
  expect((await findGgufFiles(crowded, { ...SCAN_LIMITS, entries: 20 })).candidates).toEqual([]);

  const many = home(Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`models/m${i}.gguf`, null])));
  expect((await findGgufFiles(many, { ...SCAN_LIMITS, files: 3 })).candidates.map((candidate) => candidate.name)).toEqual(["m0.gguf", "m1.gguf", "m2.gguf"]);
});

