import { createServer } from "node:net";

/**
 * A port free now on 127.0.0.1 (and `also(port)` too, when given: a server that takes two). Free now
 * only: whoever binds it next must still cope with losing it to another process in between.
 */
export async function freePort(also?: (port: number) => number): Promise<number> {
  for (;;) {
    const port = await listenOnce(0);
    if (also === undefined) return port;
    if ((await listenOnce(also(port)).catch(() => null)) !== null) return port;
  }
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address ? address.port : port));
    });
  });
}
