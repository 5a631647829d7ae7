/**
 * Property of edit_file and `glassbox undo` together: whatever edits a run makes to a file
 * (exact, loose, several at once, refused), undoing the run gives back the file's exact bytes
 * and mode; and an edit that is refused leaves the file as it was.
 */
import fc from "fast-check";
import { describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Workspace } from "../../src/files/workspace.ts";
import { ChangeJournal } from "../../src/files/journal.ts";
import { applyUndo } from "../../src/files/restore.ts";
import { gate } from "../tools/harness.ts";
import { tempFolder } from "../helpers/workspace.ts";
import { settings } from "../helpers/property.ts";

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

const word = fc.constantFrom("alpha", "beta", "  gamma()", "\tdelta;", "é ü", "😀", "", "x = 1  ", "}");
const eol = fc.constantFrom("\n", "\n", "\r\n");

/** A text file's bytes: lines of a few words, LF or CRLF or both, maybe a byte-order mark; now and then bytes that are not UTF-8. */
const fileBytes = fc.oneof(
  { weight: 9, arbitrary: fc.tuple(fc.array(fc.tuple(word, eol), { maxLength: 12 }), fc.boolean(), fc.boolean()).map(([lines, bom, lastBreak]) => {
    const text = lines.map(([w, e], index) => w + (index < lines.length - 1 || lastBreak ? e : "")).join("");
    return Buffer.concat([bom ? BOM : Buffer.alloc(0), Buffer.from(text, "utf8")]);
  }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)) },
);

/** One edit, decided before the file is known: `old` is cut from the text the file holds when the edit is made. */
const editSpec = fc.record({
  from: fc.nat(),
  length: fc.integer({ min: 1, max: 30 }),
  /** How `old` is re-typed: as it is, without trailing whitespace, re-indented, with LF for CRLF, or text of its own. */
  retype: fc.constantFrom("exact", "exact", "trim-trailing", "indent", "lf", "own", "lines-indented", "lines-trailing"),
  own: fc.string({ minLength: 1, maxLength: 8 }),
  replacement: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("", "\n", "line one\nline two\n", "é\r\n")),
  replaceAll: fc.boolean(),
});

type EditSpec = typeof editSpec extends fc.Arbitrary<infer T> ? T : never;

function oldFrom(text: string, spec: EditSpec): string {
  if (spec.retype === "own" || !text) return spec.own;
  if (spec.retype.startsWith("lines-")) {
    // Whole lines re-typed, as the loose matcher takes them: indented anew, or trailing whitespace changed.
    const lines = text.split(/\r?\n/);
    const first = spec.from % lines.length;
    const picked = lines.slice(first, first + 1 + (spec.length % 3));
    const retyped = picked.map((line) => (spec.retype === "lines-indented" ? `  ${line}` : line.trimEnd() === line ? `${line} ` : line.trimEnd()));
    return retyped.join("\n") || spec.own;
  }
  const start = spec.from % text.length;
  const cut = text.slice(start, start + spec.length);
  const retyped: string = ({
    exact: cut,
    "trim-trailing": cut.replace(/[ \t]+(?=\r?\n|$)/g, ""),
    indent: cut.replace(/^|\n/g, (at) => `${at}  `),
    lf: cut.replace(/\r\n/g, "\n"),
  } as Record<string, string>)[spec.retype]!;
  return retyped || spec.own;
}

/** A call of edit_file: one edit, or several at once. */
const callSpec = fc.oneof({ weight: 3, arbitrary: editSpec.map((edit) => [edit]) }, { weight: 1, arbitrary: fc.array(editSpec, { minLength: 2, maxLength: 3 }) });

describe("edit_file, then undo", () => {
  test("gives back the file's exact bytes and mode, whatever the edits were", async () => {
    await fc.assert(
      fc.asyncProperty(fileBytes, fc.constantFrom(0o644, 0o600, 0o755), fc.array(callSpec, { minLength: 1, maxLength: 3 }), async (original, mode, calls) => {
        const root = tempFolder("edit-undo");
        const path = join(root, "notes.txt");
        writeFileSync(path, original);
        chmodSync(path, mode);
        const g = gate(root, { allow: ["edit_file"] });
        const journal = new ChangeJournal(new Workspace(root).root, "20260101T000000-property");
        g.checkpoint.journal = journal;
        for (const edits of calls) {
          const before = readFileSync(path);
          const text = before.toString("utf8").replace(/^\uFEFF/, "");
          const args = edits.map((edit) => ({ old: oldFrom(text, edit), new: edit.replacement, ...(edit.replaceAll ? { replace_all: true } : {}) }));
          const verdict = await g.call("edit_file", args.length === 1 ? { path: "notes.txt", ...args[0] } : { path: "notes.txt", edits: args });
          // Made, or refused with a reason (never a failure inside the tool); a refused edit changes nothing.
          expect(["allowed", "refused"]).toContain(verdict.decision);
          if (verdict.decision === "refused") expect(readFileSync(path).equals(before)).toBe(true);
          // The byte-order mark and the mode stay whatever the edit did.
          expect(readFileSync(path).subarray(0, 3).equals(BOM)).toBe(before.subarray(0, 3).equals(BOM));
          expect(statSync(path).mode & 0o777).toBe(mode);
        }
        applyUndo(new Workspace(root), journal.runId, { force: false });
        expect(readFileSync(path).equals(original)).toBe(true);
        expect(statSync(path).mode & 0o777).toBe(mode);
      }),
      settings(40_501, 100, 20_000),
    );
  }, 30_000);
});
