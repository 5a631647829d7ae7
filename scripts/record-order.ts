/**
 * Records scripts/startup.order, the profile scripts/build.ts lays the binary's bytecode out by
 * (Bun's `bytecodeOrder`): the functions a TUI start runs are placed together at the front, so a
 * start maps and decodes less of the binary.
 *
 *   bun scripts/record-order.ts
 *
 * Builds the binary, starts its TUI in a pty (160×45) against a local server that answers like
 * llama.cpp, waits a second past the first frame, quits with Ctrl-C; Bun writes the profile on
 * exit. A profile from an older build still applies (functions are matched by a hash of their
 * syntax), so this only needs re-running when startup code has changed a lot.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BYTECODE_ORDER, GLASSBOX_ENTRY, buildBinary } from "./build.ts";

const FIRST_FRAME_MARK = "Ctrl-C quit";

async function record(): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "glassbox-order-"));
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === "/health") return Response.json({ status: "ok" });
      if (pathname === "/props") return Response.json({ default_generation_settings: { n_ctx: 32768 } });
      return new Response("not found", { status: 404 });
    },
  });
  try {
    const binary = (await buildBinary(GLASSBOX_ENTRY, path.join(scratch, "glassbox"))).outfile;
    const workspace = path.join(scratch, "workspace");
    fs.mkdirSync(workspace);
    const profile = path.join(scratch, "startup.order");
    let screen = "";
    const decoder = new TextDecoder();
    const proc = Bun.spawn([binary, "--model", `llamacpp:http://127.0.0.1:${server.port}`, "--workspace", workspace], {
      cwd: workspace,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scratch, TERM: "xterm-256color", LANG: "C.UTF-8", BUN_BYTECODE_ORDER_OUT: profile },
      terminal: { cols: 160, rows: 45, name: "xterm-256color", data: (_terminal, data) => void (screen = (screen + decoder.decode(data, { stream: true })).slice(-65536)) },
    });
    // blessed draws a single space as "cursor forward 1".
    for (const started = Date.now(); !screen.replace(/\x1b\[1C/g, " ").includes(FIRST_FRAME_MARK); await Bun.sleep(20)) {
      if (Date.now() - started > 20_000 || proc.exitCode !== null) throw new Error(`the TUI drew no first frame; its last output:\n${screen.slice(-2000)}`);
    }
    await Bun.sleep(1000);
    proc.terminal!.write("\x03");
    if ((await Promise.race([proc.exited, Bun.sleep(5000).then(() => null)])) === null) {
      proc.kill("SIGKILL");
      throw new Error("the TUI did not quit on Ctrl-C within 5 s");
    }
    proc.terminal!.close();
    if (!fs.existsSync(profile)) throw new Error(`the binary wrote no profile to ${profile}`);
    fs.copyFileSync(profile, BYTECODE_ORDER);
    fs.chmodSync(BYTECODE_ORDER, 0o644);
    const entries = fs.readFileSync(profile, "utf8").split("\n").filter((line) => /^[A-Z] /.test(line)).length;
    console.log(`${path.relative(process.cwd(), BYTECODE_ORDER)}: ${entries} entries`);
  } finally {
    server.stop(true);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

try {
  await record();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
