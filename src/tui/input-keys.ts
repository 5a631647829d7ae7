import type { Widgets } from "./blessed.ts";

/** The input line's text, as the hook may read and set it. */
export interface InputLine {
  value: string;
}

/**
 * Lets the app see each key the input line reads before the line types it; `handle` returns true
 * when it took the key (a command such as `m` on an empty line, or a key for the model picker).
 * blessed's textbox binds its key listener from the instance each time it starts reading, so
 * wrapping the instance's listener once covers every read, and keys that arrive in one burst
 * ("make it pass") are seen in order without the line ever stopping.
 */
export function onInputKey(input: Widgets.TextboxElement, handle: (ch: string | undefined, name: string, line: InputLine) => boolean): void {
  const box = input as unknown as InputLine & { _listener(ch: string | undefined, key: { name: string }): void };
  const type = box._listener;
  box._listener = function (this: typeof box, ch, key) {
    if (handle(ch, key.name, this)) return;
    type.call(this, ch, key);
  };
}
