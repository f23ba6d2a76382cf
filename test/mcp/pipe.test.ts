import { describe, expect, it } from 'vitest';
import { singleEventData, sseEvent } from '../../src/mcp/pipe.js';

describe('singleEventData', () => {
  it('takes the message out of a body that is exactly one SSE message event', () => {
    const message = '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}';
    expect(singleEventData(Buffer.from(`event: message\ndata: ${message}\n\n`))?.toString()).toBe(message);
  });

  it('refuses anything else: two events, a truncated event, an event id, another event type', () => {
    const a = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n';
    const b = 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    expect(singleEventData(Buffer.from(a + b))).toBeNull();
    expect(singleEventData(Buffer.from(b.slice(0, -1)))).toBeNull();
    expect(singleEventData(Buffer.from('event: message\nid: 4\ndata: {}\n\n'))).toBeNull();
    expect(singleEventData(Buffer.from(': keepalive\n\n'))).toBeNull();
    expect(singleEventData(Buffer.from(''))).toBeNull();
  });
});

describe('sseEvent', () => {
  it('writes what singleEventData reads back', () => {
    const message = { jsonrpc: '2.0', id: 1, result: { text: 'a\nb' } };
    expect(JSON.parse(singleEventData(sseEvent(message))!.toString())).toEqual(message);
  });
});
