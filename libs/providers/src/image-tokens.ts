/**
 * What an image costs in input tokens, by Anthropic's documented formula (vision guide): an image
 * whose long edge exceeds 1568 px, or that would cost more than about 1,600 tokens, is first
 * scaled down (aspect ratio kept) until it fits; then it costs `width * height / 750` tokens.
 * Used for every local count: OpenAI's own tile formula lands in the same range for these sizes,
 * and one rule keeps the estimate explainable.
 */
const MAX_LONG_EDGE = 1568;
const PIXELS_PER_TOKEN = 750;
/** The most one image costs after resizing; also the estimate when its size cannot be read. */
export const MAX_IMAGE_TOKENS = 1600;

export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

export function imageTokens(size: ImageSize | null): number {
  if (size === null || size.width <= 0 || size.height <= 0) return MAX_IMAGE_TOKENS;
  const { width, height } = size;
  const scale = Math.min(
    1,
    MAX_LONG_EDGE / Math.max(width, height),
    Math.sqrt((MAX_IMAGE_TOKENS * PIXELS_PER_TOKEN) / (width * height)),
  );
  const w = Math.max(1, Math.floor(width * scale));
  const h = Math.max(1, Math.floor(height * scale));
  return Math.min(MAX_IMAGE_TOKENS, Math.ceil((w * h) / PIXELS_PER_TOKEN));
}

/** 96 KiB of image: room for a JPEG's EXIF and thumbnail before its frame header. */
const HEAD_BASE64_CHARS = 131_072;

/** An image URL's tokens: a `data:` URL is measured from its header; a remote one is not fetched. */
export function imageUrlTokens(url: string): number {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0 || !url.slice(0, comma).endsWith(';base64')) {
    return MAX_IMAGE_TOKENS;
  }
  // Every format's size sits in its first bytes, but a JPEG's SOF can follow a large EXIF block.
  const head = Buffer.from(url.slice(comma + 1, comma + 1 + HEAD_BASE64_CHARS), 'base64');
  return imageTokens(imageSizeOf(head));
}

/** Width and height from a PNG, GIF, JPEG or WebP header; null for anything else. */
export function imageSizeOf(b: Buffer): ImageSize | null {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) {
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (b.length >= 10 && b.toString('latin1', 0, 4) === 'GIF8') {
    return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b);
  if (b.length >= 30 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') {
    return webpSize(b);
  }
  return null;
}

/** Walks the JPEG segments to the first start-of-frame marker (C0-CF, but not DHT, JPG or DAC). */
function jpegSize(b: Buffer): ImageSize | null {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + b.readUInt16BE(i + 2);
  }
  return null;
}

function webpSize(b: Buffer): ImageSize | null {
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
  return null;
}
