// Command-line parsing for the package's CLI: one declared table of options (a new flag is one entry), with
// --help and --version added, environment fallbacks, and usage errors printed as one line instead of a stack trace.
// The server package keeps the same small module: the two packages share no runtime dependency to hold it.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

export interface CommandLineOption {
  type: 'string' | 'boolean';
  /** Repeatable flag; its environment variable is read as a comma-separated list. */
  multiple?: boolean;
  /** Placeholder shown in the help, e.g. `N` or `URL`. */
  placeholder?: string;
  /** Environment variable read when the flag is absent (string options only). */
  env?: string;
  description: string;
}

export interface CommandLine<Options extends Record<string, CommandLineOption>> {
  /** The bin name, used as the prefix of every message. */
  name: string;
  /** `package.json` of the package, read for --version (a URL relative to the calling module). */
  packageJson: URL;
  summary: string;
  options: Options;
}

export type CommandLineValues<Options extends Record<string, CommandLineOption>> = {
  [K in keyof Options]: Options[K]['type'] extends 'boolean'
    ? boolean
    : Options[K]['multiple'] extends true
      ? string[]
      : string | undefined;
};

/** Thrown for a usage mistake; the CLI prints its message and exits with status 2. */
export class UsageError extends Error {}

/**
 * Parses `argv` against the declared options. Prints the help or the version and exits 0 when asked; prints
 * `<name>: <problem> (see --help)` and exits 2 for an unknown flag or a missing value.
 */
export function parseCommandLine<Options extends Record<string, CommandLineOption>>(
  command: CommandLine<Options>,
  argv: string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): CommandLineValues<Options> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(
          Object.entries(command.options).map(([flag, o]) => [flag, { type: o.type, multiple: o.multiple === true }]),
        ),
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) throw error;
    exitWithUsageError(command.name, describeParseError(error as Error & { code: string }));
  }
  const flags = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (flags.help) {
    console.log(formatHelp(command));
    process.exit(0);
  }
  if (flags.version) {
    console.log(JSON.parse(readFileSync(command.packageJson, 'utf8')).version);
    process.exit(0);
  }
  const values: Record<string, unknown> = {};
  for (const [flag, option] of Object.entries(command.options)) {
    const fromEnv = option.env ? env[option.env] : undefined;
    if (option.type === 'boolean') values[flag] = flags[flag] === true;
    else if (option.multiple)
      values[flag] = [
        ...((flags[flag] as string[] | undefined) ?? []),
        ...(fromEnv ?? '')
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      ];
    else values[flag] = (flags[flag] as string | undefined) ?? (fromEnv || undefined);
  }
  return values as CommandLineValues<Options>;
}

/** Prints `<name>: <message> (see --help)` to stderr and exits 2. */
export function exitWithUsageError(name: string, message: string): never {
  console.error(`${name}: ${message} (see ${name} --help)`);
  process.exit(2);
}

function describeParseError(error: Error & { code: string }): string {
  const flag = /'(-[^' ]+)/.exec(error.message)?.[1];
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${flag}`;
  if (error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `unexpected argument ${/'([^']*)'/.exec(error.message)?.[1]}`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return `option ${flag} ${error.message.includes('argument missing') ? 'needs a value' : 'takes no value'}`;
  return error.message;
}

function formatHelp(command: CommandLine<Record<string, CommandLineOption>>): string {
  const rows = Object.entries(command.options).map(([flag, o]) => [
    `--${flag}${o.type === 'string' ? ` ${o.placeholder ?? 'VALUE'}` : ''}`,
    `${o.description}${o.multiple ? ' (repeatable)' : ''}${o.env ? ` [env ${o.env}]` : ''}`,
  ]);
  rows.push(['--version', 'print the version'], ['-h, --help', 'print this help']);
  const width = Math.max(...rows.map(([left]) => left!.length));
  return [
    `usage: ${command.name} [options]`,
    command.summary,
    '',
    ...rows.map(([left, right]) => `  ${left!.padEnd(width)}  ${right}`),
  ].join('\n');
}
