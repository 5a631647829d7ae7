/**
 * Argument validation: one strict zod schema per tool validates the model's calls and is what the
 * model is shown. Every refusal is one sentence naming the argument, with no machine paths.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { validateArguments } from "../../src/core/validate.ts";
import { Refusal, type Tool } from "../../src/tools/tool.ts";
import { defaultTools } from "../../src/tools/index.ts";
import { readFile } from "../../src/tools/read_file.ts";
import type { Checks } from "../../src/tools/checks.ts";
import { makeWorkspace, type TestWorkspace } from "../helpers/workspace.ts";
import { call, runScripted } from "../helpers/run.ts";
import { expectRefused, gate, recordingApprover } from "../tools/harness.ts";

const CHECKS: Checks = {
  tests: { argv: ["true"], timeout_seconds: 5, env: [] },
  lint: { argv: ["true"], timeout_seconds: 5, env: [] },
};

let ws: TestWorkspace;
beforeAll(() => {
  ws = makeWorkspace();
});

/** The default tools, each wrapped so a test can see whether preflight (or anything later) ran. */
function spiedTools(): { tools: Tool[]; planned: string[] } {
  const planned: string[] = [];
  const tools = defaultTools(CHECKS).map(
    (tool): Tool => ({
      ...tool,
      plan: async (args, context) => {
        planned.push(tool.name);
        return tool.plan(args, context);
      },
    }),
  );
  return { tools, planned };
}

type Row = [label: string, tool: string, raw: unknown, mentions: (string | RegExp)[]];

const REFUSED: Row[] = [
  ["a list", "read_file", ["README.md"], [/must be a JSON object/, /a list/]],
  ["a number", "read_file", 42, [/must be a JSON object/, /an integer/]],
  ["a fractional number", "read_file", 4.5, [/must be a JSON object/]],
  ["null", "read_file", null, [/must be a JSON object/, /null/]],
  ["a boolean", "read_file", true, [/must be a JSON object/, /boolean/]],
  ["a string that is not JSON", "read_file", "path=README.md", [/not valid JSON/]],
  ["truncated JSON", "read_file", '{"path": "README.md"', [/not valid JSON/]],
  ["a JSON string holding a list", "read_file", '["README.md"]', [/must be a JSON object/, /a list/]],
  ["a JSON string holding a number", "read_file", "7", [/must be a JSON object/]],
  ["a JSON string holding a string", "read_file", '"README.md"', [/must be a JSON object/]],
  ["a JSON string holding null", "read_file", "null", [/must be a JSON object/, /null/]],
  ["an unexpected key", "read_file", { path: "README.md", lines: 5 }, ["`lines`", /Unexpected argument/, /path, start, max_lines/]],
  ["an unexpected key in a JSON string", "read_file", '{"path":"README.md","encoding":"utf8"}', ["`encoding`"]],
  ["an unexpected key on a tool without arguments", "current_time", { zone: "UTC" }, ["`zone`", /no arguments/]],
  ["__proto__ smuggled as a key", "read_file", '{"path":"README.md","__proto__":{"x":1}}', ["`__proto__`"]],
  ["a missing key", "read_file", {}, ["`path`", /missing/]],
  ["a missing key among others", "edit_file", { path: "README.md", old: "x" }, ["`new`", /missing/]],
  ["a missing key in a JSON string", "write_file", '{"path":"a.txt"}', ["`content`", /missing/]],
  ["true for an integer", "read_file", { path: "README.md", start: true }, ["`start`", /must be an integer/, /boolean/]],
  ['"10" for an integer', "read_file", { path: "README.md", max_lines: "10" }, ["`max_lines`", /must be an integer/, /"10"/]],
  ["1.5 for an integer", "read_file", { path: "README.md", start: 1.5 }, ["`start`", /integer/]],
  ["null for an optional integer", "read_file", { path: "README.md", start: null }, ["`start`", /null/]],
  ["a number for a string", "read_file", { path: 7 }, ["`path`", /string/]],
  ["an object for a string", "write_file", { path: "a.txt", content: { text: "x" } }, ["`content`", /string/]],
  ["a check that is not configured", "run_check", { name: "deploy" }, ["`name`", /one of/, "tests", "lint"]],
  ["a check name in the wrong case", "run_check", { name: "Tests" }, ["`name`", "tests, lint"]],
  ["a too-long path", "read_file", { path: "a/".repeat(600) }, ["`path`", /too long/, "1000"]],
  ["a too-long search text", "search_text", { text: "x".repeat(201) }, ["`text`", /too long/, "200"]],
  ["an empty path", "read_file", { path: "" }, ["`path`", /empty/]],
  ["an empty old text", "edit_file", { path: "README.md", old: "", new: "x" }, ["`old`", /empty/]],
  ["max_lines 0", "read_file", { path: "README.md", max_lines: 0 }, ["`max_lines`", /at least 1/]],
  ["max_lines 501", "read_file", { path: "README.md", max_lines: 501 }, ["`max_lines`", /at most 500/]],
  ["max_lines -1", "read_file", { path: "README.md", max_lines: -1 }, ["`max_lines`", /at least 1/]],
  ["start 0", "read_file", { path: "README.md", start: 0 }, ["`start`", /at least 1/]],
  ["too many todo items", "update_todo", { items: Array.from({ length: 51 }, () => ({ text: "x", status: "pending" })) }, ["`items`", /at most 50/]],
  ["a bad todo status", "update_todo", { items: [{ text: "x", status: "started" }] }, ["`items.0.status`", /one of/, "pending"]],
  ["an empty finish summary", "finish", { summary: "" }, ["`summary`", /empty/]],
];

describe("refused at validation: the tool's preflight never runs and nobody is asked", () => {
  for (const [label, tool, raw, mentions] of REFUSED) {
    test(label, async () => {
      const { tools, planned } = spiedTools();
      const { approver, requests } = recordingApprover("yes");
      const verdict = await gate(ws.root, { tools, approver, allow: ["write_file", "edit_file"] }).call(tool, raw);
      expectRefused(verdict, ws, ...mentions);
      expect(planned).toEqual([]);
      expect(requests).toEqual([]);
    });
  }
});

const ACCEPTED: Array<[label: string, tool: string, raw: unknown, expected: unknown]> = [
  ["an object", "read_file", { path: "README.md" }, { path: "README.md" }],
  ["a JSON string holding an object", "read_file", '{"path":"README.md","max_lines":3}', { path: "README.md", max_lines: 3 }],
  ["a JSON string with whitespace around", "read_file", '  \n{"path": "README.md"}\n ', { path: "README.md" }],
  ["an empty string for a tool without required arguments", "current_time", "", {}],
  ["an empty object for a tool without required arguments", "list_files", {}, {}],
  ["the largest max_lines", "read_file", { path: "README.md", max_lines: 500 }, { path: "README.md", max_lines: 500 }],
  ["the smallest max_lines", "read_file", { path: "README.md", max_lines: 1 }, { path: "README.md", max_lines: 1 }],
  ["an integer written as 3.0", "read_file", '{"path":"README.md","start":3.0}', { path: "README.md", start: 3 }],
  ["a configured check", "run_check", { name: "lint" }, { name: "lint" }],
  ["an empty new text (a deletion)", "edit_file", { path: "README.md", old: "x", new: "" }, { path: "README.md", old: "x", new: "" }],
  ["an empty file content", "write_file", { path: "a.txt", content: "" }, { path: "a.txt", content: "" }],
];

describe("accepted by validation", () => {
  const byName = new Map(defaultTools(CHECKS).map((tool) => [tool.name, tool]));
  for (const [label, tool, raw, expected] of ACCEPTED) {
    test(label, () => {
      expect(validateArguments(byName.get(tool)!, raw)).toEqual(expected);
    });
  }

  test("a JSON string holding an object reaches the tool through the checkpoint", async () => {
    const verdict = await gate(ws.root).call("read_file", '{"path":"README.md","max_lines":2}');
    expect(verdict.decision).toBe("allowed");
    expect(verdict.content).toMatch(/^\[README\.md: lines 1-2 of \d+; 0 above, \d+ below\]\n/);
  });
});

/** What `run` threw; a call that does not throw fails the test, so a case cannot pass by not throwing. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw, but the call returned");
}

describe("refusal sentences", () => {
  test("every refusal is a Refusal (not a crash) and one line, whatever the model sends", () => {
    const weird: unknown[] = [undefined, "", " ", "{", "}{", "[", "0", "-1", "1e999", "true", '{"path":{"path":"x"}}', { path: ["a"] }, { path: "x", start: 1e300 }];
    for (const raw of weird) {
      const error = thrownBy(() => validateArguments(readFile, raw));
      expect(error).toBeInstanceOf(Refusal);
      expect((error as Error).message).not.toContain("\n");
    }
  });

  test("a refusal quoting a long wrong value shortens it", () => {
    const long = "y".repeat(5000);
    const error = thrownBy(() => validateArguments(readFile, { path: "README.md", start: long }));
    expect(error).toBeInstanceOf(Refusal);
    expect((error as Error).message.length).toBeLessThan(200);
  });

  test("an unexpected key inside a list item names where it is", () => {
    const todo = defaultTools({}).find((tool) => tool.name === "update_todo")!;
    expect(() => validateArguments(todo, { items: [{ text: "a", status: "done", colour: "red" }] })).toThrow(/`colour`.*`items\.0`/);
  });

  test("the whole loop: the model gets each refusal as its tool result and the run goes on", async () => {
    const run = await runScripted(
      [
        call("read_file", "not json at all"),
        call("read_file", { path: "README.md", start: true }),
        call("run_check", { name: "deploy" }),
        call("read_file", '{"path":"README.md"}'),
        { content: "done" },
      ],
      { workspace: ws.root, checks: CHECKS },
    );
    expect(run.stop.status).toBe("completed");
    expect(run.calls.map((c) => c.decision)).toEqual(["refused", "refused", "refused", "allowed"]);
    expect(run.calls[1]!.reason).toContain("`start`");
    expect(run.calls[2]!.reason).toContain("tests, lint");
    const toolMessages = run.model.requests.at(-1)!.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(toolMessages).toHaveLength(4);
    expect(toolMessages[0]).toStartWith("Refused: ");
    expect(toolMessages[1]).toBe(`Refused: ${run.calls[1]!.reason}`);
    expect(toolMessages[3]).toContain("semver-lite");
    for (const event of run.calls) {
      expect(event.reason).not.toContain(ws.root);
      expect(event.reason).not.toContain(ws.outside);
    }
  });
});

describe("the JSON Schema shown to the model is the validating zod schema", () => {
  const declarations = () => gate(ws.root, { checks: CHECKS }).checkpoint.declarations();
  const params = (name: string) => declarations().find((d) => d.name === name)!.parameters as any;

  test("read_file: max_lines 1-500, start ≥ 1, path required, nothing else accepted", () => {
    const p = params("read_file");
    expect(p.type).toBe("object");
    expect(p.additionalProperties).toBe(false);
    expect(p.required).toEqual(["path"]);
    expect(p.properties.max_lines.type).toBe("integer");
    expect(p.properties.max_lines.minimum).toBe(1);
    expect(p.properties.max_lines.maximum).toBe(500);
    expect(p.properties.start.minimum).toBe(1);
    expect(p.properties.path.maxLength).toBe(1000);
    expect(p.$schema).toBeUndefined();
  });

  test("run_check: name is an enum of exactly the configured checks", () => {
    expect(params("run_check").properties.name.enum).toEqual(["tests", "lint"]);
    expect(params("run_check").required).toEqual(["name"]);
  });

  test("run_check is not offered when no check is configured", () => {
    const names = gate(ws.root).checkpoint.declarations().map((d) => d.name);
    expect(names).not.toContain("run_check");
    expect(names).toEqual(expect.arrayContaining(["list_files", "read_file", "search_text", "write_file", "edit_file", "finish"]));
  });

  test("every tool: the declaration is the zod schema's JSON Schema, strict", () => {
    for (const tool of defaultTools(CHECKS)) {
      const { $schema: _drop, ...expected } = z.toJSONSchema(tool.schema) as Record<string, unknown>;
      const shown = declarations().find((d) => d.name === tool.name)!;
      expect(shown.parameters).toEqual(expected);
      expect(shown.parameters.additionalProperties).toBe(false);
      expect(shown.description.length).toBeGreaterThan(10);
    }
  });

  /** Minimal valid arguments per tool, to probe one bound at a time. */
  const BASE: Record<string, Record<string, unknown>> = {
    read_file: { path: "README.md" },
    list_files: {},
    search_text: { text: "x" },
    find_files: { pattern: "*" },
    repo_map: {},
    find_symbol: { name: "x" },
    find_references: { name: "x" },
    write_file: { path: "a.txt", content: "" },
    edit_file: { path: "a.txt", old: "x", new: "" },
    delete_file: { path: "a.txt" },
    move_file: { from: "a.txt", to: "b.txt" },
    finish: { summary: "ok" },
    run_check: { name: "tests" },
    run_command: { argv: ["git", "status"] },
    current_time: {},
    update_todo: { items: [] },
    explore: { question: "where?" },
  };

  test("every declared numeric and length bound is exactly where validation draws the line", () => {
    let probed = 0;
    for (const tool of defaultTools(CHECKS)) {
      const props = (declarations().find((d) => d.name === tool.name)!.parameters as any).properties as Record<string, any>;
      const base = BASE[tool.name]!;
      expect(() => validateArguments(tool, base)).not.toThrow();
      for (const [key, prop] of Object.entries(props)) {
        const probes: Array<[unknown, boolean]> = [];
        if (prop.maximum !== undefined && prop.maximum < 1e9) probes.push([prop.maximum, true], [prop.maximum + 1, false]);
        if (prop.minimum !== undefined && prop.minimum > -1e9) probes.push([prop.minimum, true], [prop.minimum - 1, false]);
        if (prop.maxLength !== undefined) probes.push(["a".repeat(prop.maxLength), true], ["a".repeat(prop.maxLength + 1), false]);
        if (prop.minLength !== undefined && prop.minLength > 0) probes.push(["a".repeat(prop.minLength - 1), false]);
        for (const [value, ok] of probes) {
          probed++;
          const attempt = () => validateArguments(tool, { ...base, [key]: value });
          if (ok) expect(attempt).not.toThrow();
          else expect(attempt).toThrow(new RegExp(`Argument \`${key}\``));
        }
      }
    }
    expect(probed).toBeGreaterThan(15);
  });
});
