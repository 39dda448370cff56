// `openresponses-server usage`: the operator reads a running server's usage report (GET /v1/usage with the admin
// key) as a table per UTC day, tenant and model, or as the endpoint's JSON. The answer comes from outside this
// process: it is read within a time and byte bound, validated, and its names are printed without control
// characters (a model name is whatever a client sent).
import { Command, Option } from 'commander';
import * as z from 'zod/v4';
import { redactSecretShapes } from '../redaction.js';
import { readLimited } from '../service/fetch-adapter.js';
import { parser, SECRET_VALUE } from './cli-values.js';

const NAME = 'openresponses-server usage';
/** The largest report read (a year of a thousand tenants' models fits); past it, ask for fewer days or tenants. */
const MAX_REPORT_BYTES = 64 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

const count = z.number().int().nonnegative();
const UsageReport = z.object({
  object: z.literal('list'),
  from: z.string(),
  to: z.string(),
  data: z.array(
    z.object({
      tenant: z.string(),
      model: z.string(),
      day: z.string(),
      requests: count,
      input_tokens: count,
      input_cached_tokens: count,
      output_tokens: count,
      output_reasoning_tokens: count,
      cost: z.number().nonnegative().optional(),
    }),
  ),
});
const ErrorAnswer = z.object({ error: z.object({ message: z.string() }) });

/** What the command writes to (the process's stdout and stderr by default). */
export interface UsageCommandOutput {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Runs `openresponses-server usage [options]` on `args` (the arguments after `usage`); answers the exit code:
 * 0 printed, 1 the server or the network failed, 2 a bad flag.
 */
export async function runUsageCommand(
  args: readonly string[],
  output: UsageCommandOutput = {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  },
): Promise<number> {
  const day = parser('a UTC day as YYYY-MM-DD', (text) =>
    /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text)) ? text : undefined,
  );
  let exitCode: number | undefined;
  const program = new Command(NAME)
    .description("Prints a running server's usage per UTC day, tenant and model (GET /v1/usage with the admin key).")
    .helpOption('-h, --help', 'print this help')
    .configureOutput({
      writeOut: output.out,
      writeErr: output.err,
      outputError: (text, write) =>
        write(
          `${NAME}: ${redactSecretShapes(text.replace(/^error: /, '').replace(SECRET_VALUE, "$1'…'"))
            .trim()
            .replace(/\s*\n\s*/g, ' ')} (see ${NAME} --help)\n`,
        ),
    })
    .exitOverride((error) => {
      exitCode = error.exitCode === 0 ? 0 : 2;
      throw error;
    })
    .addOption(new Option('--url <URL>', 'the server').env('OPENRESPONSES_SERVER_URL').default('http://127.0.0.1:8080'))
    .addOption(
      new Option('--admin-key <KEY>', "the server's --admin-key").env('OPENRESPONSES_ADMIN_KEY').makeOptionMandatory(),
    )
    .addOption(new Option('--from <DAY>', 'first UTC day, YYYY-MM-DD (default today)').argParser(day))
    .addOption(new Option('--to <DAY>', 'last UTC day, YYYY-MM-DD (default --from)').argParser(day))
    .addOption(
      new Option(
        '--tenant <NAME>',
        'a tenant to report, repeatable (default every tenant of the tenants file)',
      ).argParser((name: string, previous: string[] = []) => [...previous, name]),
    )
    .addOption(new Option('--json', "print the endpoint's JSON instead of a table"));
  try {
    program.parse(args, { from: 'user' });
  } catch (error) {
    if (exitCode !== undefined) return exitCode;
    throw error;
  }
  const options = program.opts<{
    url: string;
    adminKey: string;
    from?: string;
    to?: string;
    tenant?: string[];
    json?: boolean;
  }>();
  const fail = (message: string) => {
    output.err(`${NAME}: ${redactSecretShapes(message).replace(/\s*\n\s*/g, ' ')}\n`);
    return 1;
  };
  const usageError = (message: string) => {
    output.err(`${NAME}: ${message} (see ${NAME} --help)\n`);
    return 2;
  };
  if (options.adminKey.trim() === '') return usageError('--admin-key (OPENRESPONSES_ADMIN_KEY) is empty.');
  if (!URL.canParse(options.url) || !/^https?:$/.test(new URL(options.url).protocol))
    return usageError('--url expects an http(s) URL.');
  const endpoint = new URL('v1/usage', options.url.endsWith('/') ? options.url : `${options.url}/`);
  if (options.from) endpoint.searchParams.set('from', options.from);
  if (options.to) endpoint.searchParams.set('to', options.to);
  for (const tenant of options.tenant ?? []) endpoint.searchParams.append('tenant', tenant);
  const where = `${endpoint.origin}${endpoint.pathname}`;

  let answer: Response;
  try {
    answer = await fetch(endpoint, {
      headers: { authorization: `Bearer ${options.adminKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    return fail(`cannot reach ${where}: ${cause}`);
  }
  let text: string | null;
  try {
    text = await readLimited(answer, MAX_REPORT_BYTES);
  } catch (error) {
    return fail(`${where} broke off its answer: ${(error as Error).message}`);
  }
  if (text === null)
    return fail(
      `the report of ${where} is larger than ${MAX_REPORT_BYTES / 1024 / 1024} MiB: ask for fewer days or tenants`,
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!answer.ok) {
    const message = ErrorAnswer.safeParse(body).data?.error.message ?? 'no error object';
    const hint =
      answer.status === 401 || answer.status === 404
        ? ' (is the server started with --admin-key, and is this its key?)'
        : '';
    return fail(`${where} answered ${answer.status}: ${printable(message).slice(0, 300)}${hint}`);
  }
  const report = UsageReport.safeParse(body);
  if (!report.success) return fail(`${where} did not answer a usage report: ${z.prettifyError(report.error)}`);
  if (options.json) output.out(`${JSON.stringify(body, null, 2)}\n`);
  else output.out(usageTable(report.data));
  return 0;
}

/** The report as aligned columns, with a total line. */
function usageTable(report: z.infer<typeof UsageReport>): string {
  const priced = report.data.some((row) => row.cost !== undefined);
  const header = [
    'day',
    'tenant',
    'model',
    'requests',
    'input',
    'cached',
    'output',
    'reasoning',
    ...(priced ? ['cost'] : []),
  ];
  const total = { requests: 0, input: 0, cached: 0, output: 0, reasoning: 0, cost: 0 };
  const lines = report.data.map((row) => {
    total.requests += row.requests;
    total.input += row.input_tokens;
    total.cached += row.input_cached_tokens;
    total.output += row.output_tokens;
    total.reasoning += row.output_reasoning_tokens;
    total.cost += row.cost ?? 0;
    return [
      printable(row.day),
      printable(row.tenant),
      printable(row.model),
      String(row.requests),
      String(row.input_tokens),
      String(row.input_cached_tokens),
      String(row.output_tokens),
      String(row.output_reasoning_tokens),
      ...(priced ? [row.cost === undefined ? '-' : row.cost.toFixed(4)] : []),
    ];
  });
  const sum = [
    'total',
    '',
    '',
    String(total.requests),
    String(total.input),
    String(total.cached),
    String(total.output),
    String(total.reasoning),
    ...(priced ? [total.cost.toFixed(4)] : []),
  ];
  const rows = [header, ...lines, sum];
  const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  // Names left-aligned, numbers right-aligned.
  const format = (row: string[]) =>
    row
      .map((cell, column) => (column < 3 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return `Usage ${report.from} to ${report.to} (UTC days)\n${rows.map(format).join('\n')}\n`;
}

/** A name as a terminal shows it safely: control characters (escape sequences) become '?', at most 200 characters. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 200);
}
