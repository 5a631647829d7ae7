import { expect } from "bun:test";
import { UsageError } from "../../src/protocol/usage-error.ts";

/** The UsageError a call throws (fails the test when it throws nothing or something else). */
export function usageError(thunk: () => unknown): UsageError {
  try {
    thunk();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error("expected a UsageError, nothing was thrown");
}
