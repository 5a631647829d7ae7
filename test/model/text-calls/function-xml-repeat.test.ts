/**
 * A reply of many `<function=` lines that do not end in calls (found by the property tests beside
 * this file): each line once began a chain read to the end again, and 2,000 of them took a
 * minute. A chain that fails is now read once, and a chain after the failure is still found.
 */
import { describe, expect, test } from "bun:test";
import { recoverTextCalls } from "../../../src/model/text-calls/index.ts";
import type { ToolDeclaration } from "../../../src/protocol/model.ts";

const OFFERED: ToolDeclaration[] = [{ name: "run", description: "run", parameters: { type: "object", properties: { a: { type: "string" } } } }];

describe("function_xml on a long reply", () => {
  test("thousands of repeated `<function=` lines followed by other text are read at once, and are no call", () => {
    for (const text of ["<function=run>\n".repeat(6_000) + "</tool_call>", "<function=run>\n".repeat(6_000) + "x", "<function=run></function>\n".repeat(4_000) + "done."]) {
      const started = performance.now();
      expect(recoverTextCalls(text, OFFERED)).toBeNull();
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });

  test("a chain after one that failed is still found", () => {
    expect(recoverTextCalls("<function=run>\nnot a parameter\n<function=run>\n<parameter=a>1</parameter>", OFFERED)).toMatchObject({
      form: "function_xml",
      calls: [{ name: "run", arguments: { a: "1" } }],
    });
    // The failure is a function not offered, in the middle: the calls after it stand alone.
    const text = "<function=run>\n<function=nope>\n<function=run>\n<parameter=a>2</parameter>\n</function>";
    expect(recoverTextCalls(text, OFFERED)).toEqual({ form: "function_xml", prose: "<function=run>\n<function=nope>", calls: [{ name: "run", arguments: { a: "2" } }] });
  });
});
