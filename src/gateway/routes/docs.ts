import type { SwaggerOptions } from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { type FastifyPluginAsyncZod, jsonSchemaTransform } from "fastify-type-provider-zod";

/**
 * Options for @fastify/swagger, registered at the root (before any route) so it sees every route.
 * The document is generated from the routes' zod schemas (the docs UI's routes hide themselves).
 */
export const openApiOptions: SwaggerOptions = {
  openapi: {
    openapi: "3.1.0",
    info: {
      title: "Deposit settlement gateway",
      description: 'Anonymous session surface. Every error body is { "error": string }; see docs/API.md.',
      version: "0.1.0",
    },
  },
  transform: jsonSchemaTransform,
};

/** GET /openapi.json (the document) and the interactive docs page under /docs. */
export const docsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: "/docs" });
};
