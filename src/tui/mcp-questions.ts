import type { HubQuestions } from "../mcp/hub.ts";
import { isStdio } from "../mcp/config.ts";
import { describeHidden, showHidden } from "../prompt/hidden.ts";
import type { ApprovalModal } from "./approval-modal.ts";

/** What the TUI asks before a workspace server starts, and before a quarantined tool is offered. */
export function mcpQuestions(modal: ApprovalModal, workspaceRoot: string): HubQuestions {
  return {
    trust(entry, state) {
      const config = entry.config;
      const definition = isStdio(config)
        ? [`command: ${JSON.stringify(config.command)}`, `env: ${Object.keys(config.env).join(", ") || "(none)"}`, `env_pass: ${config.env_pass.join(", ") || "(none)"}`, `cwd: ${config.cwd ?? "(workspace)"}`]
        : [`url: ${config.url}`, `headers: ${Object.keys(config.headers).join(", ") || "(none)"}`];
      const why = state === "changed" ? "Its definition changed since you trusted it." : "Nobody trusted it in this workspace yet.";
      return modal.confirm(
        "trust an MCP server?",
        `Start the MCP server ${entry.name} defined in ${entry.file}? ${why}`,
        [...definition, `hash: ${entry.hash}`, "", `y trusts this exact definition for ${workspaceRoot} (glassbox mcp forget ${entry.name} undoes it)`],
        { yes: "trust and start it", no: "leave it stopped" },
      );
    },
    quarantine(tool, why, description) {
      const hidden = describeHidden(description);
      return modal.confirm("MCP tool changed", `Offer ${tool} to the model this session? ${why}`, [
        "description:",
        ...showHidden(description).split("\n"),
        ...(hidden ? ["", `warning: the description holds ${hidden}, shown as <U+…>`] : []),
      ], { yes: "offer it this session", no: "keep it withheld" });
    },
  };
}
