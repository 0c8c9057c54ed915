import { readdirSync, readFileSync } from "node:fs";

/**
 * The markdown tables of the repository's docs, read as the docs tests compare them with the code:
 * each with its file, header cells (lowercased) and body rows, cells split on unescaped pipes.
 */
export interface DocTable {
  file: string;
  header: string[];
  rows: string[][];
}

const root = new URL("../../", import.meta.url);

/** The README, every page of docs/ and the READMEs beside the code. */
export function docFiles(): string[] {
  const docs = readdirSync(new URL("docs/", root))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs, "deploy/local/README.md", "topics/README.md", "schemas/README.md"];
}

export const readDoc = (file: string) => readFileSync(new URL(file, root), "utf8");

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replaceAll("\\|", "|"));

export function tablesOf(file: string, text: string): DocTable[] {
  const tables: DocTable[] = [];
  const lines = text.split("\n");
  for (let i = 0; i + 1 < lines.length; i++) {
    const [head, rule] = [lines[i] ?? "", lines[i + 1] ?? ""];
    if (!head.startsWith("|") || !/^\|\s*:?-{3,}/.test(rule)) continue;
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j]?.startsWith("|"); j++) rows.push(cells(lines[j] ?? ""));
    tables.push({ file, header: cells(head).map((c) => c.toLowerCase()), rows });
    i = j;
  }
  return tables;
}

export const allTables = (): DocTable[] => docFiles().flatMap((f) => tablesOf(f, readDoc(f)));

/** A method word, a backticked path, or both in one span. */
const METHODS =
  /\b(GET|POST|PUT|DELETE|PATCH) (\/[^`\s,;)']*)|\b(GET|POST|PUT|DELETE|PATCH)\b|`(\/[^`\s]+)`/g;

/** "POST /v1/x/{id}" for each route a row names: a method then one or more backticked paths. */
export function routesIn(text: string): string[] {
  const found: string[] = [];
  let method: string | undefined;
  for (const m of text.matchAll(METHODS)) {
    const path = m[2] ?? m[4];
    method = m[1] ?? m[3] ?? method;
    if (path === undefined || method === undefined) continue;
    const bare = path.replace(/[?[].*$/, "").replace(/:([a-z_]+)/g, "{$1}");
    found.push(`${method} ${bare}`);
  }
  return found;
}

/** A setting's name in a table cell: `NAME`, a family `NAME_*`, or a CHAINS field `CHAINS[].relayer`. */
export const SETTING_NAME = /`([A-Z][A-Z0-9_]*(?:_\*)?)(?:\[\][.\w]*)?`/g;

/** The literal defaults of a row, one per name, or null where the cell says something else. */
export function literalDefaults(cell: string, count: number): string[] | null {
  const parts = cell.split(/\s*(?:,|\/)\s*/);
  if (parts.length !== count) return null;
  const values = parts.map((p) => /^`([^`]+)`$/.exec(p)?.[1] ?? /^(\d+)(?: \(.*\))?$/.exec(p)?.[1] ?? null);
  return values.every((v) => v !== null) ? (values as string[]) : null;
}

/** "merchant roll --id --type": a command's words and its flags, sorted, from a usage or a table. */
export function commandKeys(spelling: string): string[] {
  const words: string[] = [];
  for (const token of spelling.replace(/[[\]]/g, " ").split(/\s+/)) {
    if (token === "" || token.startsWith("--") || /^[A-Z<]/.test(token)) break;
    words.push(token);
  }
  const flags = [...spelling.matchAll(/--[a-z]+/g)].map((m) => m[0]).sort();
  const last = words.pop() ?? "";
  return last.split("|").map((w) => [...words, w, ...flags].join(" "));
}

/** The commands of a usage text: each line's part before the two spaces that start its description. */
export function usageCommands(usage: string): string[] {
  return usage
    .split("\n")
    .filter((line) => /^ {0,4}[a-z]/.test(line) && !line.startsWith("usage"))
    .flatMap(
      (line) =>
        line
          .trim()
          .split(/\s{2,}/)[0]
          ?.split(" | ") ?? [],
    )
    .flatMap(commandKeys);
}
