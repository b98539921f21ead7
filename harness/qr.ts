/**
 * QR images of spec 4.1 (urlQrCodeEnlace) and 4.6 (datosQuickPay.urlQR): decode a PNG to the text it holds.
 *
 *   decodeQrPng(bytes) // → 'http://…/qp/…', or undefined when the bytes are not a PNG holding a QR code
 */
import jsqr from 'jsqr';
import { PNG } from 'pngjs';

const pngMagic = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function isPng(bytes: Buffer): boolean {
  return bytes.length >= pngMagic.length && bytes.subarray(0, pngMagic.length).equals(pngMagic);
}

export function decodeQrPng(bytes: Buffer): string | undefined {
  if (!isPng(bytes)) return undefined;
  try {
    const png = PNG.sync.read(bytes);
    // jsqr is CommonJS: its default import is module.exports, whose `default` is the decoder.
    const code = jsqr.default(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
    return code?.data;
  } catch {
    return undefined;
  }
}
