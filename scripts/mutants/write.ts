import type { Mutant } from "../mutate.ts";

/** The guards of the one write path (src/files/file-write.ts), edit_file's matching, delete_file and move_file. */
export const MUTANTS: Mutant[] = [
  {
    name: "BOM dropped",
    file: "src/files/file-write.ts",
    find: "return plan.current?.facts.bom ? Buffer.concat([BOM, text]) : text;",
    replace: "return text;",
  },
  {
    name: "mode lost",
    file: "src/files/file-write.ts",
    find: "if (mode !== null) chmodSync(temporary.path, mode);",
    replace: "",
  },
  {
    name: "non-UTF-8 accepted",
    file: "src/files/file-write.ts",
    find: "text = UTF8.decode(bom ? bytes.subarray(3) : bytes);",
    replace: "text = new TextDecoder().decode(bom ? bytes.subarray(3) : bytes);",
  },
  {
    name: "CRLF lost on write_file",
    file: "src/tools/write_file.ts",
    find: "after: current ? withLineEndings(args.content, current.facts.eol) : args.content",
    replace: "after: args.content",
  },
  {
    name: "edit_file's new text keeps LF in a CRLF file",
    file: "src/files/text-edit.ts",
    find: "const replacement = withLineEndings(edit.new, eol);",
    replace: "const replacement = edit.new;",
  },
  {
    name: "partial multi-edit written",
    file: "src/files/text-edit.ts",
    find: "if (!outcome.ok) return { ok: false, index, problem: outcome.problem };",
    replace: "if (!outcome.ok) break;",
  },
  {
    name: "loose match accepted when ambiguous",
    file: "src/files/text-edit.ts",
    find: "if (fits.length > 1) {",
    replace: "if (false) {",
  },
  {
    name: "tabs read as spaces",
    file: "src/files/text-edit.ts",
    find: "if (!pairs.every(([old, file]) => /^ *$/.test(old) && /^ *$/.test(file))) return null;",
    replace: "if (!pairs.every(([old, file]) => /^[ \\t]*$/.test(old) && /^[ \\t]*$/.test(file))) return null;",
  },
  {
    name: "replace_all matched loosely",
    file: "src/files/text-edit.ts",
    find: "if (edit.replace_all) {",
    replace: "if (edit.replace_all && count > 0) {",
  },
  {
    name: "move overwrite without flag",
    file: "src/tools/move_file.ts",
    find: "if (to.stats && !args.overwrite) throw",
    replace: "if (false) throw",
  },
  {
    name: "move allowed by a rule matching one path",
    file: "src/core/policy.ts",
    find: "targets.every((one) => ruleMatches(rule, tool, one))",
    replace: "targets.some((one) => ruleMatches(rule, tool, one))",
  },
  {
    name: "deletes not saved for undo",
    file: "src/files/file-write.ts",
    find: 'journaled(context, [["delete_file", file, null]],',
    replace: "journaled(context, [],",
  },
  {
    name: "a deleted link takes its target",
    file: "src/files/file-write.ts",
    find: "if (lstatSync(join(workspace.root, path)).isSymbolicLink()) {",
    replace: "if (false) {",
  },
  {
    name: ".glassbox/.gitignore not written",
    file: "src/platform/glassbox-folder.ts",
    find: 'if (!existsSync(ignore)) writeFileSync(ignore, "*\\n");',
    replace: "",
  },
];
