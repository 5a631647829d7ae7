import { words } from "./words.ts";

/** "Hello, World!" becomes "hello-world": the words joined by hyphens. */
export function slugify(text: string): string {
  return words(text).join("-");
}
