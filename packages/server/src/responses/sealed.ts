/**
 * Opaque, server-issued payloads (reasoning `encrypted_content`, compaction summaries): JSON signed
 * with HMAC-SHA256 so that a client can round-trip them but not forge or alter them. Web Crypto only.
 */
const PREFIX = 'or1.';
const encoder = new TextEncoder();

export interface Sealer {
  seal(payload: unknown): Promise<string>;
  /** The payload, or undefined when the text is not one this server issued (or was altered). */
  open<T>(text: string): Promise<T | undefined>;
}

export function createSealer(secret: string = crypto.randomUUID()): Sealer {
  const key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
  return {
    async seal(payload) {
      const body = toBase64Url(encoder.encode(JSON.stringify(payload)));
      const signature = new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(body)));
      return `${PREFIX}${body}.${toBase64Url(signature)}`;
    },
    async open<T>(text: string) {
      if (!text.startsWith(PREFIX)) return undefined;
      const [body, signature] = text.slice(PREFIX.length).split('.');
      if (!body || !signature) return undefined;
      const valid = await crypto.subtle
        .verify('HMAC', await key, fromBase64Url(signature), encoder.encode(body))
        .catch(() => false);
      if (!valid) return undefined;
      try {
        return JSON.parse(new TextDecoder().decode(fromBase64Url(body))) as T;
      } catch {
        return undefined;
      }
    },
  };
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
