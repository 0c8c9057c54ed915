import { readdirSync, readFileSync } from "node:fs";
import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import { PodMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor";
import { PrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule";
import { Ajv, type ValidateFunction } from "ajv";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { Job } from "kubernetes-models/batch/v1/Job";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";

/**
 * Offline schema checks of the manifests in deploy/kubernetes: core objects, KEDA and the
 * Prometheus Operator through their kubernetes-models classes; Strimzi and K8ssandra, which have
 * no model package, against their CRDs' openAPIV3Schema vendored in deploy/kubernetes/crds/.
 */

export interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: unknown;
  data?: Record<string, string>;
}

type Validate = (doc: Resource) => void;

/** A model class's own validate(): throws a ValidationError naming the path of each problem. */
const model =
  (Model: new (data: never) => { validate(): void }): Validate =>
  (doc) =>
    new Model(doc as never).validate();

const MODELS: Record<string, Validate> = {
  "v1/ConfigMap": model(ConfigMap),
  "v1/Secret": model(Secret),
  "v1/Service": model(Service),
  "apps/v1/Deployment": model(Deployment),
  "batch/v1/Job": model(Job),
  "policy/v1/PodDisruptionBudget": model(PodDisruptionBudget),
  "autoscaling/v2/HorizontalPodAutoscaler": model(HorizontalPodAutoscaler),
  "keda.sh/v1alpha1/ScaledObject": model(ScaledObject),
  "monitoring.coreos.com/v1/PodMonitor": model(PodMonitor),
  "monitoring.coreos.com/v1/PrometheusRule": model(PrometheusRule),
};

export const CRD_DIR = new URL("../../deploy/kubernetes/crds/", import.meta.url);

interface VendoredCrd {
  source: string;
  group: string;
  version: string;
  kind: string;
  openAPIV3Schema: Record<string, unknown>;
}

/**
 * Unknown fields refused, as `kubectl apply --validate=strict` does: an object schema that lists
 * its properties, without additionalProperties or x-kubernetes-preserve-unknown-fields, takes no
 * other key (the API server would drop a misspelt field without a word).
 */
export function strictSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // Under `properties` the keys are field names, not keywords: keep them, make each value strict.
    out[key] =
      key === "properties"
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, strictSchema(v)]))
        : strictSchema(value);
  }
  const open = "additionalProperties" in out || out["x-kubernetes-preserve-unknown-fields"] === true;
  if ("properties" in out && !open) out.additionalProperties = false;
  return out;
}

/** Keywords whose value is data, not a schema: left as they are. */
const DATA_KEYWORDS = new Set(["default", "enum", "example", "required"]);

/**
 * The same schema with every repeated subtree (the CRDs repeat pod templates, volumes, probes many
 * times) moved to `definitions` once and referred to: Ajv then compiles each once, which takes the
 * K8ssandraCluster schema from ~8 s to ~1 s. The meaning is unchanged.
 */
export function sharedSubtrees(schema: unknown): Record<string, unknown> {
  const seen = new Map<string, number>();
  const count = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    const text = JSON.stringify(node);
    // Small subtrees cost less to compile inline than to call.
    if (!Array.isArray(node) && text.length > 300) seen.set(text, (seen.get(text) ?? 0) + 1);
    for (const [key, value] of Object.entries(node)) if (!DATA_KEYWORDS.has(key)) count(value);
  };
  count(schema);
  const definitions: Record<string, unknown> = {};
  const ids = new Map<string, string>();
  const rewrite = (node: unknown, root: boolean): unknown => {
    if (node === null || typeof node !== "object") return node;
    if (Array.isArray(node)) return node.map((n) => rewrite(n, false));
    const text = JSON.stringify(node);
    if (!root && (seen.get(text) ?? 0) > 1) {
      let id = ids.get(text);
      if (id === undefined) {
        id = `s${ids.size}`;
        ids.set(text, id);
        definitions[id] = rewrite(node, true);
      }
      return { $ref: `#/definitions/${id}` };
    }
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [
        key,
        DATA_KEYWORDS.has(key)
          ? value
          : key === "properties"
            ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, rewrite(v, false)]))
            : rewrite(value, false),
      ]),
    );
  };
  return { ...(rewrite(schema, true) as object), definitions };
}

function crdValidators(): Record<string, Validate> {
  // x-kubernetes-* keywords and formats such as int32 are Kubernetes', not JSON Schema's: ignored.
  // CEL rules (x-kubernetes-validations) are not evaluated here. Unoptimised code compiles in half
  // the time, and these schemas validate a few documents.
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, code: { optimize: false } });
  const out: Record<string, Validate> = {};
  for (const file of readdirSync(CRD_DIR).filter((f) => f.endsWith(".json"))) {
    const crd = JSON.parse(readFileSync(new URL(file, CRD_DIR), "utf8")) as VendoredCrd;
    const check: ValidateFunction = ajv.compile(sharedSubtrees(strictSchema(crd.openAPIV3Schema)));
    out[`${crd.group}/${crd.version}/${crd.kind}`] = (doc) => {
      if (!check(doc))
        throw new Error(
          (check.errors ?? [])
            .map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`)
            .join("; "),
        );
    };
  }
  return out;
}

let validators: Record<string, Validate> | undefined;

/** Throws unless `doc` is valid for its kind; a kind with no schema here is an error too. */
export function validateResource(doc: Resource): void {
  validators ??= { ...MODELS, ...crdValidators() };
  const key = `${doc.apiVersion}/${doc.kind}`;
  const validate = validators[key];
  if (!validate) throw new Error(`no schema for ${key} (${doc.metadata?.name}): add its model or CRD`);
  // The API server's base64 decoding skips line breaks (kustomize wraps long values); the model's
  // "byte" format does not.
  if (doc.kind === "Secret" && doc.data)
    doc = {
      ...doc,
      data: Object.fromEntries(Object.entries(doc.data).map(([k, v]) => [k, v.replace(/\s/g, "")])),
    };
  validate(doc);
}

/** The kinds with a schema here (the test's account of what it can check). */
export function knownKinds(): string[] {
  validators ??= { ...MODELS, ...crdValidators() };
  return Object.keys(validators);
}
