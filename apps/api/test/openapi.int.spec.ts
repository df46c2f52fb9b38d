import SwaggerParser from '@apidevtools/swagger-parser';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { DOMAIN_ERROR_CODES } from '@ipledger/domain';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

interface Operation {
  summary?: string;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
}
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
};

const PUBLIC = ['GET /healthz', 'GET /readyz', 'GET /metrics'];

/** Every route of the controllers, as "METHOD /openapi/{path}". */
function controllerRoutes(api: TestApi): string[] {
  const routes: string[] = [];
  for (const module of api.app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (!metatype) continue;
      // a controller may serve several paths (a cluster's routes also under /v1/clusters/{cluster})
      const given = (Reflect.getMetadata(PATH_METADATA, metatype) ?? '') as string | string[];
      const bases = Array.isArray(given) ? given : [given];
      const prototype = (metatype as { prototype: object }).prototype;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined)
          continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        for (const base of bases) {
          const path = `/${[base, String(Reflect.getMetadata(PATH_METADATA, handler))].filter((p) => p && p !== '/').join('/')}`;
          routes.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
        }
      }
    }
  }
  return routes.sort();
}

describe('the OpenAPI document (/docs-json)', () => {
  let api: TestApi;
  let doc: Document;
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })),
    );

  beforeAll(async () => {
    api = await startTestApi('openapi');
    doc = (await api.http().get('/docs-json').expect(200)).body as Document;
  });
  afterAll(() => api.close());

  it('is a valid OpenAPI 3 document', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    // validate dereferences in place: give it a copy
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('has every route of the code, and no other', () => {
    const routes = controllerRoutes(api);
    expect(routes.length).toBeGreaterThanOrEqual(22);
    expect(
      operations()
        .map((o) => o.route)
        .sort(),
    ).toEqual(routes);
  });

  it('gives every operation a summary and the bearer requirement, except the public probes and metrics', () => {
    for (const { route, operation } of operations()) {
      expect({ route, summary: Boolean(operation.summary) }).toEqual({ route, summary: true });
      expect({ route, security: operation.security }).toEqual({ route, security: PUBLIC.includes(route) ? [] : [{ bearer: [] }] });
    }
  });

  it('answers errors in the one error shape, its code an enum of the real codes', () => {
    const codes = doc.components.schemas.ErrorResponse.properties.code.enum;
    expect(codes).toEqual(
      expect.arrayContaining([...DOMAIN_ERROR_CODES, 'UNAUTHENTICATED', 'FORBIDDEN', 'PAYLOAD_TOO_LARGE', 'UNAVAILABLE']),
    );
    for (const { route, operation } of operations()) {
      const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
      if (!PUBLIC.includes(route)) expect(errors.map(([status]) => status)).toEqual(expect.arrayContaining(['401', '403', '503']));
      // the external IPAM contract answers RFC 9457 problem details (API.md "External IPAM contract")
      const [type, schema] = route.includes(' /external-ipam/')
        ? ['application/problem+json', '#/components/schemas/ProblemDetails']
        : ['application/json', '#/components/schemas/ErrorResponse'];
      for (const [status, response] of errors) {
        expect({ route, status, schema: response.content?.[type]?.schema.$ref }).toEqual({ route, status, schema });
      }
    }
    expect(doc.paths['/v1/pools'].post.responses['413']).toBeDefined();
    expect(doc.paths['/v1/pools/{name}'].get.responses['404']).toBeDefined();
    expect(doc.paths['/external-ipam/v1/allocate'].post.responses['409']).toBeDefined();
  });
});
