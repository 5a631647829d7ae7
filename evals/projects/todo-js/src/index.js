export { parseLine, parseList } from "./parse.js";
export { formatItem } from "./format.js";
export { pending, byPriority } from "./list.js";
