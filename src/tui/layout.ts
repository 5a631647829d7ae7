export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface Layout {
  transcript: Rect;
  verdicts: Rect;
  /** null when the terminal is too narrow for the side column. */
  meters: Rect | null;
  /** The model's todo list. */
  plan: Rect | null;
  layers: Rect | null;
  input: Rect;
  status: Rect;
}

/** Below this width the side column does not fit; verdicts go under the transcript. */
export const NARROW_WIDTH = 90;
/** Borders (2) plus one line per meter. */
export const METERS_HEIGHT = 2 + 7;
/** Borders (2) plus room for a short plan. */
const PLAN_HEIGHT = 2 + 5;
const STATUS_HEIGHT = 1;

/**
 * Where each pane goes on a `width` × `height` screen. The transcript gets most of the room;
 * a side column holds the meters, the tool verdicts, the plan and the prompt layers. The input
 * takes `inputRows` rows of text.
 */
export function layout(width: number, height: number, layerCount = 1, inputRows = 1): Layout {
  // The input's borders and its rows of text (it grows with a message of several lines).
  const inputHeight = 2 + inputRows;
  const mainHeight = Math.max(3, height - inputHeight - STATUS_HEIGHT);
  const input = { left: 0, top: mainHeight, width, height: inputHeight };
  const status = { left: 0, top: mainHeight + inputHeight, width, height: STATUS_HEIGHT };
  if (width < NARROW_WIDTH) {
    const transcriptHeight = Math.max(3, Math.round(mainHeight * 0.65));
    return {
      transcript: { left: 0, top: 0, width, height: transcriptHeight },
      verdicts: { left: 0, top: transcriptHeight, width, height: Math.max(0, mainHeight - transcriptHeight) },
      meters: null,
      plan: null,
      layers: null,
      input,
      status,
    };
  }
  const side = Math.min(64, Math.max(36, Math.round(width * 0.38)));
  const left = width - side;
  const meters = { left, top: 0, width: side, height: Math.min(METERS_HEIGHT, mainHeight) };
  const below = Math.max(0, mainHeight - meters.height);
  const layersHeight = Math.min(2 + Math.max(1, layerCount), Math.floor(below / 4));
  const planHeight = Math.min(PLAN_HEIGHT, Math.floor(below / 4));
  const verdictsTop = meters.height;
  const verdictsHeight = Math.max(0, below - layersHeight - planHeight);
  return {
    transcript: { left: 0, top: 0, width: left, height: mainHeight },
    verdicts: { left, top: verdictsTop, width: side, height: verdictsHeight },
    meters,
    plan: { left, top: verdictsTop + verdictsHeight, width: side, height: planHeight },
    layers: { left, top: verdictsTop + verdictsHeight + planHeight, width: side, height: layersHeight },
    input,
    status,
  };
}
