import type { FastifyInstance } from "fastify";

/**
 * The logo URLs a local provider's answers name (`/logos/<symbol>.svg`): a badge with the symbol in
 * the provider's colour, so a wallet UI has something to show.
 */
export function serveLogos(app: FastifyInstance, colour: string): void {
  app.get<{ Params: { symbol: string } }>("/logos/:symbol.svg", async (req, reply) => {
    const text = req.params.symbol.replace(/[^A-Za-z0-9]/g, "").slice(0, 5);
    return reply
      .type("image/svg+xml")
      .send(
        `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle cx="32" cy="32" r="32" fill="${colour}"/><text x="32" y="38" font-size="14" text-anchor="middle" fill="#fff">${text}</text></svg>`,
      );
  });
}
