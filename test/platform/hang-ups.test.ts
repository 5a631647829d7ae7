/**
 * A hang-up once glassbox is stopping: ignored, never the signal's default death (exit 129), in a
 * real process that signals itself.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { afterHangUps } from "../helpers/processes.ts";

const HANG_UPS = join(import.meta.dir, "..", "..", "src", "platform", "hang-ups.ts");

test("ignoreHangUps: SIGHUP and SIGTERM after it do nothing, and calling it twice adds no second listener", async () => {
  const twice = `const { ignoreHangUps } = await import(${JSON.stringify(HANG_UPS)}); ignoreHangUps(); ignoreHangUps(); console.log(process.listenerCount("SIGHUP"), process.listenerCount("SIGTERM"));`;
  expect(await afterHangUps(twice)).toEqual({ code: 0, out: "1 1\nalive" });
  // The control: without it, the first hang-up ends the process by its default action.
  expect((await afterHangUps("")).code).toBe(129);
});
