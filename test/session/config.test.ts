import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCli } from "../../src/cli/args.ts";
import { loadConfig } from "../../src/session/config.ts";
import { openSession } from "../../src/session/session.ts";
import { usageError } from "../helpers/usage-error.ts";
import { DEFAULT_LIMITS } from "../../src/protocol/limits.ts";
import { glassbox, scriptFile } from "../helpers/cli.ts";
import { call } from "../helpers/run.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";

const folder = () => tempFolder("config");
function configIn(dir: string, config: unknown): string {
  const path = join(dir, "glassbox.json");
  writeFileSync(path, typeof config === "string" ? config : JSON.stringify(config));
  return path;
}


describe("loadConfig", () => {
  test("no glassbox.json and no --config: the defaults", () => {
    const { config, source } = loadConfig(undefined, folder());
    expect(source).toBeNull();
    expect(config).toMatchObject({ checks: {}, limits: {}, allow: [], deny: [], sandbox: "auto" });
    expect(config.model).toBeUndefined();
    expect(config.verify).toBeUndefined();
  });

  test("glassbox.json in the workspace is read", () => {
    const dir = folder();
    const path = configIn(dir, { model: "ollama:qwen2.5:1.5b", limits: { max_steps: 20 }, allow: ["read_file"], checks: { tests: { argv: ["bun", "test"] } }, verify: "tests" });
    const { config, source } = loadConfig(undefined, dir);
    expect(source).toBe(path);
    expect(config.model).toBe("ollama:qwen2.5:1.5b");
    expect(config.limits).toEqual({ max_steps: 20 });
    expect(config.checks.tests).toEqual({ argv: ["bun", "test"], timeout_seconds: 60, env: [] });
  });

  test("llama_server: a binary and arguments of the person's own; --host and --port are glassbox's", () => {
    const dir = folder();
    configIn(dir, { llama_server: { binary: "/opt/llama/llama-server", args: ["-ngl", "99", "--flash-attn", "on"] } });
    expect(loadConfig(undefined, dir).config.llama_server).toEqual({ binary: "/opt/llama/llama-server", args: ["-ngl", "99", "--flash-attn", "on"], swa_full: "auto" });
    for (const args of [["--port", "8081"], ["--host=0.0.0.0"]]) {
      configIn(dir, { llama_server: { args } });
      expect(() => loadConfig(undefined, dir)).toThrow("sets --host or --port, which glassbox sets itself");
    }
    configIn(dir, { llama_server: { swa_full: false } });
    expect(loadConfig(undefined, dir).config.llama_server.swa_full).toBe(false);
    // Two settings that say opposite things: which one is meant is the person's to say.
    configIn(dir, { llama_server: { swa_full: false, args: ["--swa-full"] } });
    expect(() => loadConfig(undefined, dir)).toThrow('"llama_server.swa_full" is false while llama_server.args has --swa-full; remove one of them');
    configIn(dir, { llama_server: { swa_full: "sometimes" } });
    expect(() => loadConfig(undefined, dir)).toThrow('"llama_server.swa_full" must be true, false or "auto"');
  });

  test("the contract's example config is valid", () => {
    const dir = folder();
    configIn(dir, {
      model: "ollama:qwen2.5:1.5b",
      model_options: {
        temperature: 0.7, seed: 1, max_tokens: 1024, num_ctx: 8192,
        idle_timeout_seconds: 60, think: false, tool_choice: "auto",
        extra_body: { logit_bias: { "50258": 1.5 } },
      },
      checks: { tests: { argv: ["bun", "test"], timeout_seconds: 60 }, typecheck: { argv: ["bunx", "tsc", "--noEmit"] } },
      verify: "tests",
      limits: { max_steps: 20 },
      allow: ["read_file", "run_check:tests"],
      deny: ["write_file:**/*.lock"],
      sandbox: "auto",
    });
    expect(loadConfig(undefined, dir).config.model_options.extra_body).toEqual({ logit_bias: { "50258": 1.5 } });
    expect(loadConfig(undefined, dir).config.sandbox).toBe("auto");
  });

  test("an unknown top-level key is an error naming the key", () => {
    const dir = folder();
    configIn(dir, { modle: "ollama:x" });
    expect(usageError(() => loadConfig(undefined, dir)).message).toContain('"modle"');
  });

  test("an unknown nested key is named with its path", () => {
    const dir = folder();
    configIn(dir, { limits: { max_stepz: 3 } });
    expect(usageError(() => loadConfig(undefined, dir)).message).toContain('"limits.max_stepz"');
    configIn(dir, { model_options: { temprature: 1 } });
    expect(usageError(() => loadConfig(undefined, dir)).message).toContain('"model_options.temprature"');
    configIn(dir, { checks: { tests: { argv: ["x"], shell: true } } });
    expect(usageError(() => loadConfig(undefined, dir)).message).toContain('"checks.tests.shell"');
  });

  test("a wrong value names where it is", () => {
    const dir = folder();
    configIn(dir, { limits: { max_steps: 0 } });
    expect(usageError(() => loadConfig(undefined, dir)).message).toContain('"limits.max_steps"');
    configIn(dir, { checks: { tests: { argv: [] } } });
    expect(usageError(() => loadConfig(undefined, dir)).message).toContain('"checks.tests.argv"');
    configIn(dir, { verify: "tests" });
    expect(usageError(() => loadConfig(undefined, dir)).message).toContain('"verify"');
  });

  test("invalid JSON, and a --config path that cannot be read", () => {
    const dir = folder();
    configIn(dir, "{ \"model\": ");
    expect(usageError(() => loadConfig(undefined, dir)).message).toContain("not valid JSON");
    expect(usageError(() => loadConfig(join(dir, "nope.json"), dir)).message).toContain("nope.json");
  });

  test("--config FILE is read instead of the workspace's glassbox.json", () => {
    const workspace = folder();
    configIn(workspace, { limits: { max_steps: 2 } });
    const other = folder();
    const explicit = configIn(other, { limits: { max_steps: 3 } });
    expect(loadConfig(explicit, workspace).config.limits).toEqual({ max_steps: 3 });
  });
});

describe("parseCli", () => {
  test("run with options", () => {
    const args = parseCli(["run", "--model", "scripted:x.json", "--allow", "read_file", "--allow", "write_file:src/**", "--deny", "edit_file", "--limit", "max_steps=3", "--limit", "deadline_seconds=2.5", "--no-execute", "--json", "fix it"]);
    expect(args).toMatchObject({
      command: "run",
      task: "fix it",
      model: "scripted:x.json",
      allow: ["read_file", "write_file:src/**"],
      deny: ["edit_file"],
      limits: { max_steps: 3, deadline_seconds: 2.5 },
      execute: false,
      offerTools: true,
      json: true,
    });
    expect(parseCli(["run", "--no-tools", "t"]).offerTools).toBe(false);
  });

  test("--limit mistakes are usage errors", () => {
    expect(usageError(() => parseCli(["run", "--limit", "max_stepz=3", "t"])).message).toContain('"max_stepz"');
    expect(usageError(() => parseCli(["run", "--limit", "max_steps=abc", "t"])).message).toContain("not a number");
    expect(usageError(() => parseCli(["run", "--limit", "max_steps=0", "t"])).message).toContain("max_steps");
    expect(usageError(() => parseCli(["run", "--limit", "max_result_chars=10", "t"])).message).toContain("max_result_chars");
    expect(usageError(() => parseCli(["run", "--limit", "=3", "t"])).message).toContain("NAME=VALUE");
  });

  test("two words of task, an unknown command, an unknown option", () => {
    expect(usageError(() => parseCli(["run", "fix", "it"])).message).toContain("quote the task");
    expect(usageError(() => parseCli(["frobnicate"])).message).toContain("frobnicate");
    expect(usageError(() => parseCli(["run", "--frob", "t"])).message).toContain("frob");
  });
});

describe("config and command line together", () => {
  test("--limit overrides the config's limits, which override the defaults", () => {
    const ws = makeWorkspace();
    configIn(ws.root, { limits: { max_steps: 20, max_repeat: 5 } });
    const session = openSession(parseCli(["run", "--model", scriptFile([]), "--workspace", ws.root, "--limit", "max_steps=4", "t"]));
    expect(session.limits).toEqual({ ...DEFAULT_LIMITS, max_steps: 4, max_repeat: 5 });
  });

  test("config rules and command-line rules both apply; a bad config rule is a usage error", () => {
    const ws = makeWorkspace();
    configIn(ws.root, { allow: ["write_file"], deny: ["nuke"] });
    expect(usageError(() => openSession(parseCli(["run", "--model", scriptFile([]), "--workspace", ws.root, "t"]))).message).toContain('"nuke"');
  });
});

describe("config errors from the real command line", () => {
  test("an unknown key in glassbox.json: exit 2, the key named on stderr, nothing run", async () => {
    const ws = makeWorkspace();
    configIn(ws.root, { modle: "ollama:x" });
    const result = await glassbox(["run", "--json", "--model", scriptFile([{ content: "hi" }]), "--workspace", ws.root, "t"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('"modle"');
    expect(existsSync(join(ws.root, ".glassbox"))).toBe(false);
  });

  test("a nested unknown key (limits.max_stepz) in a --config file", async () => {
    const ws = makeWorkspace();
    const config = configIn(folder(), { limits: { max_stepz: 3 } });
    const result = await glassbox(["run", "--json", "--config", config, "--model", scriptFile([{ content: "hi" }]), "--workspace", ws.root, "t"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("limits.max_stepz");
    expect(existsSync(join(ws.root, ".glassbox"))).toBe(false);
  });

  test("a context key an earlier release accepted: exit 2, the message says what replaced it", async () => {
    const ws = makeWorkspace();
    configIn(ws.root, { context: { keep_recent: 3 } });
    const result = await glassbox(["run", "--json", "--model", scriptFile([{ content: "hi" }]), "--workspace", ws.root, "t"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"context.keep_recent" was retired in 0.3');
    expect(result.stderr).toContain("context.whole_share");
  });

  test("the config's model, limits and rules are used by a run", async () => {
    const ws = makeWorkspace();
    const script = scriptFile([call("write_file", { path: "made.txt", content: "m" }), call("read_file", { path: "made.txt" }), { content: "done" }]);
    configIn(ws.root, { model: script, limits: { max_steps: 2 }, allow: ["write_file"] });
    const result = await glassbox(["run", "--json", "--workspace", ws.root, "t"]);
    expect(result.events[0]).toMatchObject({ model: script, limits: { max_steps: 2 } });
    expect(result.events.filter((event) => event.kind === "tool_call").map((event) => event.decision)).toEqual(["allowed", "allowed"]);
    expect(result.events.at(-1)).toMatchObject({ status: "step_limit", steps: 2 });
    expect(result.code).toBe(1);
  });
});
