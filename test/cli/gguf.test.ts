/**
 * `--model gguf:PATH`: glassbox starts llama-server for the file, watches it and stops it, with the
 * test suite's real llama-server (test/helpers/llama.ts) and its generated models. The server's
 * lifetime is glassbox's whatever way glassbox ends.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { llamaServerExecutable, testModel } from "../../scripts/llama-server.ts";
import { glassbox } from "../helpers/cli.ts";
import { makeWorkspace, tempFolder } from "../helpers/workspace.ts";
import { LLAMA_START_TIMEOUT, withoutLlama } from "../helpers/llama.ts";
import { alive, gone, modelCopy, serversOf, truncatedCopy } from "../helpers/gguf.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");

describe.skipIf(await withoutLlama())("gguf: glassbox starts llama-server itself", () => {
  let env: Record<string, string>;
  let finish: string;
  let tools: string;
  beforeAll(async () => {
    env = { GLASSBOX_LLAMA_SERVER: await llamaServerExecutable() };
    finish = await testModel("finish");
    tools = await testModel("tools");
  }, LLAMA_START_TIMEOUT);

  test("a headless run completes with a tool call through the server it started, said in server_start, and leaves none running", async () => {
    const model = modelCopy(finish);
    const ws = makeWorkspace().root;
    const result = await glassbox(["run", "--json", "--model", `gguf:${model}`, "--workspace", ws, "Read README.md"], { env, timeoutMs: 90_000 });
    expect(result.events.at(-1)).toMatchObject({ kind: "stop", status: "completed" });
    expect(result.events.filter((event) => event.kind === "tool_call")).toEqual([expect.objectContaining({ tool: "finish", decision: "allowed" })]);
    const kinds = result.events.map((event) => event.kind);
    expect(kinds.indexOf("server_start")).toBeLessThan(kinds.indexOf("model_request"));
    const start = result.events.find((event) => event.kind === "server_start")!;
    expect(start.command).toEqual([env.GLASSBOX_LLAMA_SERVER, "-m", model, "--jinja", "-np", "1", "--host", "127.0.0.1", "--port", String(start.port), "-c", "32768"]);
    expect(start.log).toBe(".glassbox/llama-server.log");
    expect(start.load_ms).toBeGreaterThan(0);
    expect(readFileSync(join(ws, start.log), "utf8")).toContain(`listening on http://127.0.0.1:${start.port}`);
    expect(alive(start.pid)).toBe(false);
    expect(serversOf(model)).toEqual([]);
  }, 120_000);

  test("a bare path ending in .gguf and ~ are the same spec; num_ctx in the config is the window", async () => {
    const ws = makeWorkspace().root;
    writeFileSync(join(ws, "glassbox.json"), JSON.stringify({ model_options: { num_ctx: 4096 } }));
    const home = tempFolder("home");
    writeFileSync(join(home, "m.gguf"), readFileSync(finish));
    const result = await glassbox(["run", "--json", "--model", "~/m.gguf", "--workspace", ws, "Read README.md"], { env: { ...env, HOME: home }, timeoutMs: 90_000 });
    const start = result.events.find((event) => event.kind === "server_start")!;
    expect(start.command.slice(1, 3)).toEqual(["-m", join(home, "m.gguf")]);
    expect(start.command.slice(-2)).toEqual(["-c", "4096"]);
    expect(result.events.find((event) => event.kind === "model_info")).toMatchObject({ context_size: 4096 });
  }, 120_000);

  describe("refused before anything starts: exit 2, one line", () => {
    const refused = async (args: string[], extraEnv: Record<string, string>, mentions: RegExp) => {
      const ws = makeWorkspace().root;
      const result = await glassbox(["run", "--json", ...args, "--workspace", ws, "Read README.md"], { env: extraEnv, timeoutMs: 30_000 });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(mentions);
      expect(existsSync(join(ws, ".glassbox", "llama-server.log"))).toBe(false);
    };

    test("no llama-server: what to install, and how to name one", async () => {
      await refused(["--model", `gguf:${finish}`], { GLASSBOX_LLAMA_SERVER: "", PATH: "/nonexistent" }, /llama-server is not on PATH; install llama\.cpp \(.+\), or name the binary with GLASSBOX_LLAMA_SERVER/);
      await refused(["--model", `gguf:${finish}`], { GLASSBOX_LLAMA_SERVER: "/nowhere/llama-server" }, /llama-server \/nowhere\/llama-server \(from GLASSBOX_LLAMA_SERVER\) does not exist/);
    });

    test("a file that is not GGUF", async () => {
      const fake = join(tempFolder("gguf"), "model.gguf");
      writeFileSync(fake, "<html>404 Not Found</html>");
      await refused(["--model", fake], env, /model\.gguf is not a GGUF file/);
    });

    test("a GGUF cut short, as an interrupted download leaves it", async () => {
      const cut = truncatedCopy(finish);
      await refused(["--model", `gguf:${cut}`], env, /cut\.gguf is truncated: its tensors end at byte \d+ and the file has \d+/);
      expect(serversOf(cut)).toEqual([]);
    });

    test("llama_server.args that set the port", async () => {
      const ws = makeWorkspace().root;
      writeFileSync(join(ws, "glassbox.json"), JSON.stringify({ llama_server: { args: ["--port", "9999"] } }));
      const result = await glassbox(["run", "--model", `gguf:${finish}`, "--workspace", ws, "x"], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("sets --host or --port, which glassbox sets itself");
    });
  });

  describe("the server never outlives glassbox", () => {
    /** A headless run on the tools model (a call every reply, never done), and its server's pid once it started. */
    async function running(model: string): Promise<{ child: ReturnType<typeof Bun.spawn>; server: number; ws: string }> {
      const ws = makeWorkspace().root;
      // --deny finish: the tools model's grammar may pick any offered tool, and a finish would end the run before the signal.
      const child = Bun.spawn([process.execPath, MAIN, "run", "--json", "--model", `gguf:${model}`, "--workspace", ws, "--deny", "finish", "Read every file."], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
      const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
      let text = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`glassbox ended before its server started: ${text}`);
        text += new TextDecoder().decode(value);
        const start = text.split("\n").find((line) => line.includes('"kind":"server_start"'));
        // After the first reply, so the run is mid-way when the signal comes.
        if (start && text.includes('"kind":"model_reply"')) {
          void (async () => {
            while (!(await reader.read()).done);
          })();
          return { child, server: JSON.parse(start).pid, ws };
        }
      }
    }

    for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) {
      test(`${signal} to glassbox mid-run: the run stops interrupted and the server is stopped`, async () => {
        const model = modelCopy(tools);
        const { child, server } = await running(model);
        child.kill(signal);
        expect(await child.exited).toBe(1);
        expect(await gone(server, 5000)).toBe(true);
        expect(serversOf(model)).toEqual([]);
      }, 120_000);
    }

    test("SIGKILL of glassbox: the server is gone within 5 seconds", async () => {
      const model = modelCopy(tools);
      const { child, server } = await running(model);
      child.kill("SIGKILL");
      await child.exited;
      expect(await gone(server, 5000)).toBe(true);
    }, 120_000);

    test("a server killed mid-run: model_error naming how it ended and its log's last line", async () => {
      const model = modelCopy(tools);
      const { child, server, ws } = await running(model);
      process.kill(server, "SIGKILL");
      expect(await child.exited).toBe(1);
      const log = readFileSync(join(ws, ".glassbox", "runs", readdirSync(join(ws, ".glassbox", "runs"))[0]!), "utf8");
      const stop = JSON.parse(log.trim().split("\n").at(-1)!);
      expect(stop).toMatchObject({ kind: "stop", status: "model_error" });
      expect(stop.reason).toMatch(/^llama-server was killed by SIGKILL during the run; the last line of its log: ".+"/);
    }, 120_000);
  });
});
