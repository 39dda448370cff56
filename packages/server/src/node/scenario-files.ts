// Scenario files on disk for the CLI and Node users: read one (a clear message for a missing file, bad
// JSON or a format mistake) and write recordings atomically (a temporary file renamed over the old one,
// so a crash never leaves half a file).
import { readFile, rename, writeFile } from 'node:fs/promises';
import { ScenarioFileError, ScenarioProvider, type ScenarioFile } from '../models/scenarios.js';

export async function readScenarioFile(path: string): Promise<ScenarioProvider> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScenarioFileError(`Cannot read the scenario file ${path}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ScenarioFileError(`The scenario file ${path} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  try {
    return new ScenarioProvider(parsed);
  } catch (error) {
    throw new ScenarioFileError(`${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** A `save` for `ScenarioRecorder` that rewrites `path` atomically after every turn. */
export function scenarioFileWriter(path: string): (file: ScenarioFile) => Promise<void> {
  let writes = Promise.resolve();
  return (file) => {
    const text = `${JSON.stringify(file, null, 2)}\n`;
    // One write at a time, in order: concurrent turns never interleave their renames.
    writes = writes.then(async () => {
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, text);
      await rename(temporary, path);
    });
    return writes;
  };
}
