import { slashHelp } from "./slash-commands.ts";

/** The help overlay (? on an empty input, F1, /help): the keys, then the slash commands. */
export function helpText(): string {
  return `glassbox — keys

Enter        send the message (the task, or a follow-up; during a run it is queued until the run stops)
Alt+Enter    a new line in the message (Ctrl+J too); a paste goes in whole, newlines and all
Ctrl-A/E     start / end of the line; Ctrl-U / Ctrl-K delete to its start / end; Ctrl-W the word before
Alt-B/F      a word back / forward; ← → Home End Delete Backspace as usual
↑ / ↓        on the first / last line of the input: earlier messages of this workspace
@path        Tab completes a workspace file; the message carries the file's text
y / n / a    answer an approval: yes, no, always for this session (the tool; for a command, its first two words)
Esc          on the input: stop the running model; in a pane: back to the input; in an overlay: close it
Tab          move focus: input → transcript → tool verdicts (completes / commands and @ words instead)
↑ ↓ Enter    in the tool verdicts: choose a call; Enter opens its whole result as the model got it (↳: a sub-run's call)
Enter        in the transcript: unfold (or fold) the newest folded entry in view: a sub-run's steps (explore)
PgUp PgDn    scroll the focused pane; Home / End jump (End follows the stream again)
p            (on an empty input) show the full system prompt, each layer marked
m            (on an empty input, between runs) choose the model: what answers on this machine, or a GGUF file
u            (on an empty input, between runs) undo the last run that changed files: shows them, asks y/n
? / F1       this help (? on an empty input; F1 anywhere)
Ctrl-L       draw the whole screen again (after another program wrote over it)
Ctrl-C       quit (asks first while a run is active; a second Ctrl-C forces)

Commands (Tab completes them):
${slashHelp().join("\n")}

Everything the model writes and every tool result is shown escaped: control characters and
escape sequences appear as ^[ or <U+202E>, never reach the terminal.`;
}
