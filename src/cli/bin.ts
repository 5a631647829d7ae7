import { main } from "./main.ts";

/**
 * The compiled binary's entry point. It runs main unconditionally: a Windows binary built with
 * Bun.build sees `import.meta.main` false in its own entry module (Bun 1.4.4: the module path and
 * Bun.main differ in their slashes), so it would otherwise exit 0 having done nothing.
 */
process.exit(await main(process.argv.slice(2)));
