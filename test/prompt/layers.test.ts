import { describe, expect, test } from "bun:test";
import { assemble, assembleMarked, builtinLayers, byName, collectLayers, LayerError, makeLayer } from "../../src/prompt/layers.ts";
import { folderWith } from "../helpers/workspace.ts";

/** A workspace with the given files (path → text). */
const workspaceWith = (files: Record<string, string>) => folderWith(files, "layers");

const names = (root: string) => collectLayers(root).map((layer) => `${layer.name}:${layer.origin}`);

describe("layer order", () => {
  test.each([
    ["only the shipped layers", {}, ["00-base:builtin"]],
    ["workspace prompts sort by name with numeric prefixes", { "prompts/10-style.md": "s", "prompts/2-tests.md": "t" }, ["00-base:builtin", "2-tests:file", "10-style:file"]],
    ["AGENTS.md comes after the prompt files", { "AGENTS.md": "a", "prompts/50-x.md": "x" }, ["00-base:builtin", "50-x:file", "AGENTS.md:workspace"]],
    ["servers come last, in their file's order", { "AGENTS.md": "a", "servers.json": JSON.stringify([{ name: "git", instructions: "g" }, { name: "db", instructions: "d" }]) }, ["00-base:builtin", "AGENTS.md:workspace", "server:git:server", "server:db:server"]],
    ["a workspace file named like a shipped one replaces it in place", { "prompts/00-base.md": "mine", "prompts/01-more.md": "m" }, ["00-base:file", "01-more:file"]],
    ["files that are not .md are ignored", { "prompts/notes.txt": "n", "prompts/readme": "r" }, ["00-base:builtin"]],
  ] as Array<[string, Record<string, string>, string[]]>)("%s", (_name, files, expected) => {
    expect(names(workspaceWith(files))).toEqual(expected);
  });

  test("names sort naturally and the same on every machine: digit runs as numbers, the rest by code unit", () => {
    const sorted = ["b", "10-style", "2-tests", "a10", "a9", "002-x", "2-x", "Zeta", "alpha", "99999999999999999999-big", "100000000000000000000-bigger", "a", "a-1"].sort(byName);
    expect(sorted).toEqual(["2-tests", "002-x", "2-x", "10-style", "99999999999999999999-big", "100000000000000000000-bigger", "Zeta", "a", "a-1", "a9", "a10", "alpha", "b"]);
    expect(byName("01-a", "1-a")).not.toBe(0); // different names never tie
    expect(byName("x", "x")).toBe(0);
  });

  test("a blank server instruction, or none, contributes no layer", () => {
    const root = workspaceWith({ "servers.json": JSON.stringify([{ name: "a", instructions: "   \n" }, { name: "b" }, { name: "c", instructions: "use c" }]) });
    expect(names(root)).toEqual(["00-base:builtin", "server:c:server"]);
  });

  test("an empty AGENTS.md contributes no layer", () => {
    expect(names(workspaceWith({ "AGENTS.md": "\n\n" }))).toEqual(["00-base:builtin"]);
  });
});

describe("the assembled prompt", () => {
  test("a server layer reaches the prompt unmarked, joined by blank lines", () => {
    const root = workspaceWith({ "AGENTS.md": "Agents text.", "servers.json": JSON.stringify([{ name: "git", instructions: "Server text." }]) });
    const layers = collectLayers(root);
    const prompt = assemble(layers);
    expect(prompt.endsWith("Agents text.\n\nServer text.")).toBe(true);
    expect(prompt).not.toContain("────");
    expect(prompt).not.toContain("server:git");
    expect(assembleMarked(layers)).toContain("──── layer server:git (server,");
  });

  test("the same sources give a byte-identical prompt", () => {
    const root = workspaceWith({ "AGENTS.md": "a" });
    expect(assemble(collectLayers(root))).toBe(assemble(collectLayers(root)));
  });

  test("digests are SHA-256, first 16 hex, of the trimmed text", () => {
    const layer = makeLayer("x", "file", "hello\n\n");
    expect(layer.digest).toBe(new Bun.CryptoHasher("sha256").update("hello").digest("hex").slice(0, 16));
    expect(layer.chars).toBe(5);
    expect(builtinLayers()[0]!.digest).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("broken sources are named", () => {
  test.each([
    ["servers.json that is not JSON", { "servers.json": "[{" }, /servers.json is not valid JSON/],
    ["servers.json that is not a list", { "servers.json": '{"name":"x"}' }, /servers.json/],
    ["a server without a name", { "servers.json": '[{"instructions":"x"}]' }, /servers.json: 0.name/],
    ["a layer file too large", { "prompts/big.md": "x".repeat(70_000) }, /prompts\/big.md is 70000 bytes/],
  ] as Array<[string, Record<string, string>, RegExp]>)("%s", (_name, files, message) => {
    expect(() => collectLayers(workspaceWith(files))).toThrow(LayerError);
    expect(() => collectLayers(workspaceWith(files))).toThrow(message);
  });
});
