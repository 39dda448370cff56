// Data URLs a client sends (`input_image.image_url`, `input_file.file_data`): read once, here, so that a
// malformed one (a bad `%` escape, bad base64) is the client's 400 naming the field, never a family's
// decoder failing mid-turn as a 500.

/** A data URL's parts: its media type, whether the payload is base64, and the payload as written. */
export interface DataUrl {
  mediaType: string;
  base64: boolean;
  data: string;
}

const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The parts of `text` when it is a data URL (`data:<type>[;…][;base64],<data>`), undefined when it does not
 * start with `data:`; throws a `MalformedDataUrl` saying what is wrong with one that does.
 */
export function parseDataUrl(text: string): DataUrl | undefined {
  if (!text.startsWith('data:')) return undefined;
  const match = DATA_URL.exec(text);
  if (!match) throw new MalformedDataUrl('it has no comma between its media type and its data');
  const base64 = /;base64$/i.test(match[2]!);
  const data = match[3]!;
  if (base64) {
    const unpadded = data.replace(/=+$/, '');
    if (!BASE64.test(data) || unpadded.length % 4 === 1) throw new MalformedDataUrl('its data is not valid base64');
  } else {
    try {
      decodeURIComponent(data);
    } catch (error) {
      throw new MalformedDataUrl('its data has an invalid %-escape', { cause: error });
    }
  }
  return { mediaType: match[1]! || 'text/plain', base64, data };
}

/** Why a data URL cannot be read. */
export class MalformedDataUrl extends Error {
  override name = 'MalformedDataUrl';
}
