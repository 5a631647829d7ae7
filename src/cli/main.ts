#!/usr/bin/env bun
import pkg from "../../package.json";
import { redact } from "../trace/redact.ts";
import { parseCli } from "./args.ts";
import { helpFor } from "./help.ts";
import { UsageError } from "../protocol/usage-error.ts";
import { buildInfo, versionLine } from "../platform/build-info.ts";
import { LAUNCHER_COMMAND } from "../sandbox/launcher-command.ts";
import { normalJit } from "../platform/jit.ts";
import { probeSandboxAhead } from "../sandbox/detect.ts";

/**
 * Each command's module is loaded only when that command runs: the TUI does not pay for eval,
 * and headless commands do not pay for blessed.
 */
export async function main(argv: string[]): Promise<number> {
  // The compiled binary is also the process between glassbox and a check (src/sandbox/launcher.ts).
  if (argv[0] === LAUNCHER_COMMAND) return (await import("../sandbox/launcher.ts")).runLauncher();
  try {
    const args = parseCli(argv);
    if (args.help) return console.log(helpFor(args.command)), 0;
    if (args.version) return console.log(versionLine(pkg.version, buildInfo())), 0;
    // The TUI keeps the startup JIT policy through its first frame and while idle; a run puts
    // the normal one back (startRun).
    if (args.command !== "tui") normalJit();
    if (args.demo) {
      const { demoArgs } = await import("./demo.ts");
      if (args.command === "run") return await (await import("./run.ts")).runHeadless(demoArgs(args, true));
      return await (await import("../tui/app.ts")).runTui(args, { autoStart: true, prepare: () => demoArgs(args, false) });
    }
    switch (args.command) {
      case "run":
        return await (await import("./run.ts")).runHeadless(args);
      case "init":
        return (await import("./init.ts")).init(args);
      case "doctor":
        return await (await import("./doctor.ts")).doctor(args);
      case "eval":
        return await (await import("./eval.ts")).evaluate(args);
      case "tune":
        return await (await import("./tune.ts")).tune(args);
      case "compare":
        return (await import("./eval.ts")).compare(args);
      case "report":
        return await (await import("./report.ts")).writeReport(args);
      case "audit":
        return await (await import("./audit.ts")).audit(args);
      case "map":
        return await (await import("./map.ts")).printMap(args);
      case "undo":
        return (await import("./undo.ts")).undo(args);
      case "mcp":
        return await (await import("./mcp.ts")).mcpCommand(args);
      case "wire":
        return (await import("./wire.ts")).printWire(args);
      case "sessions":
        return (await import("./sessions.ts")).printSessions(args);
      case "tui":
        // bwrap's test run overlaps the loading of the TUI's modules (runTui awaits it).
        void probeSandboxAhead();
        return await (await import("../tui/app.ts")).runTui(args);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(redact(`glassbox: ${error.message}`));
      return 2;
    }
    throw error;
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));
