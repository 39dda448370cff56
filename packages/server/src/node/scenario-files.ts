// Scenario files on disk for the CLI and Node users: read one (JSON or JSON Lines; a clear message for a
// missing file, bad JSON or a format mistake) and append recordings one line per turn as each turn ends
// (nothing kept in memory; a crash leaves every earlier turn readable).
import { open, readFile, type FileHandle } from 'node:fs/promises';
import type { RecordedScenario } from '../models/recording.js';
import { ScenarioFileError, scenarioFileFromText } from '../models/scenario-file.js';
import { ScenarioProvider } from '../models/scenarios.js';

/** Reads a scenario file (JSON, or JSON Lines as `--record` writes) into a `ScenarioProvider`; a `ScenarioFileError` names the mistake. */
export async function readScenarioFile(path: string): Promise<ScenarioProvider> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScenarioFileError(`Cannot read the scenario file ${path}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = scenarioFileFromText(text);
  } catch (error) {
    throw new ScenarioFileError(`The scenario file ${path} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  try {
    return new ScenarioProvider(parsed);
  } catch (error) {
    throw new ScenarioFileError(`${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** What `ScenarioRecorder` appends through, and how to let the file go. */
export interface ScenarioRecordWriter {
  (scenario: RecordedScenario): Promise<void>;
  /** Waits for the writes under way and closes the file. */
  close(): Promise<void>;
}

/**
 * An `append` for `ScenarioRecorder` that adds each recorded turn to `path` as one JSON line, in order, as
 * it ends (`--scenarios` reads the file back). An existing recording is continued; a last line a crash cut
 * short is dropped first, so the file stays one scenario per line.
 */
export function scenarioRecordWriter(path: string): ScenarioRecordWriter {
  let file: Promise<FileHandle> | undefined;
  let writes = Promise.resolve();
  const append = ((scenario: RecordedScenario) => {
    const line = `${JSON.stringify(scenario)}\n`;
    file ??= openForAppend(path);
    // One write at a time, in order: two turns ending together never interleave their lines.
    const write = writes.then(async () => {
      await (await file!).appendFile(line);
    });
    writes = write.catch(() => {});
    return write;
  }) as ScenarioRecordWriter;
  append.close = async () => {
    await writes;
    if (file) await (await file).close();
    file = undefined;
  };
  return append;
}

/** Opens `path` for appending, first cutting a last line that has no line break (a write a crash interrupted). */
async function openForAppend(path: string): Promise<FileHandle> {
  const handle = await open(path, 'a+');
  const { size } = await handle.stat();
  if (size === 0) return handle;
  // Find the last line break from the end, a block at a time.
  const block = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - block.length);
    const { bytesRead } = await handle.read(block, 0, end - start, start);
    const at = block.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (at >= 0) {
      end = start + at + 1;
      break;
    }
    end = start;
  }
  if (end < size) await handle.truncate(end);
  return handle;
}
