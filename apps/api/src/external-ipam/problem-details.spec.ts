import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../http/error-response';
import { answerProblemsUnderExternalIpam } from './problem-details';

/** The onSend hook on its own: what leaves for an error answered under /external-ipam, and elsewhere. */
function send(url: string, status: number, payload: unknown) {
  const headers: Record<string, string> = {};
  const reply = {
    statusCode: status,
    header: (name: string, value: string) => (headers[name.toLowerCase()] = value),
    hasHeader: (name: string) => name.toLowerCase() in headers,
  } as unknown as FastifyReply;
  const request = { url, routeOptions: { url: undefined } } as unknown as FastifyRequest;
  let sent: unknown;
  answerProblemsUnderExternalIpam(request, reply, payload, (_, out) => (sent = out));
  return { headers, sent };
}

describe('problem details under /external-ipam', () => {
  it('turns the database being away (503) into a problem with Retry-After', () => {
    const { headers, sent } = send(
      '/external-ipam/v1/allocate',
      503,
      JSON.stringify(errorBody(503, 'UNAVAILABLE', 'the database is unreachable; retry later')),
    );
    expect({ headers, body: JSON.parse(sent as string) }).toEqual({
      headers: { 'content-type': 'application/problem+json; charset=utf-8', 'retry-after': '1' },
      body: {
        type: 'urn:ipledger:problem:UNAVAILABLE',
        title: 'Service Unavailable',
        status: 503,
        detail: 'the database is unreachable; retry later',
        code: 'UNAVAILABLE',
      },
    });
  });

  it('leaves /v1 errors, successes and a path that only starts alike as they are', () => {
    const error = JSON.stringify(errorBody(409, 'POOL_EXHAUSTED', 'full'));
    expect(send('/v1/allocations', 409, error)).toEqual({ headers: {}, sent: error });
    expect(send('/external-ipam-other/x', 409, error)).toEqual({ headers: {}, sent: error });
    expect(send('/external-ipam/v1/allocate', 200, '{"ips":[]}')).toEqual({ headers: {}, sent: '{"ips":[]}' });
  });
});
