/** The status line's sandbox badge: with no sandbox it says so in red, and that read-only git asks (issue 45). */
import { expect, test } from "bun:test";
import { sandboxBadge } from "../../src/tui/sandbox-badge.ts";
import { READ_ONLY_ASKS } from "../../src/core/policy.ts";

const TABLE: Array<[kind: "bwrap" | "landlock" | "none", says: string, asks: boolean]> = [
  ["bwrap", "sandbox: bwrap · net off", false],
  ["landlock", "sandbox: landlock · net off", false],
  ["none", "UNSANDBOXED: nothing here", true],
];

for (const [kind, says, asks] of TABLE) {
  test(`${kind}: "${says}"${asks ? `, and ${READ_ONLY_ASKS}` : ""}`, () => {
    const badge = sandboxBadge({ kind, network: false, secrets_hidden: kind !== "none", reason: "nothing here" });
    expect(badge).toContain(says);
    expect(badge.includes(READ_ONLY_ASKS)).toBe(asks);
  });
}
