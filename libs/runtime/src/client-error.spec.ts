import { describe, expect, it } from '@jest/globals';
import { connectionFaultOf } from './client-error.js';

describe('connectionFaultOf', () => {
  it('names the faults Node reports with their own status', () => {
    expect(connectionFaultOf({ code: 'HPE_HEADER_OVERFLOW' })).toBe('header_too_large');
    expect(connectionFaultOf({ code: 'ERR_HTTP_REQUEST_TIMEOUT' })).toBe('timeout');
  });

  it('takes every other parser error for bytes that are not HTTP/1.1', () => {
    for (const code of [
      'HPE_INVALID_CHUNK_SIZE',
      'HPE_UNEXPECTED_CONTENT_LENGTH',
      'HPE_LF_EXPECTED',
      undefined,
    ])
      expect(connectionFaultOf({ code })).toBe('malformed');
  });

  it('has nothing to answer a client that reset the connection', () => {
    expect(connectionFaultOf({ code: 'ECONNRESET' })).toBeNull();
  });
});
