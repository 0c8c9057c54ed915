import { type ResourceLimits, Worker } from "node:worker_threads";

/**
 * Starts a worker thread running the module at `url`, which may be TypeScript. The service runs its
 * sources through tsx, but Node 20 does not carry the loader hooks of `--import tsx` into worker
 * threads, so a .ts module is loaded by a small bootstrap that registers tsx in the worker first.
 */
export function startWorker(url: URL, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const limits = resourceLimits ? { resourceLimits } : {};
  if (!url.pathname.endsWith(".ts")) return new Worker(url, { workerData, ...limits });
  const bootstrap = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData, ...limits });
}
