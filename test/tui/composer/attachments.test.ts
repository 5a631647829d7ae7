import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { attachFiles, shownTask } from "../../../src/tui/composer/attachments.ts";
import { Workspace } from "../../../src/files/workspace.ts";
import { tempFolder } from "../../helpers/workspace.ts";

function workspace(): { root: string; outside: string; workspace: Workspace } {
  const outside = tempFolder("attach");
  const root = join(outside, "ws");
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src", "version.ts"), "export const v = 1;\n");
  writeFileSync(join(root, ".env"), "TOKEN=secret\n");
  writeFileSync(join(outside, "secret.txt"), "outside\n");
  return { root, outside, workspace: new Workspace(root) };
}

describe("@path in a message", () => {
  test("carries the file's text after the message, named; a trailing full stop is prose", () => {
    const { workspace: ws } = workspace();
    const attached = attachFiles("why does @src/version.ts. fail?", ws, 1000);
    expect(attached).toEqual({
      ok: true,
      message: "why does @src/version.ts. fail?\n\n[file src/version.ts, attached by the person]\nexport const v = 1;\n",
      files: ["src/version.ts"],
    });
  });

  test("clipped as a tool result", () => {
    const { root, workspace: ws } = workspace();
    writeFileSync(join(root, "big.txt"), "x".repeat(5000));
    const attached = attachFiles("@big.txt", ws, 300);
    expect(attached.ok && attached.message.length).toBeLessThan(400);
    expect(attached.ok && attached.message).toContain("characters cut");
  });

  test("an @ word that names nothing stays text; a folder is not attached; a file named twice goes once", () => {
    const { workspace: ws } = workspace();
    expect(attachFiles("install @types/node, ask @alice", ws, 1000)).toEqual({ ok: true, message: "install @types/node, ask @alice", files: [] });
    expect(attachFiles("see @src", ws, 1000)).toMatchObject({ ok: true, files: [] });
    expect(attachFiles("@src/version.ts and @src/version.ts", ws, 1000)).toMatchObject({ files: ["src/version.ts"] });
  });

  test("outside the workspace: nothing is sent, and the person is told why", () => {
    const { workspace: ws } = workspace();
    expect(attachFiles("read @../secret.txt", ws, 1000)).toEqual({ ok: false, problem: "@../secret.txt is not attached: it points outside the workspace; remove the @ to send it as plain text" });
    const absolute = attachFiles(`read @${join(ws.root, "src", "version.ts")}`, ws, 1000);
    expect(absolute).toMatchObject({ ok: false, problem: expect.stringContaining("must be relative to the workspace") });
  });

  test("a link out of the workspace is refused", () => {
    const { root, outside, workspace: ws } = workspace();
    symlinkSync(join(outside, "secret.txt"), join(root, "notes.txt"));
    expect(attachFiles("@notes.txt", ws, 1000)).toMatchObject({ ok: false, problem: expect.stringContaining("leads outside the workspace through a link") });
  });

  test("off limits (.env, .git, .glassbox) is refused", () => {
    const { workspace: ws } = workspace();
    expect(attachFiles("@.env", ws, 1000)).toEqual({ ok: false, problem: "@.env is not attached: it names `.env`, which is off limits to every tool; remove the @ to send it as plain text" });
  });

  test("a binary file is refused", () => {
    const { root, workspace: ws } = workspace();
    writeFileSync(join(root, "a.bin"), Buffer.from([0x50, 0, 1, 2]));
    expect(attachFiles("@a.bin", ws, 1000)).toMatchObject({ ok: false, problem: expect.stringContaining("binary") });
  });

  test("the transcript shows what was typed and the names, not the text", () => {
    const { workspace: ws } = workspace();
    const attached = attachFiles("why @src/version.ts", ws, 1000);
    expect(shownTask(attached.ok ? attached.message : "")).toBe("why @src/version.ts [attached: src/version.ts]");
    expect(shownTask("plain\n\ntext")).toBe("plain\n\ntext");
  });
});
