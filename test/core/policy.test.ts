import { describe, expect, test } from "bun:test";
import { Policy, parseRule, ruleMatches } from "../../src/core/policy.ts";
import { TOOL_NAMES } from "../../src/tools/index.ts";

const rule = (text: string) => parseRule(text, TOOL_NAMES);

describe("parseRule", () => {
  test("TOOL and TOOL:GLOB", () => {
    expect(rule("write_file")).toMatchObject({ text: "write_file", tool: "write_file", glob: null });
    const globbed = rule(" write_file:src/** ");
    expect(globbed.text).toBe("write_file:src/**");
    expect(globbed.tool).toBe("write_file");
    expect(globbed.glob).not.toBeNull();
  });

  test("a rule naming an unknown tool is an error that names it", () => {
    expect(() => rule("remove_file")).toThrow('unknown tool "remove_file"');
    expect(() => rule("remove_file:src/**")).toThrow('unknown tool "remove_file"');
  });

  test("run_check is a known tool for rules even when no check is configured", () => {
    expect(rule("run_check:tests").tool).toBe("run_check");
  });

  test("malformed rules are errors", () => {
    for (const text of ["", ":src/**", "Write_File", "write_file:", "write file", "1tool"]) {
      expect(() => rule(text)).toThrow();
    }
  });
});

describe("ruleMatches", () => {
  test("a bare rule matches every call of its tool, and only its tool", () => {
    expect(ruleMatches(rule("write_file"), "write_file", "anything/at/all.txt")).toBe(true);
    expect(ruleMatches(rule("write_file"), "write_file", undefined)).toBe(true);
    expect(ruleMatches(rule("write_file"), "edit_file", "a.txt")).toBe(false);
  });

  test("a glob matches the target, and never a call without one", () => {
    const src = rule("write_file:src/**");
    expect(ruleMatches(src, "write_file", "src/a.ts")).toBe(true);
    expect(ruleMatches(src, "write_file", "src/deep/er/a.ts")).toBe(true);
    expect(ruleMatches(src, "write_file", "test/a.ts")).toBe(false);
    expect(ruleMatches(src, "write_file", "srcx/a.ts")).toBe(false);
    expect(ruleMatches(src, "write_file", undefined)).toBe(false);
    expect(ruleMatches(src, "edit_file", "src/a.ts")).toBe(false);
  });

  test("a single star stays in one folder; **/ also matches the root", () => {
    expect(ruleMatches(rule("write_file:*.md"), "write_file", "README.md")).toBe(true);
    expect(ruleMatches(rule("write_file:*.md"), "write_file", "docs/a.md")).toBe(false);
    expect(ruleMatches(rule("write_file:**/*.lock"), "write_file", "bun.lock")).toBe(true);
    expect(ruleMatches(rule("write_file:**/*.lock"), "write_file", "a/b/yarn.lock")).toBe(true);
  });

  test("a check rule matches the check name", () => {
    expect(ruleMatches(rule("run_check:tests"), "run_check", "tests")).toBe(true);
    expect(ruleMatches(rule("run_check:tests"), "run_check", "typecheck")).toBe(false);
    expect(ruleMatches(rule("run_check:type*"), "run_check", "typecheck")).toBe(true);
  });
});

describe("Policy", () => {
  test("no rules: ask", () => {
    expect(new Policy().decide("write_file", "a.txt")).toEqual({ verdict: "ask" });
  });

  test("allow names the rule that allowed", () => {
    const policy = new Policy([rule("edit_file"), rule("write_file:src/**")]);
    expect(policy.decide("write_file", "src/a.ts")).toEqual({ verdict: "allow", rule: "write_file:src/**", readOnly: false });
    expect(policy.decide("write_file", "README.md")).toEqual({ verdict: "ask" });
  });

  test("deny beats allow, whatever the order and however specific", () => {
    const policy = new Policy([rule("write_file:src/a.ts"), rule("write_file")], [rule("write_file:**/*.ts")]);
    expect(policy.decide("write_file", "src/a.ts")).toEqual({ verdict: "deny", rule: "write_file:**/*.ts" });
    expect(policy.decide("write_file", "notes.txt")).toEqual({ verdict: "allow", rule: "write_file", readOnly: false });
  });

  test("allowForSession adds an allow rule that deny rules still beat", () => {
    const policy = new Policy([], [rule("write_file:*.lock")]);
    expect(policy.decide("write_file", "a.txt")).toEqual({ verdict: "ask" });
    policy.allowForSession({ text: "write_file", tool: "write_file", glob: null });
    expect(policy.decide("write_file", "a.txt")).toMatchObject({ verdict: "allow" });
    expect(policy.decide("write_file", "bun.lock")).toMatchObject({ verdict: "deny" });
    expect(policy.decide("edit_file", "a.txt")).toEqual({ verdict: "ask" });
  });
});
