// The request and response of either HTTP version, as the TLS listener hands
// them over: Node's HTTP/1.1 objects, or its HTTP/2 compatibility ones.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';

export type EdgeRequest = IncomingMessage | Http2ServerRequest;
export type EdgeResponse = ServerResponse | Http2ServerResponse;

export function isHttp2(req: EdgeRequest): req is Http2ServerRequest {
  return req.httpVersionMajor === 2;
}

/** The authority the client named: `:authority` over HTTP/2 (Host when it sent none), Host over HTTP/1.1. */
export function requestAuthority(req: EdgeRequest): string | undefined {
  return isHttp2(req) ? req.authority : req.headers.host;
}
