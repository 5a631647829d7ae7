import { words } from "./words.ts";

export function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** "the quick fox" becomes "The Quick Fox". */
export function titleCase(text: string): string {
  return words(text).map(capitalize).join(" ");
}
