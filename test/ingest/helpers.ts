import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call } from '../helpers/mcp.js';

/** A minimal valid PDF written by hand: one Helvetica text line per page, a correct xref table. */
export function makePdf(pages: string[]): Buffer {
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const objs: string[] = ['<< /Type /Catalog /Pages 2 0 R >>'];
  const fontId = 3 + pages.length * 2;
  objs.push(`<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`);
  pages.forEach((text, i) => {
    const stream = `BT /F1 14 Tf 72 720 Td (${esc(text)}) Tj ET`;
    objs.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${4 + i * 2} 0 R >>`);
    objs.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  });
  objs.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A PNG of two lines of text ("INVOICE ORCHID 4521" / "Harbour freight"), rendered once with DejaVu Sans Bold. */
export const OCR_PNG = readFileSync(new URL('../fixtures/ingest/ocr-text.png', import.meta.url));

/** A tool call that must succeed; returns its result. */
export async function ok(client: Client, tool: string, args: Record<string, unknown>): Promise<any> {
  const r = await call(client, tool, args);
  if (r.isError) throw new Error(`${tool} failed: ${JSON.stringify(r.data)}`);
  return r.data;
}

/** A tool call that must fail; returns the error body. */
export async function fails(client: Client, tool: string, args: Record<string, unknown>): Promise<any> {
  const r = await call(client, tool, args);
  if (!r.isError) throw new Error(`${tool} should have failed: ${JSON.stringify(r.data).slice(0, 500)}`);
  return r.data;
}
