import { describe, expect, it } from '@jest/globals';
import { imageSizeOf, imageTokens, imageUrlTokens, MAX_IMAGE_TOKENS } from './image-tokens.js';

describe('imageTokens (Anthropic: w * h / 750 after fitting 1568 px and ~1,600 tokens)', () => {
  it.each([
    [200, 200, 54],
    [1000, 1000, 1334],
    // Anthropic's table: 1092 x 1092 is about 1,590 tokens; 1568 x 1568 is scaled down to the cap.
    [1092, 1092, 1590],
    [1568, 1568, 1599],
    // The long edge fits 1568 px first: 1568 x 196.
    [8000, 1000, 410],
  ])('%i x %i -> %i', (width, height, tokens) => {
    expect(imageTokens({ width, height })).toBe(tokens);
  });

  it('estimates the cap when the size is unknown', () => {
    expect(imageTokens(null)).toBe(MAX_IMAGE_TOKENS);
    expect(imageUrlTokens('https://example.com/cat.png')).toBe(MAX_IMAGE_TOKENS);
    expect(imageUrlTokens('data:image/png;base64,AAAA')).toBe(MAX_IMAGE_TOKENS);
  });
});

describe('imageSizeOf', () => {
  it('reads PNG, GIF, JPEG and WebP headers', () => {
    const png = Buffer.alloc(24);
    png.writeUInt32BE(0x89504e47, 0);
    png.writeUInt32BE(640, 16);
    png.writeUInt32BE(480, 20);
    expect(imageSizeOf(png)).toEqual({ width: 640, height: 480 });

    const gif = Buffer.from('GIF89a\x20\x03\x58\x02', 'latin1');
    expect(imageSizeOf(gif)).toEqual({ width: 800, height: 600 });

    // SOI, an APP0 segment of 16 bytes, then SOF0: precision, height 300, width 400.
    const jpeg = Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
      Buffer.alloc(14),
      Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x01, 0x90, 0x03]),
    ]);
    expect(imageSizeOf(jpeg)).toEqual({ width: 400, height: 300 });

    const webp = Buffer.alloc(30);
    webp.write('RIFF', 0, 'latin1');
    webp.write('WEBPVP8X', 8, 'latin1');
    webp.writeUIntLE(1023, 24, 3);
    webp.writeUIntLE(767, 27, 3);
    expect(imageSizeOf(webp)).toEqual({ width: 1024, height: 768 });

    expect(imageSizeOf(Buffer.from('not an image'))).toBeNull();
  });
});
