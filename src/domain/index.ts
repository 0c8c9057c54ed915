export * from "./commands.ts";
export * from "./decide.ts";
export * from "./events.ts";
export { detectedDeposit, evolve, evolveInPlace } from "./evolve.ts";
export * from "./rejections.ts";
export * from "./types.ts";
export * from "./view.ts";
