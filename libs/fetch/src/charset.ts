/**
 * Decodes a fetched body to text. Order (WHATWG encoding sniffing, which is what browsers do):
 * BOM → Content-Type charset → <meta charset>/<meta http-equiv> in the first 4 KiB → UTF-8 if the
 * bytes are valid UTF-8 → windows-1252. A declared UTF-8 that does not decode (the "lying header"
 * case) falls through to the next candidate instead of producing replacement characters.
 */
export interface DecodedText {
  text: string;
  charset: string;
  /** Where the charset came from. */
  source: 'bom' | 'header' | 'meta' | 'sniffed' | 'default';
}

const META_SCAN_BYTES = 4096;

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1];
}

export function charsetFromMeta(head: Uint8Array): string | undefined {
  // latin1 maps bytes 1:1, so the ASCII markup is readable whatever the real charset.
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, META_SCAN_BYTES)).toString('latin1');
  const direct = /<meta[^>]*?\scharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(text);
  if (direct) return direct[1];
  const equiv = /<meta[^>]*http-equiv\s*=\s*["']?content-type["']?[^>]*>/i.exec(text);
  if (equiv) return /charset\s*=\s*["']?([\w.:-]+)/i.exec(equiv[0])?.[1];
  return undefined;
}

/** The canonical WHATWG name for a label, or undefined when TextDecoder does not know it. */
export function normaliseCharset(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim().toLowerCase()).encoding;
  } catch {
    return undefined;
  }
}

function bomCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function tryDecode(bytes: Uint8Array, charset: string, fatal: boolean): string | undefined {
  try {
    // ignoreBOM false: the decoder strips a matching BOM.
    return new TextDecoder(charset, { fatal }).decode(bytes);
  } catch {
    return undefined;
  }
}

export function decodeBody(bytes: Uint8Array, contentType: string | undefined): DecodedText {
  const bom = bomCharset(bytes);
  if (bom) return { text: tryDecode(bytes, bom, false) ?? '', charset: bom, source: 'bom' };

  const candidates: Array<{ charset: string | undefined; source: DecodedText['source'] }> = [
    { charset: normaliseCharset(charsetFromContentType(contentType)), source: 'header' },
    { charset: normaliseCharset(charsetFromMeta(bytes)), source: 'meta' },
  ];
  for (const { charset, source } of candidates) {
    if (!charset) continue;
    // utf-16 declared in markup is a lie per spec (the markup was readable as ASCII).
    if (source === 'meta' && charset.startsWith('utf-16')) continue;
    if (charset === 'utf-8') {
      const text = tryDecode(bytes, 'utf-8', true);
      if (text !== undefined) return { text, charset, source };
      continue; // declared UTF-8 but not valid UTF-8: try the next hint
    }
    const text = tryDecode(bytes, charset, false);
    if (text !== undefined) return { text, charset, source };
  }
  const utf8 = tryDecode(bytes, 'utf-8', true);
  if (utf8 !== undefined) return { text: utf8, charset: 'utf-8', source: 'sniffed' };
  return { text: tryDecode(bytes, 'windows-1252', false) ?? '', charset: 'windows-1252', source: 'default' };
}
