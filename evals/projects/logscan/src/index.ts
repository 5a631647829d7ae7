export { parseLine, parseLog, type Entry } from "./parse.ts";
export { countByLevel } from "./count.ts";
export { errors, since } from "./filter.ts";
