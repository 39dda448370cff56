/**
 * Opaque, server-issued payloads (reasoning `encrypted_content`, compaction windows): AES-256-GCM with a
 * random 96-bit IV, so that a client can round-trip them but neither read, forge nor alter them. The key id
 * travels in the clear so that rotated keys still open what they sealed. The owner (the tenant, one per API
 * key) and the purpose are authenticated data: another tenant's payload, or a compaction window replayed as
 * reasoning, does not open. Web Crypto only (Node, Deno, Bun, Workers).
 *
 * Format: `or3.<key id>.<base64url(iv ‖ ciphertext ‖ tag)>`, associated data `["or3", key id, purpose, owner]`.
 *
 * Payloads of the earlier format `or2` (sealed without their owner) are refused with a message saying so:
 * nothing in them tells whose they are, so accepting them would let any tenant replay another's. Only
 * servers with configured keys are affected (a generated key never outlives its process); a client sends
 * the conversation again without the old item.
 */
const VERSION = 'or3';
/** The format before owners were bound: recognised only to say why it is refused. */
const UNBOUND_VERSION = 'or2';
const encoder = new TextEncoder();

/** An AES-256 key: `id` names it inside sealed payloads; `key` is 32 bytes in base64 or base64url. */
export interface EncryptionKey {
  /** Names the key inside sealed payloads. */
  id: string;
  /** 32 bytes, in base64 or base64url. */
  key: string;
}

export type SealPurpose = 'reasoning' | 'compaction';

/** The owner of payloads sealed without one (a sealer used outside any tenant, e.g. directly in a test). */
export const NO_OWNER = '';

/**
 * Why a payload could not be opened: not ours at all, sealed with a key this server lacks, altered (or
 * another tenant's, or for another purpose: the cipher cannot tell these apart), or of the format before owners.
 */
export class UnsealError extends Error {
  override name = 'UnsealError';
  constructor(
    readonly reason: 'malformed' | 'unknown_key' | 'tampered' | 'unbound',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface Sealer {
  /** The id of the key new payloads are sealed with. */
  readonly keyId: string;
  /** Seals `payload` for `purpose` and `owner` (the tenant; see `sealerFor`). */
  seal(payload: unknown, purpose: SealPurpose, owner?: string): Promise<string>;
  /** The payload; throws UnsealError when the text is not one this server's keys sealed for `purpose` and `owner`. */
  open<T>(text: string, purpose: SealPurpose, owner?: string): Promise<T>;
}

/**
 * Seals with the first key and opens with any of them (older keys stay listed after a rotation). The keys are
 * checked at once and imported into Web Crypto on first use: constructing does no I/O (a Worker may build its
 * handler at module scope, where workerd allows none).
 */
export function createSealer(keys: readonly EncryptionKey[]): Sealer {
  if (keys.length === 0) throw new Error('createSealer needs at least one encryption key');
  const imported = new Map<string, () => Promise<CryptoKey>>();
  for (const { id, key } of keys) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id))
      throw new Error(`Encryption key id '${id}' must be 1-64 letters, digits, '-' or '_'.`);
    const bytes = fromBase64(key);
    if (bytes?.byteLength !== 32)
      throw new Error(
        `Encryption key '${id}' must be 32 bytes in base64 (AES-256), e.g. from generateEncryptionKey().`,
      );
    let cryptoKey: Promise<CryptoKey> | undefined;
    imported.set(id, () => {
      cryptoKey ??= crypto.subtle.importKey('raw', bytes, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
      return cryptoKey;
    });
  }
  const current = keys[0]!.id;
  // A JSON array, so no owner name can make two different (purpose, owner) pairs read alike.
  const additionalData = (keyId: string, purpose: SealPurpose, owner: string) =>
    encoder.encode(JSON.stringify([VERSION, keyId, purpose, owner]));
  return {
    keyId: current,
    async seal(payload, purpose, owner = NO_OWNER) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const sealed = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: additionalData(current, purpose, owner) },
        await imported.get(current)!(),
        encoder.encode(JSON.stringify(payload)),
      );
      const bytes = new Uint8Array(12 + sealed.byteLength);
      bytes.set(iv);
      bytes.set(new Uint8Array(sealed), 12);
      return `${VERSION}.${current}.${toBase64Url(bytes)}`;
    },
    async open<T>(text: string, purpose: SealPurpose, owner = NO_OWNER): Promise<T> {
      const [version, keyId, body, extra] = text.split('.');
      if (version === UNBOUND_VERSION && keyId && body && extra === undefined)
        throw new UnsealError(
          'unbound',
          'it was encrypted by an earlier version of this server, before sealed content was bound to its owner; send the conversation again without it',
        );
      const bytes = body === undefined ? undefined : fromBase64(body);
      if (version !== VERSION || !keyId || extra !== undefined || !bytes || bytes.byteLength < 12 + 16)
        throw new UnsealError('malformed', 'it is not content this server encrypted');
      const key = imported.get(keyId);
      if (!key)
        throw new UnsealError('unknown_key', `it was encrypted with key '${keyId}', which this server does not have`);
      let plain: ArrayBuffer;
      try {
        plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: bytes.subarray(0, 12), additionalData: additionalData(keyId, purpose, owner) },
          await key(),
          bytes.subarray(12),
        );
      } catch (error) {
        throw new UnsealError('tampered', 'it was altered, or encrypted for another tenant or purpose', {
          cause: error,
        });
      }
      return JSON.parse(new TextDecoder().decode(plain)) as T;
    },
  };
}

/**
 * `sealer` bound to one owner (the tenant a request speaks for): what it seals opens only for that owner.
 * The turn runner makes one per turn and compaction (`TurnRunner.depsFor`), the one path every request
 * takes, so no route or family can seal without its owner.
 */
export const sealerFor = (sealer: Sealer, owner: string): Sealer => new OwnerSealer(sealer, owner);

/**
 * A class, not an object literal with a `keyId` getter: such a literal is made by V8's slow path (its getter
 * defined at run time, the object in dictionary mode), ~2.7k instructions a turn when a traced turn's store
 * makes the runner build its dependencies again (bench/telemetry.bench.ts's glue note).
 */
class OwnerSealer implements Sealer {
  constructor(
    private readonly sealer: Sealer,
    private readonly owner: string,
  ) {}

  get keyId(): string {
    return this.sealer.keyId;
  }

  seal(payload: unknown, purpose: SealPurpose): Promise<string> {
    return this.sealer.seal(payload, purpose, this.owner);
  }

  open<T>(text: string, purpose: SealPurpose): Promise<T> {
    return this.sealer.open<T>(text, purpose, this.owner);
  }
}

/**
 * A sealer made by `make` on first use, e.g. around a key generated on demand: random values are not
 * allowed at a Worker's module scope, where a handler is often built.
 */
export function lazySealer(make: () => Sealer): Sealer {
  let sealer: Sealer | undefined;
  const made = () => (sealer ??= make());
  return {
    get keyId() {
      return made().keyId;
    },
    seal: (payload, purpose, owner) => made().seal(payload, purpose, owner),
    open: (text, purpose, owner) => made().open(text, purpose, owner),
  };
}

/** A fresh random key (for development, or to print for configuration). */
export function generateEncryptionKey(id = `k${Date.now().toString(36)}`): EncryptionKey {
  return { id, key: toBase64Url(crypto.getRandomValues(new Uint8Array(32))) };
}

/** Keys from configuration text: `id:base64key`, comma-separated, the current key first. */
export function parseEncryptionKeys(text: string): EncryptionKey[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const colon = entry.indexOf(':');
      if (colon <= 0) throw new Error(`Encryption key '${entry.slice(0, 8)}…' is not written as id:base64key.`);
      return { id: entry.slice(0, colon), key: entry.slice(colon + 1) };
    });
}

/**
 * Base64 works in whole 3-byte groups, so a chunk of a multiple of 3 bytes encodes on its own. Chunks keep
 * every string small: one `+=` per byte and whole-payload `replace`s grew faster than the payload (a
 * 100,000-item compaction window spent 3 s building its binary string; bench/reliability.bench.ts).
 */
const CHUNK_BYTES = 3 * 8192;

function toBase64Url(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let start = 0; start < bytes.length; start += CHUNK_BYTES) {
    const chunk = bytes.subarray(start, start + CHUNK_BYTES);
    // At most 24,576 arguments: well under the engines' limits for apply.
    const base64 = btoa(String.fromCharCode.apply(null, chunk as unknown as number[]));
    parts.push(base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  }
  return parts.join('');
}

/** Bytes of base64 or base64url text, or undefined when it is not such text. */
function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return undefined;
  const unpadded = text.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return undefined;
  const bytes = new Uint8Array(Math.floor((unpadded.length * 3) / 4));
  // 4 characters per 3 bytes: chunks of a multiple of 4 characters decode on their own (the same reason as above).
  const chunkChars = (CHUNK_BYTES / 3) * 4;
  let written = 0;
  for (let start = 0; start < unpadded.length; start += chunkChars) {
    const chunk = unpadded
      .slice(start, start + chunkChars)
      .replace(/-/g, '+')
      .replace(/_/g, '/');
    let binary: string;
    try {
      binary = atob(chunk.padEnd(Math.ceil(chunk.length / 4) * 4, '='));
    } catch {
      return undefined;
    }
    for (let i = 0; i < binary.length; i++) bytes[written++] = binary.charCodeAt(i);
  }
  return bytes;
}
