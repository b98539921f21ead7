/**
 * QR images of spec 4.1 (urlQrCodeEnlace) and 4.6 (datosQuickPay.urlQR): decode a PNG to the text it holds.
 *
 *   const qr = decodeQrPng(bytes);
 *   if (qr.text === undefined) console.log(qr.reason);   // not a PNG, too large to decode, or no QR code in it
 *
 * The spec says only "URL of the QR image": PNG is the one format decoded here (other image types are the
 * caller's to observe).
 */
import jsqr from 'jsqr';
import { PNG } from 'pngjs';

const pngMagic = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height above which a PNG is not decoded: its pixels would take memory and seconds for nothing. */
export const MAX_QR_SIDE = 4096;

export type QrText = { text: string; reason?: undefined; tooLarge?: undefined } | { text?: undefined; reason: string; tooLarge?: true };

export function isPng(bytes: Buffer): boolean {
  return bytes.length >= pngMagic.length && bytes.subarray(0, pngMagic.length).equals(pngMagic);
}

export function decodeQrPng(bytes: Buffer): QrText {
  if (!isPng(bytes)) return { reason: 'the bytes are not a PNG image' };
  // The IHDR chunk comes first: length (4 bytes), type (4), then width and height (4 each) at bytes 16–23.
  if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR') return { reason: 'the PNG has no IHDR header' };
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  if (width > MAX_QR_SIDE || height > MAX_QR_SIDE) {
    return {
      reason: `the PNG declares ${width}×${height} pixels, more than the ${MAX_QR_SIDE}×${MAX_QR_SIDE} the suite decodes`,
      tooLarge: true,
    };
  }
  try {
    const png = PNG.sync.read(bytes);
    // jsqr is CommonJS: its default import is module.exports, whose `default` is the decoder.
    const code = jsqr.default(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
    return code ? { text: code.data } : { reason: `no QR code found in the ${png.width}×${png.height} PNG` };
  } catch (err) {
    return { reason: `the PNG could not be read: ${(err as Error).message}` };
  }
}
