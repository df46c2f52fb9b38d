/** A command's arguments: `--name value` options (each at most once, of those named) and the rest, in order. */
export function commandOptions(
  args: string[],
  names: readonly string[],
): { options: Partial<Record<string, string>>; positional: string[] } | string {
  const options: Partial<Record<string, string>> = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--') || arg === '-') {
      positional.push(arg);
      continue;
    }
    if (!names.includes(arg)) return `unknown option ${arg}`;
    if (arg in options) return `${arg} given twice`;
    if (i + 1 >= args.length) return `${arg} needs a value`;
    options[arg] = args[++i];
  }
  return { options, positional };
}
