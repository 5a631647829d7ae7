import { afterAll } from "bun:test";
import { removeWorkspaces } from "./workspace.ts";

// A preload's afterAll runs once, after every test file.
afterAll(removeWorkspaces);
