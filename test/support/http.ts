/** A response body as tests read it: shape is checked by the assertions that use it. */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field where read
export type Body = any;

export const json = async (res: Response): Promise<Body> => res.json();
