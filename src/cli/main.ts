#!/usr/bin/env bun
import pkg from "../../package.json";
import { HELP, parseCli } from "./args.ts";
import { runHeadless } from "./run.ts";
import { demoArgs } from "./demo.ts";
import { doctor } from "./doctor.ts";
import { printWire } from "./wire.ts";
import { audit } from "./audit.ts";
import { compare, evaluate } from "./eval.ts";
import { UsageError } from "./usage-error.ts";

/** The TUI is loaded only when used, so headless commands start without blessed. */
async function runTui(...args: Parameters<typeof import("../tui/app.ts").runTui>): Promise<number> {
  return (await import("../tui/app.ts")).runTui(...args);
}

export async function main(argv: string[]): Promise<number> {
  try {
    const args = parseCli(argv);
    if (args.help) return console.log(HELP), 0;
    if (args.version) return console.log(`glassbox ${pkg.version}`), 0;
    if (args.demo && args.command === "run") return await runHeadless(demoArgs(args, true));
    if (args.demo) return await runTui(args, { autoStart: true, prepare: () => demoArgs(args, false) });
    switch (args.command) {
      case "run":
        return await runHeadless(args);
      case "doctor":
        return await doctor(args);
      case "eval":
        return await evaluate(args);
      case "compare":
        return compare(args);
      case "audit":
        return audit(args);
      case "wire":
        return printWire(args);
      case "tui":
        return await runTui(args);
      default:
        throw new UsageError(`glassbox ${args.command} is not in this build yet; see glassbox --help`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`glassbox: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

if (import.meta.main) process.exit(await main(process.argv.slice(2)));
