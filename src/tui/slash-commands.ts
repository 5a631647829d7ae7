/**
 * The TUI's slash commands: a table of name → handler. The app lends each handler what it may
 * do (SlashHost); the composer completes the names and hints them while `/` is typed.
 */

import { LIMIT_NAMES, type Limits } from "../protocol/limits.ts";

/** What a command may ask of the TUI. */
export interface SlashHost {
  running(): boolean;
  /** A line in the transcript. */
  say(text: string): void;
  overlay(title: string, text: string): void;
  help(): void;
  pickModel(): void;
  undo(): void;
  sessions(): string[];
  newSession(): void;
  compact(): void;
  allow(rule: string): void;
  limits(): Limits;
  prompt(): void;
  quit(): void;
}

export interface SlashCommand {
  name: string;
  /** The argument's name in the hint, when it takes one. */
  argument?: string;
  summary: string;
  /** Between runs only: during a run it says to stop the run first. */
  idleOnly?: boolean;
  run(host: SlashHost, argument: string): void;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: "/help", summary: "keys and commands", run: (host) => host.help() },
  { name: "/model", summary: "choose the model", idleOnly: true, run: (host) => host.pickModel() },
  { name: "/undo", summary: "undo the last run that changed files", idleOnly: true, run: (host) => host.undo() },
  { name: "/sessions", summary: "the saved sessions of this workspace", run: (host) => host.overlay("sessions", host.sessions().join("\n")) },
  { name: "/new", summary: "a fresh conversation (a new saved session)", idleOnly: true, run: (host) => host.newSession() },
  { name: "/compact", summary: "summarize the conversation so far when the next message is sent", idleOnly: true, run: (host) => host.compact() },
  { name: "/allow", argument: "RULE", summary: "allow a tool without asking, this session (/allow edit_file:src/**)", run: (host, rule) => host.allow(rule) },
  { name: "/limits", summary: "the budgets of a run", run: (host) => host.overlay("limits", limitLines(host.limits()).join("\n")) },
  { name: "/prompt", summary: "the full system prompt, each layer marked", run: (host) => host.prompt() },
  { name: "/quit", summary: "quit glassbox (stops a run)", run: (host) => host.quit() },
];

export const SLASH_NAMES: readonly string[] = SLASH_COMMANDS.map((command) => command.name);

/**
 * Runs the command a message names. Returns null when it ran, or what is wrong (an unknown
 * name, a missing argument, a run under way), for the person; nothing is sent either way.
 */
export function runSlash(text: string, host: SlashHost): string | null {
  const [name = "", ...rest] = text.trim().split(/\s+/);
  const argument = rest.join(" ");
  const command = SLASH_COMMANDS.find((candidate) => candidate.name === name);
  if (!command) return `unknown command ${name}: /help lists the commands`;
  if (command.argument && !argument) return `${name} needs ${command.argument}: ${command.summary}`;
  if (!command.argument && argument) return `${name} takes no argument; send ${name} alone`;
  if (command.idleOnly && host.running()) return `${name}: a run is active; stop it first (Esc), then ${name}`;
  command.run(host, argument);
  return null;
}

/** The hint while a command is typed: the commands its beginning matches, with what they do. */
export function slashHint(typed: string): string {
  const word = typed.split(/\s/)[0]!;
  const matches = SLASH_COMMANDS.filter((command) => command.name.startsWith(word));
  if (!matches.length) return `no command starts with ${word}; Tab completes, /help lists them`;
  // Several: their names, so all fit; one: what it does too.
  if (matches.length > 1) return matches.map((command) => command.name).join("  ");
  const [command] = matches;
  return `${command!.name}${command!.argument ? ` ${command!.argument}` : ""}: ${command!.summary}`;
}

/** The commands' lines for the help overlay. */
export function slashHelp(): string[] {
  return SLASH_COMMANDS.map((command) => `${`${command.name}${command.argument ? ` ${command.argument}` : ""}`.padEnd(13)}${command.summary}`);
}

/** /limits: each budget of a run and where it is set. */
export function limitLines(limits: Limits): string[] {
  return [...LIMIT_NAMES.map((name) => `${name.padEnd(24)}${limits[name]}`), "", 'Set in glassbox.json ("limits") or with --limit NAME=VALUE.'];
}
