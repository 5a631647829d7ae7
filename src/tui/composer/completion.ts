/**
 * Tab completion in the input: a slash command's name on a line that starts with `/`, a
 * workspace file after `@`. Pure: the text, the cursor and the candidates in; what to put
 * where, out.
 */

export interface Completion {
  /** The text[start, end) the completion replaces: the word under the cursor, up to the cursor. */
  start: number;
  end: number;
  /** What the word may become, whole (`/help`, `@src/`, `@src/version.ts`), sorted. */
  candidates: string[];
  /** The longest beginning all candidates share: what one Tab puts in. */
  common: string;
  /** Whether a lone candidate is finished (a file or a command: a space follows) or goes on (a folder). */
  done: boolean;
}

export interface CompletionSources {
  /** Slash command names, with their slash. */
  commands: readonly string[];
  /** The workspace's files, relative, `/`-separated (the files the tree tools see). */
  files: () => readonly string[];
}

/** The `@` word the cursor is in or just after, or null. */
export function atWord(text: string, cursor: number): { start: number; word: string } | null {
  let start = cursor;
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
  const word = text.slice(start, cursor);
  return word.startsWith("@") ? { start, word } : null;
}

/** What Tab completes at the cursor, or null when Tab is not a completion there (it moves the focus). */
export function completionAt(text: string, cursor: number, sources: CompletionSources): Completion | null {
  const firstSpace = text.search(/\s/);
  if (text.startsWith("/") && (firstSpace === -1 || cursor <= firstSpace)) {
    const word = text.slice(0, cursor);
    return result(0, cursor, sources.commands.filter((name) => name.startsWith(word)), true);
  }
  const at = atWord(text, cursor);
  if (!at) return null;
  const files = fileCandidates(at.word.slice(1), sources.files());
  return result(at.start, cursor, files.map((file) => `@${file}`), !files[0]?.endsWith("/"));
}

/**
 * The entries a typed path prefix can continue with, one level at a time as a shell does
 * (`src/` before `src/version.ts`); when no path starts so, the files whose path holds it
 * (`@version` finds `src/version.ts`).
 */
export function fileCandidates(typed: string, files: readonly string[]): string[] {
  const base = typed.slice(0, typed.lastIndexOf("/") + 1);
  const entries = new Set<string>();
  for (const file of files) {
    if (!file.startsWith(typed)) continue;
    const slash = file.indexOf("/", base.length);
    entries.add(slash === -1 ? file : file.slice(0, slash + 1));
  }
  if (entries.size === 0 && typed !== "") for (const file of files) if (file.includes(typed)) entries.add(file);
  return [...entries].sort();
}

function result(start: number, end: number, candidates: string[], done: boolean): Completion {
  let common = candidates[0] ?? "";
  for (const candidate of candidates) while (!candidate.startsWith(common)) common = common.slice(0, -1);
  return { start, end, candidates, common, done: candidates.length === 1 && done };
}
