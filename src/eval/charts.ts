import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

/** The pass-rate bars' colour: the report test finds the bars in a screenshot by it. */
export const PASS_BAR_COLOUR = "#4c78a8";
export const TOKENS_BAR_COLOUR = "#f58518";
export const SECONDS_BAR_COLOUR = "#54a24b";

export interface ArmSummary {
  arm: string;
  rate: number;
  low: number;
  high: number;
  tokens: number;
  seconds: number;
}

/**
 * Charts as SVG text, drawn by vega-lite compiled to vega and vega's headless SVG renderer: no
 * browser, no canvas, no network, so the report is one file that opens anywhere.
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Pass rate per arm, one bar each, with its 95% Wilson interval as a whisker. */
export function passRateSpec(arms: ArmSummary[]): TopLevelSpec {
  const x = { field: "arm", type: "nominal", sort: null, title: null, axis: { labelAngle: -30 } } as const;
  return {
    width: Math.max(160, arms.length * 70),
    height: 220,
    title: "Pass rate per arm (95% Wilson interval)",
    data: { values: arms },
    layer: [
      { mark: { type: "bar", color: PASS_BAR_COLOUR }, encoding: { x, y: { field: "rate", type: "quantitative", title: "pass rate", scale: { domain: [0, 1] }, axis: { format: "%" } } } },
      { mark: { type: "rule", color: "#222", strokeWidth: 1.5 }, encoding: { x, y: { field: "low", type: "quantitative" }, y2: { field: "high" } } },
    ],
  } as TopLevelSpec;
}

/** One number per arm as bars (mean tokens, mean seconds per run). */
export function costSpec(arms: ArmSummary[], field: "tokens" | "seconds", title: string, colour: string): TopLevelSpec {
  return {
    width: Math.max(160, arms.length * 50),
    height: 160,
    title,
    data: { values: arms },
    mark: { type: "bar", color: colour },
    encoding: {
      x: { field: "arm", type: "nominal", sort: null, title: null, axis: { labelAngle: -30 } },
      y: { field, type: "quantitative", title: null },
    },
  } as TopLevelSpec;
}
