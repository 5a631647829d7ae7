/**
 * End to end: a gguf: model in the TUI, with the test suite's real llama-server
 * (test/helpers/llama.ts) and its generated model. The status line shows the loading (the log's
 * latest line), then the server; a run goes through it; a death is said and the picker starts it
 * again; and every way out (Ctrl-C, /quit, SIGTERM, a closed terminal) stops the server before
 * glassbox is gone (the watchdog would only end it a second or more later). The compiled binary
 * in tmux (test/helpers/terminal.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { llamaServerExecutable, testModel } from "../../scripts/llama-server.ts";
import { copyToyWorkspace } from "../../src/session/toy-workspace.ts";
import { closedAddress } from "../helpers/fake-server.ts";
import { alive, serversOf } from "../helpers/gguf.ts";
import { LLAMA_START_TIMEOUT, withoutLlama } from "../helpers/llama.ts";
import { E2E_SKIPPED, STATUS, expectCleanExit, expectRightBorders, useTerminal, type Pane } from "../helpers/terminal.ts";

/** What the log says while the model loads: the wrapper below says it first, then takes its time. */
const SLOW_LINE = "glassbox e2e: loading slowly on purpose";
const RUNNING = /llama-server pid (\d+) · :(\d+) · loaded in \d+\.\ds/;

describe.skipIf(E2E_SKIPPED || (await withoutLlama()))("a gguf: model's llama-server in a real terminal", () => {
  const term = useTerminal();
  let slowServer: string;
  let finish: string;

  beforeAll(async () => {
    finish = await testModel("finish");
    // The real server, a second and a half late: long enough for the loading to be seen on the status line.
    slowServer = path.join(term.dir, "slow-llama-server");
    fs.writeFileSync(slowServer, `#!/bin/sh\necho "${SLOW_LINE}"\nsleep 1.5\nexec '${await llamaServerExecutable()}' "$@"\n`, { mode: 0o755 });
  }, LLAMA_START_TIMEOUT);

  /** A fresh workspace and home folder with the model at ~/models/tiny.gguf; no llama.cpp or Ollama answers. */
  function machine(name: string) {
    const root = fs.mkdtempSync(path.join(term.dir, `${name}-`));
    const workspace = copyToyWorkspace(path.join(root, "ws"));
    const home = path.join(root, "home");
    const model = path.join(home, "models", "tiny.gguf");
    fs.mkdirSync(path.dirname(model), { recursive: true });
    fs.symlinkSync(finish, model);
    const env = { HOME: home, GLASSBOX_LLAMA_SERVER: slowServer, GLASSBOX_LLAMACPP_URL: closedAddress(), OLLAMA_HOST: closedAddress().replace("http://", "") };
    return { workspace, home, model, env, args: ["--workspace", workspace, "--model", `gguf:${model}`] };
  }

  /** Waits for the server on the status line; returns its pid and port. */
  async function running(pane: Pane, what = "the server on the status line"): Promise<{ pid: number; port: number; screen: string }> {
    const screen = await pane.waitFor((text) => RUNNING.test(STATUS(text)), what, 60_000);
    const [, pid, port] = STATUS(screen).match(RUNNING)!;
    return { pid: Number(pid), port: Number(port), screen };
  }

  test("the status line shows the loading, then the server; a run goes through it; Ctrl-C leaves no llama-server", async () => {
    const { args, env, model } = machine("run");
    const pane = term.start("gguf-run", args, env);
    const loading = await pane.waitFor((text) => STATUS(text).includes(`loading model… ${SLOW_LINE}`), "the loading on the status line", 30_000);
    expect(STATUS(loading)).toStartWith(" idle · loading model…");
    const { pid, port, screen } = await running(pane);
    // The model's path as the person reads it, under their home folder.
    expect(STATUS(screen)).toStartWith(` gguf:~/models/tiny.gguf · llama-server pid ${pid} · :${port} · loaded in`);
    expect(serversOf(model)).toEqual([pid]);

    pane.type("Read README.md");
    pane.keys("Enter");
    const done = await pane.waitFor("stopped: completed", "the run through the server", 60_000);
    expect(done).toContain(`started llama-server (pid ${pid}, port ${port}), model loaded in`);
    expectRightBorders(done, "▸ finish");

    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    // Stopped before glassbox was gone: the watchdog takes a second or more.
    expect(alive(pid)).toBe(false);
    expect(serversOf(model)).toEqual([]);
    pane.close();
  }, 120_000);

  test("a server that dies is said, with its log's last line; picking the model again starts it; /quit stops it", async () => {
    const { args, env, model } = machine("death");
    const pane = term.start("gguf-death", args, env);
    const first = await running(pane);
    process.kill(first.pid, "SIGKILL");
    const dead = await pane.waitFor((text) => STATUS(text).includes("llama-server was killed by SIGKILL"), "the death on the status line");
    expect(STATUS(dead)).toContain("llama-server was killed by SIGKILL (m, then the same model, starts it again); its log's last line: ");
    expect(dead).toContain("llama-server was killed by SIGKILL; its log's last line: ");
    expect(dead).toContain("To start it again, pick the model again: m on an empty input");

    pane.type("m");
    const picker = await pane.waitFor("Which model?", "the picker");
    expect(picker).toMatch(/› tiny\.gguf +GGUF file +\d+ MB +context 32768 +\(in use\)/);
    pane.keys("Enter");
    await pane.waitFor((text) => STATUS(text).includes("loading model…"), "the loading again", 30_000);
    const second = await running(pane, "the new server");
    expect(second.pid).not.toBe(first.pid);
    expect(serversOf(model)).toEqual([second.pid]);

    pane.type("/quit");
    pane.keys("Enter");
    await expectCleanExit(pane, 0);
    expect(alive(second.pid)).toBe(false);
    pane.close();
  }, 120_000);

  test("SIGTERM stops the server before glassbox exits", async () => {
    const { args, env, model } = machine("sigterm");
    const pane = term.start("gguf-sigterm", args, env);
    const { pid } = await running(pane);
    process.kill(term.glassboxPid(pane), "SIGTERM");
    await expectCleanExit(pane, 143);
    expect(alive(pid)).toBe(false);
    expect(serversOf(model)).toEqual([]);
    pane.close();
  }, 120_000);

  test("a closed terminal (SIGHUP) stops the server before glassbox is gone", async () => {
    const { args, env, model } = machine("sighup");
    const pane = term.start("gguf-sighup", args, env);
    const { pid } = await running(pane);
    const glassbox = term.glassboxPid(pane);
    pane.close(); // tmux kill-session: the terminal hangs up
    for (const started = Date.now(); stillRunning(glassbox) && Date.now() - started < 10_000; ) await Bun.sleep(10);
    expect(stillRunning(glassbox)).toBe(false);
    expect(stillRunning(pid)).toBe(false);
    expect(serversOf(model)).toEqual([]);
  }, 120_000);

  test("the picker lists ~/models' GGUF files, a broken one with why; picking one starts its server and is remembered", async () => {
    const { workspace, home, model, env } = machine("pick");
    fs.writeFileSync(path.join(home, "models", "broken.gguf"), "<html>404 Not Found</html>");
    const pane = term.start("gguf-pick", ["--workspace", workspace], env);
    const picker = await pane.waitFor("Which model?", "the picker", 15_000);
    expect(picker).toMatch(/› tiny\.gguf +GGUF file +\d+ MB +context 32768/);
    expect(picker).toContain("not usable: ~/models/broken.gguf is not a GGUF file (it does not start with GGUF)");
    pane.keys("Enter");
    const chosen = await pane.waitFor(`model: gguf:${model}`, "the choice");
    expect(chosen).toContain("chosen and remembered for this workspace");
    const { pid } = await running(pane);
    expect(JSON.parse(fs.readFileSync(path.join(workspace, ".glassbox", "state.json"), "utf8")).model).toMatchObject({ spec: `gguf:${model}`, name: "tiny.gguf" });

    // The same file again while its server runs: kept, not loaded a second time.
    pane.type("m");
    await pane.waitFor(/› tiny\.gguf .*\(in use\)/, "the picker, the file in use");
    pane.keys("Enter");
    const kept = await pane.waitFor((text) => (text.match(/chosen and remembered/g) ?? []).length === 2, "the second choice");
    expect(STATUS(kept)).toContain(`llama-server pid ${pid} ·`);
    expect(serversOf(model)).toEqual([pid]);
    pane.keys("C-c");
    await expectCleanExit(pane, 0);
    expect(alive(pid)).toBe(false);
    pane.close();
  }, 120_000);
});

/** A process that still runs: not gone, and not a zombie waiting for its parent. */
function stillRunning(pid: number): boolean {
  if (!alive(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

