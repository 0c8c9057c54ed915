import { singleObjectCodecs } from "../../src/kafka/codecs.ts";

/** The record codecs over schemas/, built once per test file as a process builds them at start. */
export const codecs = singleObjectCodecs();
