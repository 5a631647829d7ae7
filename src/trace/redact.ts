/**
 * The last line of defence for secrets: every file glassbox writes and every line it prints goes
 * through redact(), which replaces each registered secret (an API key, registered when it is read)
 * by a placeholder. A server that echoes the key in an error, or a person who pastes it into a
 * task, still leaves it in no log, session or result.
 */

const secrets = new Set<string>();
const PLACEHOLDER = "[api key]";
/** A value this short could be an ordinary word: it is still sent, but not hunted for in text. */
const SHORTEST = 8;

export function registerSecret(value: string): void {
  if (value.length >= SHORTEST) secrets.add(value);
}

export function redact(text: string): string {
  for (const secret of secrets) if (text.includes(secret)) text = text.replaceAll(secret, PLACEHOLDER);
  return text;
}
