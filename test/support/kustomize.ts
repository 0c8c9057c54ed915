import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { Resource } from "./kubernetes-schemas.ts";

/**
 * `kubectl kustomize` for the manifest tests: whether it is here and new enough, and an overlay's
 * build as resources. The local overlay's Secret is generated from secrets.env, which is never
 * checked in: the build runs on a copy of deploy/kubernetes where it is the example file.
 */

/** The kustomize built into kubectl, or why it cannot build these overlays. */
export function kustomizeAvailable(): { ok: true; version: string } | { ok: false; reason: string } {
  const run = spawnSync("kubectl", ["version", "--client", "-o", "json"], { encoding: "utf8" });
  if (run.error) return { ok: false, reason: `kubectl not found (${run.error.message})` };
  const info = JSON.parse(run.stdout) as {
    kustomizeVersion?: string;
    clientVersion?: { gitVersion?: string };
  };
  const version = info.kustomizeVersion ?? "";
  // The overlays use `labels`, `replicas` and target patches: kustomize 4 or later (kubectl >= 1.21).
  const major = Number(/^v(\d+)\./.exec(version)?.[1] ?? 0);
  return major >= 4
    ? { ok: true, version }
    : {
        ok: false,
        reason: `kubectl ${info.clientVersion?.gitVersion ?? "?"} brings kustomize ${version || "v2 or none"}; these overlays need v4 or later`,
      };
}

/** Every document of a multi-document YAML text; a syntax error throws. */
export function parseResources(text: string, where: string): Resource[] {
  return parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${where}: ${doc.errors.map((e) => e.message).join("; ")}`);
    const value = doc.toJS() as Resource | null;
    return value === null ? [] : [value];
  });
}

export function buildOverlay(kubernetesDir: URL, overlay: string): Resource[] {
  const copy = mkdtempSync(join(tmpdir(), "kustomize-"));
  try {
    cpSync(kubernetesDir, copy, { recursive: true });
    const dir = join(copy, "overlays", overlay);
    const example = join(dir, "secrets.env.example");
    if (existsSync(example)) cpSync(example, join(dir, "secrets.env"));
    const run = spawnSync("kubectl", ["kustomize", dir], { encoding: "utf8" });
    if (run.status !== 0) throw new Error(`kubectl kustomize overlays/${overlay}: ${run.stderr}`);
    return parseResources(run.stdout, `overlays/${overlay}`);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
