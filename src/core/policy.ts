/**
 * Approval rules as data: `TOOL` or `TOOL:GLOB`, the glob matched against the call's target
 * (its path argument, or the check's name). Deny beats allow.
 */
export interface Rule {
  text: string;
  tool: string;
  glob: Bun.Glob | null;
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
  return { text: text.trim(), tool: tool!, glob: glob ? new Bun.Glob(glob) : null };
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

export type PolicyVerdict = { verdict: "deny" | "allow"; rule: string } | { verdict: "ask" };

export class Policy {
  constructor(
    private readonly allow: Rule[] = [],
    private readonly deny: Rule[] = [],
  ) {}

  decide(tool: string, target: string | undefined): PolicyVerdict {
    const denied = this.deny.find((rule) => ruleMatches(rule, tool, target));
    if (denied) return { verdict: "deny", rule: denied.text };
    const allowed = this.allow.find((rule) => ruleMatches(rule, tool, target));
    if (allowed) return { verdict: "allow", rule: allowed.text };
    return { verdict: "ask" };
  }

  /** "Always" from a person: the rule holds for the rest of the session. */
  allowForSession(rule: Rule): void {
    this.allow.push(rule);
  }
}
