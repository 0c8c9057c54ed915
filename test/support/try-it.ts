/** The command lines of the README's "Try it" block, comments and blank lines dropped. */
export function tryItCommands(readme: string): string[] {
  const section = readme.split(/^## Try it$/m)[1]?.split(/^## /m)[0] ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}
