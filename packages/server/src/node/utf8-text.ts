import { isAscii } from 'node:buffer';

/**
 * UTF-8 bytes as text. ASCII (most JSON bodies) is copied as Latin-1, which is the same string: Node 20's
 * UTF-8 decoding of 1 MiB costs about as much as `JSON.parse` of it, the ASCII check and copy a quarter.
 */
export function utf8Text(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}
