import { RUN_COMMAND } from "../protocol/tool-names.ts";

/**
 * Approval rules as data: `TOOL` or `TOOL:GLOB`, the glob matched against the call's target
 * (its path argument, the check's name, or a command's line). Deny beats allow. A call on two
 * paths (move_file's `from` and `to`) is denied when a rule matches either and allowed only when
 * one matches both.
 */
export interface Rule {
  text: string;
  tool: string;
  glob: { match(target: string): boolean } | null;
  /** A read-only command rule (`run_command:ro:GLOB`, and the built-ins): what it allows runs with the workspace read-only. */
  readOnly?: boolean;
}

/** The prefix of a read-only command rule's glob: `run_command:ro:git status*`. */
export const READ_ONLY_PREFIX = "ro:";

/**
 * A command-line glob: `*` matches any characters, `/` and spaces included; everything else is
 * itself. Matched greedily with one backtrack point, so time stays linear in practice and a
 * rule with many stars cannot hang the checkpoint the way a backtracking regex could.
 */
export class CommandGlob {
  constructor(private readonly pattern: string) {}

  match(line: string): boolean {
    const pattern = this.pattern;
    let p = 0;
    let l = 0;
    let star = -1;
    let resume = 0;
    while (l < line.length) {
      if (p < pattern.length && pattern[p] !== "*" && pattern[p] === line[l]) {
        p++;
        l++;
      } else if (p < pattern.length && pattern[p] === "*") {
        star = p++;
        resume = l;
      } else if (star >= 0) {
        p = star + 1;
        l = ++resume;
      } else {
        return false;
      }
    }
    while (p < pattern.length && pattern[p] === "*") p++;
    return p === pattern.length;
  }
}

/**
 * Built into every policy. Read-only git is allowed, read-only: it runs with the workspace
 * mounted read-only, so no option of git's (`--output`, `-c`, an alias, a diff driver) can write
 * there; `sudo` and `git push` are denied whatever else allows them, `--allow run_command`
 * included. They match the start of the line only: the sandbox, not a list of words, is what
 * holds against the rest.
 */
export const BUILT_IN_ALLOW = ["git status*", "git diff*", "git log*", "git show*"].map((glob) => commandRule(`${READ_ONLY_PREFIX}${glob}`));
export const BUILT_IN_DENY = ["sudo*", "git push*"].map((glob) => commandRule(glob));

function commandRule(glob: string): Rule {
  const readOnly = glob.startsWith(READ_ONLY_PREFIX);
  const text = `${RUN_COMMAND}:${glob}`;
  return { text, tool: RUN_COMMAND, glob: new CommandGlob(readOnly ? glob.slice(READ_ONLY_PREFIX.length) : glob), ...(readOnly ? { readOnly } : {}) };
}

const RULE = /^([a-z_][a-z0-9_]*)(?::(.+))?$/;

/** `mcp__SERVER__TOOL` or `mcp__SERVER__*`: a server's tools are named by the server, never all at once. */
const MCP_RULE = /^mcp__([A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*)__([A-Za-z0-9_-]+|\*)$/;

export function parseRule(text: string, knownTools: readonly string[], mcpServers: readonly string[] = []): Rule {
  if (text.trim().startsWith("mcp__")) return parseMcpRule(text.trim(), mcpServers);
  const match = RULE.exec(text.trim());
  if (!match) throw new Error(`rule "${text}" is not TOOL or TOOL:GLOB (for example write_file:src/**)`);
  const [, tool, glob] = match;
  if (!knownTools.includes(tool!)) throw new Error(`rule "${text}" names unknown tool "${tool}"; tools are: ${knownTools.join(", ")}`);
  if (!glob) return { text: text.trim(), tool: tool!, glob: null };
  if (tool === RUN_COMMAND) return { ...commandRule(glob), text: text.trim() };
  return { text: text.trim(), tool: tool!, glob: new Bun.Glob(glob) };
}

function parseMcpRule(text: string, servers: readonly string[]): Rule {
  const match = MCP_RULE.exec(text);
  if (!match) {
    throw new Error(`rule "${text}" is not mcp__SERVER__TOOL or mcp__SERVER__*; a rule for every server's tools at once is not allowed, name the server`);
  }
  if (!servers.includes(match[1]!)) throw new Error(`rule "${text}" names unknown MCP server "${match[1]}"; servers are: ${servers.join(", ") || "none configured"}`);
  return { text, tool: text, glob: null };
}

export function ruleMatches(rule: Rule, tool: string, target: string | undefined): boolean {
  if (rule.tool.endsWith("__*") ? !tool.startsWith(rule.tool.slice(0, -1)) : rule.tool !== tool) return false;
  if (!rule.glob) return true;
  return target !== undefined && rule.glob.match(target);
}

/**
 * `readOnly`: the allow is a read-only rule, so what it allows runs with the workspace read-only.
 * An ask may say `why`: a read-only rule matched, but nothing here can make the workspace read-only.
 */
export type PolicyVerdict = { verdict: "deny"; rule: string } | { verdict: "allow"; rule: string; readOnly: boolean } | { verdict: "ask"; why?: string };

/** The status line's word for it: git status/diff/log/show ask with no sandbox, since nothing can hold the workspace read-only for them. */
export const READ_ONLY_ASKS = "git status/diff/log/show ask (no read-only sandbox)";

/** Why a read-only rule asks instead: said in the approval and on the status line. */
export const READ_ONLY_UNENFORCED = "no sandbox runs here, so read-only rules (the built-in git ones too) ask instead of allowing";

export class Policy {
  private readonly allow: Rule[];
  private readonly deny: Rule[];

  /**
   * The built-in command rules come after the person's own: their denials beat every allow, their
   * allows lose to every denial. `readOnlyEnforced` false (no sandbox can run): a read-only rule
   * cannot keep its promise, so what it would allow is asked.
   */
  constructor(allow: Rule[] = [], deny: Rule[] = [], private readonly readOnlyEnforced = true) {
    this.allow = [...allow, ...BUILT_IN_ALLOW];
    this.deny = [...deny, ...BUILT_IN_DENY];
  }

  decide(tool: string, target: string | readonly string[] | undefined): PolicyVerdict {
    const targets = typeof target === "object" ? target : [target];
    const denied = this.deny.find((rule) => targets.some((one) => ruleMatches(rule, tool, one)));
    if (denied) return { verdict: "deny", rule: denied.text };
    const allowed = this.allow.filter((rule) => targets.every((one) => ruleMatches(rule, tool, one)));
    // A rule that writes freely beats a read-only one: the person said more.
    const chosen = allowed.find((rule) => !rule.readOnly) ?? allowed[0];
    if (!chosen) return { verdict: "ask" };
    if (chosen.readOnly && !this.readOnlyEnforced) return { verdict: "ask", why: `${chosen.text} matches, but ${READ_ONLY_UNENFORCED}` };
    return { verdict: "allow", rule: chosen.text, readOnly: chosen.readOnly === true };
  }

  /** "Always" from a person: the rule holds for the rest of the session. */
  allowForSession(rule: Rule): void {
    this.allow.push(rule);
  }
}
