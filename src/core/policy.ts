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

export function parseRule(text: string, knownTools: readonly string[]): Rule {
  const match = RULE.exec(text.trim());
  if (!match) throw new Error(`rule "${text}" is not TOOL or TOOL:GLOB (for example write_file:src/**)`);
  const [, tool, glob] = match;
  if (!knownTools.includes(tool!)) throw new Error(`rule "${text}" names unknown tool "${tool}"; tools are: ${knownTools.join(", ")}`);
  return { text: text.trim(), tool: tool!, glob: glob ? new Bun.Glob(glob) : null };
}

export function ruleMatches(rule: Rule, tool: string, target: string | undefined): boolean {
  if (rule.tool !== tool) return false;
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
