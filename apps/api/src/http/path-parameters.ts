import type { OpenAPIObject } from '@nestjs/swagger';
import type { OperationObject, ParameterObject, ReferenceObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/**
 * A handler served both unprefixed and under `/v1/clusters/{cluster}` shares one parameter list:
 * each path keeps the path parameters its template names, each required (OpenAPI's rule for them).
 */
export function pathParametersPerPath(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation: OperationObject | undefined = item[method];
      if (!operation?.parameters) continue;
      operation.parameters = operation.parameters.flatMap((p: ParameterObject | ReferenceObject) => {
        if (!('in' in p) || p.in !== 'path') return [p];
        return path.includes(`{${p.name}}`) ? [{ ...p, required: true }] : [];
      });
    }
  }
  return document;
}
